"""Issue 8: reloading unchanged files adds nothing and says so; a load before the latest write is refused."""
from __future__ import annotations

import pytest

from holokb.core import AsOf, SystemTimeError, parse_instant
from holokb.kb import KnowledgeBase
from holokb.resources import data_dir

T1, T2 = parse_instant("2026-01-01"), parse_instant("2026-06-01")


@pytest.mark.parametrize("with_shapes", [False, True])
def test_reloading_the_example_kb_adds_no_span(tmp_path, with_shapes):
    shapes = [data_dir("shapes")] if with_shapes else None
    with KnowledgeBase.open(tmp_path / "kb.db", shapes=shapes) as kb:
        first = kb.load([data_dir("kb")], at=T1)
        stats, export = kb.stats(), kb.export()
        again = kb.load([data_dir("kb")], at=T2)
        assert kb.stats() == stats and kb.export() == export  # named graphs included (issue 8 item 3)
        assert first.spans_new == stats["spans"] > 0 and first.spans_unchanged == 0
        assert (again.spans_new, again.spans_closed, again.spans_unchanged) == (0, 0, stats["spans"])
        views = kb.facts(predicate=None, as_of=AsOf.latest())
        assert len({v.fact_id for v in views}) == len(views)  # each fact listed once


def test_a_load_before_the_latest_write_is_refused(tmp_path):
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        kb.load([data_dir("kb")], at=T2)
        with pytest.raises(SystemTimeError):
            kb.load([data_dir("kb")], at=T1)
        f = tmp_path / "x.ttl"
        f.write_text("<http://example.org/a> <http://example.org/p> <http://example.org/b> .\n")
        with pytest.raises(SystemTimeError):
            kb.load([f], at=T1)
        assert kb.load([f], at=T2).spans_new == 1
