"""docs/cli.md is what the CLI says about itself; the start-up imports of --help and stats stay light."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_cli_page_matches_the_commands():
    from holokb.cli.docs import render

    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == render(), "docs/cli.md drifted: regenerate with  PYTHONPATH=src python3 -m holokb.cli.docs > docs/cli.md"


def test_cli_page_lists_every_command_and_code():
    from holokb.cli.diagnostics import SURFACE_FAILURES
    from holokb.cli.introspect import commands

    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for c in commands():
        assert f"## holokb {c.name}\n" in page
        for p in c.params:
            assert (p.decls[0] if p.decls else p.metavar) in page
    for f in SURFACE_FAILURES:
        assert f"| {f.code} |" in page


#: Modules that must not load for `holokb --help` or `holokb stats` (the heavy stages, and logging).
HEAVY = ("rdflib", "pyshacl", "numpy", "scipy", "pyoxigraph", "z3", "lark", "rich", "holokb.engine",
         "holokb.sparql", "holokb.shapes", "holokb.rdf", "holokb.solver", "holokb.syntax", "holokb.analysis",
         "logging", "uvicorn", "starlette", "pydantic")


def imported_by(args: list[str], cwd: Path) -> set[str]:
    code = ("import sys, runpy, json\n"
            f"sys.argv = ['holokb', *{args!r}]\n"
            "try:\n    runpy.run_module('holokb', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    return set(json.loads(p.stderr.rsplit("MODULES ", 1)[1]))


def heavy(mods: set[str]) -> list[str]:
    return sorted(m for m in mods if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_help_imports_no_heavy_module(tmp_path):
    mods = imported_by(["--help"], tmp_path)
    assert "holokb.cli" in mods
    assert heavy(mods) == []


def test_stats_imports_no_heavy_module(tmp_path):
    from holokb.ledger import Ledger

    Ledger.open(tmp_path / "holokb.db").close()
    mods = imported_by(["stats"], tmp_path)
    assert "holokb.ledger" in mods
    assert heavy(mods) == []
