"""Every example in docs/rules.md and docs/time.md runs and prints what the page says it prints.

The pages are read as data (``doc_runner``): each section is a fresh project, data blocks are loaded,
the rule block is ``rules/doc.hkr``, and each ``$ holokb …`` line must exit as stated and print
exactly the lines under it.  After changing a command's output, ``python3 tests/docs/doc_runner.py
--fill docs/rules.md`` rewrites the outputs (then read the diff: it is the documentation).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "cli"))

from doc_runner import normal, run_section, sections  # noqa: E402
from surface_support import run  # noqa: E402

ROOT = HERE.parents[1]
PAGES = ("docs/rules.md", "docs/time.md")
CASES = [pytest.param(page, sec, id=f"{Path(page).stem}: {sec.title}")
         for page in PAGES for sec in sections((ROOT / page).read_text(encoding="utf-8"))]


def test_the_pages_have_runnable_examples():
    for page in PAGES:
        secs = sections((ROOT / page).read_text(encoding="utf-8"))
        assert sum(1 for s in secs for st in s.steps if st.kind == "console") >= 5, page


@pytest.mark.parametrize("page, section", CASES)
def test_examples(page, section, tmp_path):
    for cmd, r in run_section(section, tmp_path / "project", run):
        where = f"{page}:{cmd.line + 1}: holokb {' '.join(cmd.argv)}"
        assert "Traceback" not in r.err, (where, r.err)
        assert r.code == cmd.exit_code, (where, r)
        assert normal(cmd.shown(r)) == normal(cmd.expected), where


def test_rules_page_covers_every_construct():
    text = (ROOT / "docs/rules.md").read_text(encoding="utf-8")
    for construct in ("vocabulary:", "?_", "count(", "sum(", "min(", "[weight", "depth", "functional",
                      "score", "constraint ", "rdf:type", "hk:triple", "not ", "@include", "?-", "15 min",
                      "xsd:duration", "(iri, iri)", "concat(", "pow(", "band", "to_integer(", "mean(", "record(", "field("):
        assert construct in text, construct
