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
from .runner import ItemResult, chain_json, check_citations

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


def _plan(q: babi.Question, reading):
    """The question's plan with its words resolved against the story read so far, asked at its line;
    or an Unplannable."""
    from ..plan import TimeKind, TimeRef, Unplannable

    plan = babi._planner.plan(q.text)
    if isinstance(plan, Unplannable):
        return plan
    plan = babi._resolve(plan, SimpleNamespace(reading=reading))
    return plan if plan.time is not None else replace(plan, time=TimeRef(TimeKind.AT, instant=q.line))


def _skips(skips) -> tuple[dict, ...]:
    return tuple({"code": s.code.value, "start": s.span.start, "end": s.span.end, "text": s.text, "detail": s.detail}
                 for s in skips)


def _asked(kb, q: babi.Question, plan, text: str, reading, skips: tuple, options, shift: dict) -> ItemResult:
    """Ask one planned question of a KB that holds its story so far; ``shift`` moves each evidence
    span (by document and chunk) to its offset in ``text`` (the story so far)."""
    from ...core import RDF_TYPE, AsOf, HolokbError
    from ..contract import Verdict
    from ..plan import AnswerForm, Unplannable

    group = q.id.split(":", 1)[0]
    if isinstance(plan, Unplannable):
        return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=f"question: {plan.message}",
                          skips=skips, bad_input=True, path=PATH)  # a question of an unknown form: counted
    lex = babi._reader.lexicon
    try:
        answer = kb.answer(plan, as_of=AsOf.latest(), rules=_program(), options=options)
    except HolokbError as e:
        return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=f"kb: {e}", skips=skips, path=PATH)
    answer = _shifted(answer, shift)
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


def _shifted(answer, shift: dict):
    """``runner.shift_spans`` keyed by (document, chunk): a story ingested in parts has a "p0" in each."""
    from dataclasses import replace as rep

    def move(spans):
        return tuple(sp if sp.char_start is None or (sp.document, sp.chunk) not in shift else
                     rep(sp, char_start=sp.char_start + shift[sp.document, sp.chunk],
                         char_end=sp.char_end + shift[sp.document, sp.chunk]) for sp in spans)

    return rep(answer, fact_chain=tuple(rep(e, evidence=move(e.evidence), rule_evidence=move(e.rule_evidence))
                                        for e in answer.fact_chain))


def score_via_kb(q: babi.Question) -> ItemResult:
    """One question answered by kb.answer over its story ingested into a fresh in-memory KB (the
    per-question path: the story before the question is read and ingested again for each question;
    kept as the differential check of :func:`score_story`)."""
    from ... import KnowledgeBase
    from ...core import HolokbError
    from ...ingest.chunking import chunk_paragraphs
    from ...ingest.english.extractor import EnglishExtractor
    from ..plan import Unplannable

    babi._init()
    group = q.id.split(":", 1)[0]
    if q.bad:
        return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=q.bad, bad_input=True, path=PATH)
    reader, lex = babi._reader, babi._reader.lexicon
    text = "\n".join(s for _, s in q.story)
    times = [i for i, _ in q.story]
    reading = reader.read(text, story_times=times)
    skips = _skips(reading.skips)
    plan = _plan(q, reading)
    if isinstance(plan, Unplannable):
        return _asked(None, q, plan, text, reading, skips, None, {})
    doc = q.id.rsplit(":", 1)[0]
    with KnowledgeBase.open(":memory:") as kb:
        try:
            declare_vocabulary(kb, lex)
            kb.ingest(text, doc_id=doc, at=2, extractor=EnglishExtractor(reader=reader, story_times=times))
        except HolokbError as e:
            return ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=f"kb: {e}", skips=skips,
                              path=PATH)
        return _asked(kb, q, plan, text, reading, skips, answer_options(lex),
                      {(doc, c.chunk_id): c.start for c in chunk_paragraphs(text)})


def stories(qs: list[babi.Question]) -> list[tuple[babi.Question, ...]]:
    """The questions grouped by story, in file order."""
    out: list[list[babi.Question]] = []
    for q in qs:
        if out and out[-1][0].id.rsplit(":", 1)[0] == q.id.rsplit(":", 1)[0]:
            out[-1].append(q)
        else:
            out.append([q])
    return [tuple(g) for g in out]


def score_story(qs: tuple[babi.Question, ...]) -> list[ItemResult]:
    """Every question of one story through one in-memory KB.  The story is read once, as a whole
    (story instants as valid time; a state ends where a later line changes it), and ingested in parts
    as it is told (the lines since the previous question, each part a document of its own at a later
    transaction time, :class:`~holokb.ingest.english.extractor.ReadingPart`); each question is asked
    when the story so far is in.  Answers, verdicts and chains are those of :func:`score_via_kb`
    (the tests hold the two together)."""
    from ... import KnowledgeBase
    from ...core import HolokbError
    from ...ingest.chunking import chunk_paragraphs
    from ...ingest.english.extractor import ReadingPart
    from ...ingest.english.reading import Reading

    babi._init()
    reader, lex = babi._reader, babi._reader.lexicon
    options = answer_options(lex)
    doc = qs[0].id.rsplit(":", 1)[0]
    lines = max((q.story for q in qs), key=len)
    if any(q.story != lines[:len(q.story)] for q in qs):  # not one story told on (never in a well-formed file)
        return [score_via_kb(q) for q in qs]
    whole = "\n".join(s for _, s in lines)
    reading = reader.read(whole, story_times=[i for i, _ in lines])
    ends = [0]  # where the story so far ends in ``whole``, after 0, 1, 2 ... lines
    for _, s in lines:
        ends.append(len(s) if len(ends) == 1 else ends[-1] + 1 + len(s))
    out: list[ItemResult] = []
    told, failed = 0, None
    shift: dict = {}
    docs: list[str] = []
    with KnowledgeBase.open(":memory:") as kb:
        try:
            declare_vocabulary(kb, lex)
        except HolokbError as e:
            failed = f"kb: {e}"
        for q in qs:
            group = q.id.split(":", 1)[0]
            if q.bad:
                out.append(ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=q.bad, bad_input=True,
                                      path=PATH))
                continue
            if len(q.story) > told and failed is None:
                start = ends[told] + (1 if told else 0)
                part = whole[start:ends[len(q.story)]]
                # the first part is the story's document (as on the per-question path: rule names are
                # qualified by it), a later part is named by its first line
                part_doc = f"{doc}/{lines[told][0]}" if docs else doc
                if part.strip():  # lines with no text state nothing (the ledger refuses an empty document)
                    try:
                        kb.ingest(part, doc_id=part_doc, at=2 + len(docs),
                                  extractor=ReadingPart(reading, start, ends[len(q.story)], reader=reader))
                    except HolokbError as e:
                        failed = f"kb: {e}"
                    docs.append(part_doc)
                    shift.update({(part_doc, c.chunk_id): start + c.start for c in chunk_paragraphs(part)})
                told = len(q.story)
            end = ends[told]
            so_far = Reading(tuple(f for f in reading.facts if f.span.start < end), (),
                             tuple(s for s in reading.skips if s.span.start < end),
                             tuple(s for s in reading.sentences if s.start < end))
            skips = _skips(so_far.skips)
            if failed is not None:
                out.append(ItemResult(q.id, q.answer, None, "unsupported", False, group, reason=failed, skips=skips,
                                      path=PATH))
                continue
            story_options = replace(options, policies=replace(options.policies, documents=tuple(docs)))
            out.append(_asked(kb, q, _plan(q, so_far), whole[:end], so_far, skips, story_options, shift))
    return out
