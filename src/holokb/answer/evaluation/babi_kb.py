"""bAbI through ``kb.ingest`` + ``kb.answer`` (one fresh in-memory KB per question): where it stands.

The eval command still answers bAbI over the reading (:mod:`.babi`, story semantics in
``answer/story_answer.py``).  This path is the way there and the differential check on the part
kb.answer already covers: the story is ingested with one story instant per sentence
(``EnglishExtractor(story_times=…)``), the lexicon's subject-functional predicates are declared
functional in the KB, ``rules/babi.hkr`` is the rule program, and the question is asked at its
line.  kb.answer does not yet have: answer-time inertia of dropped things, either/or as "maybe",
count/list order by first mention, event conditions (refused) and the [defaults] policy — it
refuses or differs there, which the tests measure.
"""
from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from . import babi
from .runner import ItemResult

_rules = None


def _program():
    global _rules
    if _rules is None:
        from ...analysis import analyze
        from ...resources import data_dir
        from ...syntax import parse_file

        _rules = analyze(parse_file(data_dir("rules") / "babi.hkr"))
    return _rules


def score_via_kb(q: babi.Question) -> ItemResult:
    """One question answered by kb.answer over its story ingested into a fresh in-memory KB."""
    from ... import KnowledgeBase
    from ...core import IRI, AsOf, HolokbError
    from ...ingest.english.extractor import EnglishExtractor
    from ..plan import TimeKind, TimeRef, Unplannable

    babi._init()
    group = q.id.split(":", 1)[0]
    if q.bad:
        return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=q.bad, bad_input=True)
    reader, lex = babi._reader, babi._reader.lexicon
    text = "\n".join(s for _, s in q.story)
    times = [i for i, _ in q.story]
    plan = babi._planner.plan(q.text)
    if isinstance(plan, Unplannable):
        return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=f"question: {plan.message}")
    plan = babi._resolve(plan, SimpleNamespace(reading=reader.read(text, story_times=times)))
    if plan.time is None:
        plan = replace(plan, time=TimeRef(TimeKind.AT, instant=q.line))
    with KnowledgeBase.open(":memory:") as kb:
        with kb.ledger.batch(at=1) as b:  # one value per subject at a time (the lexicon's [functional])
            for p, key in sorted(lex.table("functional").items()):
                if key == "subject":
                    b.declare_predicate(IRI(lex.expand(p)), arity=2, functional=True)
        try:
            kb.ingest(text, doc_id=q.id.rsplit(":", 1)[0], at=2, extractor=EnglishExtractor(reader=reader,
                                                                                            story_times=times))
            answer = kb.answer(plan, as_of=AsOf.latest(), rules=_program())
        except HolokbError as e:
            return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=f"kb: {e}")
    predicted = babi.predicted_word(answer)
    reason = None if predicted is not None else (answer.missing.message if answer.missing else answer.verdict.value)
    return ItemResult(q.id, q.answer, predicted, answer.verdict.value, predicted == q.answer, group, reason=reason)
