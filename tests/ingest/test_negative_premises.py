"""Regression: a rule whose premise is a negative fact ("If something is big and not red …") must not
be stored as rule text, where a body "not" means negation as failure (a different, wrong meaning)."""
from __future__ import annotations

from holokb import KnowledgeBase
from holokb.core import AsOf


def test_negative_fact_premise_is_skipped_not_turned_into_negation_as_failure(tmp_path):
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        report = kb.ingest("Bob is big. If something is big and not red then it is kind.", doc_id="d", at=1)
        assert any("negative fact" in (getattr(s, "detail", "") or "") for s in report.skipped), report.skipped
        answer = kb.answer("Bob is kind.", as_of=AsOf.latest())
        # Bob is not known to be red, but not known to be not red either: kind must not follow.
        assert answer.text != "Yes"
