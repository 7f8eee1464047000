"""Every command of the README's tour works in a fresh project, as written.

The ``bash`` blocks after "## The tour" are run line by line: ``holokb init X && cd X`` scaffolds and
enters the project, ``$HOLOKB_CORPORA`` is the corpora folder, every other line is one holokb command
that must exit 0.  The LUBM block (heavy: 100k triples, OWL 2 RL closure) runs with the conformance tests.
"""
from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "cli"))

from surface_support import run  # noqa: E402

ROOT = HERE.parents[1]


def tour_blocks() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = text[text.index("## The tour"):]
    tour = tour[:tour.index("\n## ", 5)] if "\n## " in tour[5:] else tour
    blocks = re.findall(r"```bash\n(.*?)```", tour, re.S)
    return [[ln for ln in b.splitlines() if ln.strip()] for b in blocks]


def serving() -> set[str]:
    """Commands that run until interrupted (``holokb serve``): the tour test does not start them."""
    from holokb.cli.introspect import commands

    return {c.name for c in commands() if "runs until interrupted" in c.help}


def run_block(lines: list[str], where: Path, corpora: str | None) -> list[tuple[str, object]]:
    """Run every holokb command of ``lines`` (``cd`` moves, long-running servers are not started):
    ``(the README line, its Run)`` in order."""
    cwd = where
    forever = serving()
    assert forever, "no command says it runs until interrupted: the tour would start a server and wait forever"
    runs: list[tuple[str, object]] = []
    for line in lines:
        if corpora is None and "$HOLOKB_CORPORA" in line:
            continue  # the corpora are not here; the project's own commands still run
        words = shlex.split(line.replace("$HOLOKB_CORPORA", corpora or ""), comments=True)
        parts = [[]]
        for w in words:
            if w == "&&":
                parts.append([])
            else:
                parts[-1].append(w)
        for part in parts:
            if part[0] == "cd":
                cwd = cwd / part[1]
                continue
            if len(part) > 1 and part[1] in forever:
                continue
            assert part[0] == "holokb", line
            runs.append((line, run(part[1:], cwd)))
    return runs


def failures(runs) -> list[tuple[str, int, str]]:
    """The commands that did not exit 0 or printed a traceback (line, exit code, end of stderr)."""
    return [(line, r.code, r.err[-2000:]) for line, r in runs if r.code != 0 or "Traceback" in r.err]


def output_of(runs, start: str):
    """The Run of the first README line that starts with ``start``."""
    return next(r for line, r in runs if line.startswith(start))


def test_the_tour_has_the_commands_it_promises():
    assert "serve" in serving()
    first = tour_blocks()[0]
    assert first[0].startswith("holokb init")
    assert sum(1 for ln in first if ln.startswith("holokb ")) >= 15


def test_the_tour_runs_in_a_fresh_project(tmp_path):
    from _corpora import corpora_root

    root = corpora_root()
    block = tour_blocks()[0]
    runs = run_block(block, tmp_path, None if root is None else str(root))
    assert failures(runs) == []
    expected = [ln for ln in block if "holokb serve" not in ln and (root is not None or "$HOLOKB_CORPORA" not in ln)]
    assert [line for line, _ in runs] == expected  # every command ran, in the README's order
    # what the comments promise
    reload = [r for line, r in runs if line.startswith("holokb load kb/")][1]
    assert "0 span(s)" in reload.out and "span(s) unchanged" in reload.out
    assert "?c = ex:sandboxing" in output_of(runs, "holokb ask").out
    assert output_of(runs, 'holokb answer "If a user is inactive for 20 minutes in v2.0').out.startswith("No")
    verdict = json.loads(output_of(runs, 'holokb answer "If a user is inactive for 20 minutes, is').out)["verdict"]
    assert verdict == "conflicting"
    assert output_of(runs, "holokb prove").out.startswith("entailed")
    names = output_of(runs, "holokb history ex:Bob ex:name").out
    assert '"Robert"' in names and '"Bob"' in names


@pytest.mark.conformance
def test_the_lubm_tour_runs_in_a_fresh_project(tmp_path, corpora):
    (lubm,) = [b for b in tour_blocks() if b[0].startswith("holokb init lubm")]
    runs = run_block(lubm, tmp_path, str(corpora))
    assert failures(runs) == []
    assert len(runs) == len(lubm)
    # q01's published count over LUBM(1,0) is 4 rows (a header line, then one per answer)
    rows = [ln for ln in output_of(runs, "holokb query --file").out.splitlines() if ln.strip()]
    assert len(rows) == 1 + 4
