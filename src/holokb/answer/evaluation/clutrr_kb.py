"""CLUTRR through ``kb.ingest`` + ``kb.answer`` (one fresh in-memory KB per reading of the pronouns).

The eval command answers CLUTRR over the reading (:mod:`.clutrr`: each reading closed under
rules/kinship.hkr).  This path asks the same question the way the issue states it: the story goes in
through :class:`~holokb.ingest.kinship.extractor.KinshipExtractor` (one reading of its pronouns per
KB), and kb.answer binds the relation in ``?r(A, B)`` among the kinship relations, under the same
rules.  Readings are set aside and must agree exactly as on the reading path; the tests hold the two
paths against each other.
"""
from __future__ import annotations

from . import clutrr
from .runner import ItemResult, chain_json, check_citations, shift_spans

def score_via_kb(row: dict) -> ItemResult:
    """One CLUTRR row answered by kb.answer (the relation ``?r`` with ``?r(A, B)``) in every reading left."""
    from ... import KnowledgeBase
    from ...analysis.program import Const, Var
    from ...core import IRI, AsOf, HolokbError
    from ...ingest.chunking import chunk_paragraphs
    from ...ingest.kinship.extractor import KinshipExtractor
    from ..contract import MissingKind, Verdict
    from ..plan import AnswerForm, Pattern, QueryPlan

    item = clutrr.check(row)
    if isinstance(item, ItemResult):
        return item
    reader = clutrr._reader
    text = row["story"]

    def refuse(why: str) -> ItemResult:
        return ItemResult(item.rid, item.gold, None, "unsupported", False, item.group, reason=why, skips=item.skips)

    chunks = chunk_paragraphs(text)
    if len(chunks) != 1:
        return refuse("the story has several paragraphs (each would be read on its own)")
    kept, clashes = clutrr.readings_left(item)
    if not kept:
        return refuse(f"the story contradicts itself: {clashes[0]}")
    answers = reader.lex["answers"]
    candidates = tuple(Const(IRI(reader.lexicon.iri(r))) for r in sorted(answers))
    plan = QueryPlan(predicates=candidates, form=AnswerForm.VALUE,
                     goal=Pattern(Var("r"), Const(reader.entity(item.a)), Const(reader.entity(item.b))))
    first = None
    for index, _ in kept:
        with KnowledgeBase.open(":memory:") as kb:
            try:
                kb.ingest(text, doc_id=item.rid, at=1,
                          extractor=KinshipExtractor(item.genders, reading=index, reader=reader,
                                                     read=(text, item.story)))
                answer = kb.answer(plan, as_of=AsOf.latest(), rules=clutrr._program)
                if not answer.values and clutrr._fill_program is not None \
                        and answer.missing is not None and answer.missing.kind is MissingKind.NO_FACTS:
                    # a default fills the gap (rules/kinship_defaults.hkr), cited by its rule name
                    answer = kb.answer(plan, as_of=AsOf.latest(), rules=clutrr._fill_program)
            except HolokbError as e:
                return refuse(f"kb: {e}")
        if answer.verdict is not Verdict.SUPPORTED or len(answer.values) != 1:
            why = answer.missing.message if answer.missing else answer.verdict.value
            return refuse(f"kb.answer: {why}")
        rel = answer.values[0].value
        if first is not None and rel != first[0]:
            return refuse(f"the readings disagree ({first[0]} vs {rel})")
        first = first or (rel, answer)
    rel, answer = first
    word = answers[rel.replace(reader.ns, "ex:", 1)].get(item.genders.get(item.b, ""))
    if word is None:
        return refuse(f"no gender for {item.b}")
    answer = shift_spans(answer, {c.chunk_id: c.start for c in chunks}, drop_unplaced=True)
    correct = word == item.gold
    cited, ok = check_citations(answer, text, {(s.start + chunks[0].start, s.end + chunks[0].start)
                                               for s in item.story.sentences})
    return ItemResult(item.rid, item.gold, word, "supported", correct, item.group, chain_json(answer), None,
                      item.skips, cited=cited if correct else None, spans_ok=ok if correct else None)
