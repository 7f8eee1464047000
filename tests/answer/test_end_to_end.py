"""The DS005 worked example from the handbook text, read by the controlled-English reader.

Runs when the reader (``holokb.ingest.english``) is installed; skips cleanly otherwise.
"""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("holokb.ingest.english", reason="the controlled-English reader is not in this tree yet")

from holokb.answer import ChainRole, ConflictReason, MissingKind, Verdict  # noqa: E402
from holokb.core import AsOf, parse_instant  # noqa: E402
from holokb.kb import KnowledgeBase  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = (ROOT / "kb" / "docs" / "security-handbook.txt").read_text(encoding="utf-8")
Q = "If a user is inactive for {n} minutes{v}, is their session valid?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    with KnowledgeBase.open(tmp_path_factory.mktemp("e2e") / "kb.db") as k:
        r = k.ingest(HANDBOOK, doc_id="spec", at=parse_instant("2026-01-01"))
        assert r.facts >= 3 and all(s.reason.value == "notUnderstood" for s in r.skipped)
        yield k


def sentences_cited(a) -> list[str]:
    return [s.text for e in a.fact_chain for s in e.evidence]


def test_versioned_question_is_supported_no(kb):
    a = kb.answer(Q.format(n=20, v=" in v2.0"), as_of=AsOf.latest())
    assert (a.verdict, a.text) == (Verdict.SUPPORTED, "No")
    assert [e.role for e in a.fact_chain][-2:] == [ChainRole.DERIVED, ChainRole.CONCLUSION]
    assert all(t in HANDBOOK for t in sentences_cited(a)) and any("15 minutes" in t for t in sentences_cited(a))
    assert a.chunks_used and all(c.startswith("spec#") for c in a.chunks_used)


def test_ten_minutes_is_yes(kb):
    a = kb.answer(Q.format(n=10, v=" in v2.0"), as_of=AsOf.latest())
    assert (a.verdict, a.text) == (Verdict.SUPPORTED, "Yes")


def test_unversioned_question_is_conflicting_with_the_two_versions(kb):
    a = kb.answer(Q.format(n=20, v=""), as_of=AsOf.latest())
    assert a.verdict is Verdict.CONFLICTING and a.text is None
    (c,) = a.conflicts
    assert c.reason is ConflictReason.VERSIONS_DISAGREE and c.solver is not None and len(c.solver.core) == 2
    quoted = {s.text for e in (c.fact1, c.fact2) for s in e.evidence}
    assert any("30 minutes" in t for t in quoted) and any("15 minutes" in t for t in quoted)


def test_before_v2_takes_effect_only_v1_is_visible(kb):
    a = kb.answer(Q.format(n=20, v=""), as_of=AsOf(parse_instant("2026-01-02"), parse_instant("2026-02-01")))
    assert (a.verdict, a.text) == (Verdict.SUPPORTED, "Yes")


def test_a_question_the_kb_cannot_ground_is_unsupported_with_a_reason(kb):
    a = kb.answer("Is the moon made of cheese?", as_of=AsOf.latest())
    assert a.verdict is Verdict.UNSUPPORTED and a.text is None
    assert a.missing.kind in (MissingKind.UNKNOWN_NAME, MissingKind.UNPLANNABLE, MissingKind.NOT_PROVED)
    assert a.missing.message
