"""bAbI through ``kb.ingest`` + ``kb.answer``: one fresh in-memory KB per question.

The story before the question is ingested with one story instant per sentence
(``EnglishExtractor(story_times=…)``: story time is valid time); the lexicon's predicate
properties are declared through :meth:`KnowledgeBase.declare_predicate` (``[functional]`` keyed by
subject: one value at a time; ``[closed_world]``: the story tells them in full, so counts and lists
over them are complete); ``rules/babi.hkr`` is the rule program; the question is asked at its line.
The story semantics kb.answer applies are switched on by the lexicon as answer options (see
:func:`answer_options`).  The over-reading path (:mod:`.babi`, ``answer/story_answer.py``) is the
differential check.
"""
from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from . import babi
from .runner import ItemResult, chain_json, check_citations, shift_spans

_rules = None
PATH = "kb.answer"


def _program():
    global _rules
    if _rules is None:
        from ...analysis import analyze
        from ...resources import data_dir
        from ...syntax import parse_file

        _rules = analyze(parse_file(data_dir("rules") / "babi.hkr"))
    return _rules


def declare_vocabulary(kb, lex) -> None:
    """The lexicon's predicate properties, declared in the KB's open vocabulary."""
    from ...core import IRI

    worlds = {lex.expand(p): str(w) for p, w in lex.table("closed_world").items()}
    members = set(lex.table("functional_groups"))  # functional together with their group, not alone
    functional = {lex.expand(p) for p, key in lex.table("functional").items() if key == "subject" and p not in members}
    for p in sorted(functional | set(worlds)):
        kb.declare_predicate(IRI(p), at=1, functional=p in functional, world=worlds.get(p))


def answer_options(lex):
    """kb.answer's options for stories, from the lexicon (the same data the story path reads)."""
    from ..answering import AnswerOptions
    from ..story_policies import DefaultPolicy, FunctionalGroup, Inertia, ListOrder, StoryPolicies

    inertia = tuple(Inertia(lex.expand(k), lex.expand(v["since"]), lex.expand(v["until"]))
                    for k, v in sorted(lex.table("inertia").items()))
    groups = tuple(FunctionalGroup(lex.expand(k), lex.expand(v)) for k, v in sorted(lex.table("functional_groups").items()))
    defaults = tuple(DefaultPolicy(lex.expand(k), str(v["rule"]), lex.expand(v["own"]), lex.expand(v["mate"]),
                                   str(v.get("prefer", "")))
                     for k, v in sorted(lex.table("defaults").items()))
    answers = lex.table("answers")
    return AnswerOptions(policies=StoryPolicies(inertia, groups, ListOrder(answers.get("list_order", "value")),
                                                bool(answers.get("latest_event", False)), defaults))


def score_via_kb(q: babi.Question) -> ItemResult:
    """One question answered by kb.answer over its story ingested into a fresh in-memory KB."""
    from ... import KnowledgeBase
    from ...core import RDF_TYPE, AsOf, HolokbError
    from ...ingest.chunking import chunk_paragraphs
    from ...ingest.english.extractor import EnglishExtractor
    from ..contract import Verdict
    from ..plan import AnswerForm, TimeKind, TimeRef, Unplannable

    babi._init()
    group = q.id.split(":", 1)[0]
    if q.bad:
        return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=q.bad, bad_input=True, path=PATH)
    reader, lex = babi._reader, babi._reader.lexicon
    text = "\n".join(s for _, s in q.story)
    times = [i for i, _ in q.story]
    reading = reader.read(text, story_times=times)
    skips = tuple({"code": s.code.value, "start": s.span.start, "end": s.span.end, "text": s.text, "detail": s.detail}
                  for s in reading.skips)
    plan = babi._planner.plan(q.text)
    if isinstance(plan, Unplannable):
        return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=f"question: {plan.message}",
                          skips=skips, path=PATH)
    plan = babi._resolve(plan, SimpleNamespace(reading=reading))
    if plan.time is None:
        plan = replace(plan, time=TimeRef(TimeKind.AT, instant=q.line))
    with KnowledgeBase.open(":memory:") as kb:
        try:
            declare_vocabulary(kb, lex)
            kb.ingest(text, doc_id=q.id.rsplit(":", 1)[0], at=2, extractor=EnglishExtractor(reader=reader,
                                                                                            story_times=times))
            answer = kb.answer(plan, as_of=AsOf.latest(), rules=_program(), options=answer_options(lex))
        except HolokbError as e:
            return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=f"kb: {e}", skips=skips,
                              path=PATH)
    answer = shift_spans(answer, {c.chunk_id: c.start for c in chunk_paragraphs(text)})
    predicted = babi.predicted_word(answer)
    if answer.verdict is Verdict.SUPPORTED and plan.answer_form in (AnswerForm.COUNT, AnswerForm.LIST):
        # bAbI words counts ("two") and the empty list ("nothing"): the lexicon's [answer_words]
        words = {str(k): str(v) for k, v in lex.table("answer_words").items()}
        predicted = words.get(answer.text or "empty_list", answer.text)
    if answer.verdict is Verdict.SUPPORTED and len(answer.values) == 1 and answer.values[0] in {
            f.fact.object for f in reading.facts if f.fact.predicate.value == RDF_TYPE}:
        predicted = predicted[:1].lower() + predicted[1:]  # a class names an adjective or noun ("tired")
    correct = predicted == q.answer
    reason = None if answer.verdict is Verdict.SUPPORTED else (answer.missing.message if answer.missing
                                                                 else answer.verdict.value)
    cited, ok = check_citations(answer, text, {(s.start, s.end) for s in reading.sentences})
    return ItemResult(q.id, q.answer, predicted, answer.verdict.value, correct, group, chain_json(answer), reason,
                      skips, cited=cited if correct else None, spans_ok=ok if correct else None, path=PATH)
