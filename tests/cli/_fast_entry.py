"""Helpers of the tests that hold a command's plain (typer-free) entry to its typer command
(test_query_fast, test_derive_fast)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def typer_reading(command: str, module: str, params: list[str], argv: list[str], monkeypatch) -> dict | None:
    """What the typer command ``command`` passes to ``<module>.run`` for this line (by parameter name),
    or None when typer rejects it."""
    import holokb.cli

    typer_app = holokb.cli._load()  # every command module, as a line typer reads does
    seen: list[dict] = []
    with monkeypatch.context() as m:
        m.setattr(sys.modules[module], "run", lambda *a: seen.append(dict(zip(params, a))) or 0)
        try:
            typer_app(args=[command, *argv], prog_name="holokb", standalone_mode=False)
        except Exception as e:  # noqa: BLE001 - typer's usage errors are the "rejected" answer
            if "click" not in type(e).__module__ and "typer" not in type(e).__module__:
                raise
            return None
    return seen[0] if seen else None


def run_lines(folder: Path, switch: str, fast: bool, lines: list[list[str]]) -> tuple[list[tuple[int, str, str]], bool]:
    """(exit code, stdout, stderr) of each line run by ``holokb.cli.main`` in one process with the plain
    entry ``switch`` (``FAST_QUERY``, ``FAST_DERIVE``) on or off, the folder's path shown as ``<dir>``
    (hints name it); and whether typer was loaded at the end."""
    code = (f"import sys, json\nimport holokb.cli as c\nc.{switch} = {fast!r}\n"
            "for line in json.loads(sys.argv[1]):\n"
            "    try:\n        c.main(line)\n        rc = 0\n    except SystemExit as e:\n        rc = e.code or 0\n"
            "    for f in (sys.stdout, sys.stderr):\n        f.write(f'@@{rc}@@'); f.flush()\n"
            "print(any(m.split('.')[0] == 'typer' for m in sys.modules))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-c", code, json.dumps(lines)], cwd=folder, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    outs, errs = (out.replace(str(folder), "<dir>").split("@@") for out in (p.stdout, p.stderr))
    runs = [(int(outs[i + 1]), outs[i], errs[i]) for i in range(0, 2 * len(lines), 2)]
    assert [int(e) for e in errs[1::2]] == [r[0] for r in runs]
    return runs, outs[-1].strip() == "True"
