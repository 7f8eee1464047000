"""Regression: a rule whose premise is a negative fact ("If something is big and not red …") keeps that
meaning when stored: the pipeline stores the rule IR as JSON, never as rule text (where a body "not"
means negation as failure, a different and here wrong reading)."""
from __future__ import annotations

import pytest

from holokb import KnowledgeBase
from holokb.core import AsOf

pytest.importorskip("holokb.ingest.english")


def test_negative_fact_premise_keeps_its_open_world_meaning(tmp_path):
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        report = kb.ingest("Bob is big. Anne is big. Anne is not red. "
                           "If something is big and not red then it is kind.", doc_id="d", at=1)
        assert report.rules == 1 and not report.skipped
        # Bob is not known to be red, but not known to be not red either: kind must not follow.
        assert kb.answer("Bob is kind.", as_of=AsOf.latest()).text != "Yes"
        anne = kb.answer("Anne is kind.", as_of=AsOf.latest())
        assert anne.text == "Yes"
        cited = [s.text for e in anne.fact_chain for s in e.evidence + e.rule_evidence]
        assert "Anne is not red." in cited and "If something is big and not red then it is kind." in cited
