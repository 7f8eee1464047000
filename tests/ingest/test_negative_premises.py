"""Regression: a rule the reader builds with a negative-fact premise ("If something is big and not red …")
must not act as negation as failure once ingested and answered through kb.answer."""
from __future__ import annotations

from holokb import KnowledgeBase
from holokb.core import AsOf


def test_negative_fact_premise_read_by_the_reader_is_not_negation_as_failure(tmp_path):
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        kb.ingest("Bob is big. If something is big and not red then it is kind.", doc_id="d", at=1)
        answer = kb.answer("Bob is kind.", as_of=AsOf.latest())
        # Bob is not known to be red, but not known to be not red either: kind must not follow.
        assert answer.text != "Yes"
