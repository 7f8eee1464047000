"""Every command of the README's tour works in a fresh project, as written.

The ``bash`` blocks after "## The tour" are run line by line: ``holokb init X && cd X`` scaffolds and
enters the project, ``$HOLOKB_CORPORA`` is the corpora folder, every other line is one holokb command
that must exit 0.  The LUBM block (heavy: 100k triples, OWL 2 RL closure) runs with the conformance tests.
"""
from __future__ import annotations

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


def run_block(lines: list[str], where: Path, corpora: str | None) -> None:
    cwd = where
    forever = serving()
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
            r = run(part[1:], cwd)
            assert r.code == 0, (line, r.err[-2000:], r.out[-2000:])
            assert "Traceback" not in r.err


def test_the_tour_has_the_commands_it_promises():
    assert "serve" in serving()
    first = tour_blocks()[0]
    assert first[0].startswith("holokb init")
    assert sum(1 for ln in first if ln.startswith("holokb ")) >= 15


def test_the_tour_runs_in_a_fresh_project(tmp_path):
    from _corpora import corpora_root

    root = corpora_root()
    run_block(tour_blocks()[0], tmp_path, None if root is None else str(root))


@pytest.mark.conformance
def test_the_lubm_tour_runs_in_a_fresh_project(tmp_path, corpora):
    (lubm,) = [b for b in tour_blocks() if b[0].startswith("holokb init lubm")]
    run_block(lubm, tmp_path, str(corpora))
