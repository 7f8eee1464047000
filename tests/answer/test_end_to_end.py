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


def test_async_twins_give_the_same_answers(kb, tmp_path):
    import asyncio

    async def both():
        a = await kb.aanswer(Q.format(n=20, v=" in v2.0"), as_of=AsOf.latest())
        b, c = await asyncio.gather(kb.aanswer(Q.format(n=10, v=" in v2.0"), as_of=AsOf.latest()),
                                    kb.aanswer(Q.format(n=20, v=""), as_of=AsOf.latest()))
        return a, b, c

    a, b, c = asyncio.run(both())
    assert (a.text, b.text, c.verdict) == ("No", "Yes", Verdict.CONFLICTING)
    assert a.to_json_text() == kb.answer(Q.format(n=20, v=" in v2.0"), as_of=AsOf.latest()).to_json_text()
    with KnowledgeBase.open(tmp_path / "async.db") as other:
        r = asyncio.run(other.aingest(HANDBOOK, doc_id="spec", at=parse_instant("2026-01-01")))
        assert r.facts >= 3


def test_overlong_inputs_are_refused_not_parsed(kb, tmp_path):
    a = kb.answer("Is Bob " + "very " * 20_000 + "big?", as_of=AsOf.latest())
    assert a.verdict is Verdict.UNSUPPORTED and a.missing.kind is MissingKind.UNPLANNABLE
    assert "characters" in a.missing.message
    with KnowledgeBase.open(tmp_path / "long.db") as other:
        r = other.ingest("Bob is big. " + "Bob is " + "very " * 20_000 + "big. Anne is red.", doc_id="d", at=1)
        assert r.facts >= 2 and any(s.end - s.start > 100_000 for s in r.skipped)


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

words = st.sampled_from(["Is", "is", "the", "bear", "Bob", "big", "not", "?", ".", "If", "a", "user", "inactive",
                         "for", "20", "minutes", "in", "v2.0", "session", "valid", ",", "Where", "was", "before",
                         "kitchen", "\u00e9", "\x00", "\n", "what", "How", "many"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.lists(words, max_size=14).map(" ".join) | st.text(max_size=60))
def test_any_question_text_gives_an_answer_never_a_traceback(kb, question):
    a = kb.answer(question, as_of=AsOf.latest())
    assert (a.verdict is Verdict.UNSUPPORTED) == (a.missing is not None)
    a.to_json_text()
