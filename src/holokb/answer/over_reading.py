"""Answer a plan over one document's reading, in memory, with the engine (no ledger).

The evaluation commands use this for one isolated story per item until ``kb.answer`` lands; it
returns the same :class:`Answer` contract.  Open world (ProofWriter): a goal is ``Yes`` when it is
derived, ``No`` when its negation is, ``unsupported`` when neither is, ``conflicting`` when both are.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis import analyze
from ..core import IRI, Fact, Limits, RuleFileRef
from ..engine import Database, Model, ProofNode, closure
from ..ingest.english.reader import EXTRACTOR_ID, EXTRACTOR_VERSION
from ..ingest.english.reading import Reading
from ..syntax import Module
from .contract import (
    Answer, AnswerLimit, ChainEntry, ChainFact, ChainRole, Conflict, ConflictReason, Missing, MissingKind,
    SourceSpan, Verdict,
)
from .plan import AnswerForm, Pattern, QueryPlan, World

#: One story's closure: small texts, so a generous derived-fact cap and a deadline keep bad input bounded.
DEFAULT_LIMITS = Limits(max_derived=200_000, max_results=None, timeout_s=20.0)


@dataclass(frozen=True, slots=True)
class StoryModel:
    """A reading closed under its own rules (and extra rule modules): the model and where each
    input fact and rule came from."""

    reading: Reading
    text: str
    document: str
    model: Model


def close_reading(reading: Reading, text: str, *, document: str = "doc", extra: tuple[Module, ...] = (),
                  limits: Limits | None = None, program=None, record_proofs: bool = True) -> StoryModel:
    """The closure of the reading's facts under its rules (plus ``extra`` rule modules); ``program``
    is ``analyze_reading(reading, extra)`` computed once by a caller whose readings state no rules."""
    db = Database()
    for i, f in enumerate(reading.facts):
        db.add(f.fact.predicate.value, (f.fact.subject, f.fact.object), valid=f.valid, key=i,
               negated=f.fact.polarity == "negate")
    if program is None:
        program = analyze_reading(reading, extra)
    for a in program.facts:  # ground facts written in the rule files are input facts too
        db.add(a.predicate, tuple(x.term for x in a.args), key=RuleFileRef(a.origin), negated=a.negated)
    # valid_at=None (the whole valid-time axis): a fact that holds over two separate intervals (Mary back
    # in the hallway) keeps both.
    model = closure(program, db, limits=limits or DEFAULT_LIMITS, record_proofs=record_proofs)
    return StoryModel(reading, text, document, model)


def analyze_reading(reading: Reading, extra: tuple[Module, ...] = ()):
    """The analysed program of a reading's rules plus ``extra`` rule modules."""
    rules = tuple(r.rule for r in reading.rules) + tuple(r for m in extra for r in m.rules)
    decls = tuple(d for m in extra for d in m.declarations)
    prefixes = tuple(p for m in extra for p in m.prefixes)
    return analyze(Module(file=None, prefixes=prefixes, declarations=decls, rules=rules,
                          facts=tuple(a for m in extra for a in m.facts)),
                   known_predicates=_predicates(reading))


def _predicates(reading: Reading) -> set[str]:
    out = {f.fact.predicate.value for f in reading.facts}
    for r in reading.rules:
        out.update(a.predicate for a in r.rule.body if hasattr(a, "predicate"))
        if r.rule.head is not None:
            out.add(r.rule.head.predicate)
    return out


def answer_plan(story: StoryModel, plan: QueryPlan) -> Answer:
    """Answer a ground yes/no plan (constant goal terms) over a closed story."""
    goal = plan.goal
    if goal is None or plan.answer_form is not AnswerForm.YES_NO or not goal.ground:
        return Answer(None, Verdict.UNSUPPORTED, plan=plan,
                      missing=Missing(MissingKind.UNPLANNABLE, "only ground yes/no goals are answered over a reading"))
    pred, args = _ground(goal)
    negated = goal.polarity == "negate"
    m = story.model
    same = m.contains(pred, args, negated=negated)
    opposite = m.contains(pred, args, negated=not negated)
    truncated = m.truncated
    if same and opposite:
        a = explain_at(story, pred, args, negated)
        b = explain_at(story, pred, args, not negated)
        conflict = Conflict(a[-1], b[-1], ConflictReason.POLARITY, (_show(args[0]), pred),
                            "the statement and its negation are both derived")
        return Answer(None, Verdict.CONFLICTING, fact_chain=a + b, conflicts=(conflict,), plan=plan, truncated=truncated)
    if same or opposite:
        chain = explain_at(story, pred, args, negated if same else not negated)
        return Answer("Yes" if same else "No", Verdict.SUPPORTED, fact_chain=chain,
                      support_scores=tuple((e.fact_id, e.score) for e in chain if e.score is not None),
                      plan=plan, truncated=truncated)
    world = plan.world or World.OPEN
    if world is World.CLOSED and not truncated:
        return Answer("No", Verdict.SUPPORTED, plan=plan)
    if truncated:
        return Answer(None, Verdict.UNSUPPORTED, plan=plan, truncated=True, limit_hit=_limit(m.limit_hit),
                      missing=Missing(MissingKind.BUDGET, f"the closure stopped at a budget ({m.limit_hit})"))
    return Answer(None, Verdict.UNSUPPORTED, plan=plan,
                  missing=Missing(MissingKind.NOT_PROVED, "neither the statement nor its negation follows from the text"))


def _limit(hit) -> AnswerLimit:
    """The engine's limit name as the contract's enum (the engine's names are free strings today)."""
    text = str(hit).lower()
    if "depth" in text:
        return AnswerLimit.MAX_DEPTH
    if "derived" in text:
        return AnswerLimit.MAX_DERIVED
    return AnswerLimit.DEADLINE


def _show(t) -> str:
    return t.value if isinstance(t, IRI) else str(t)


def _ground(goal: Pattern) -> tuple[str, tuple]:
    def term(t):
        return t.term

    pred = term(goal.predicate)
    return (pred.value if isinstance(pred, IRI) else str(pred)), (term(goal.subject), term(goal.object))


def _span(story: StoryModel, start: int, end: int) -> SourceSpan:
    return SourceSpan(story.document, None, start, end, story.text[start:end], EXTRACTOR_ID, EXTRACTOR_VERSION, 1.0)


def explain_at(story: StoryModel, pred: str, args: tuple, negated: bool, t: int | None = None) -> tuple[ChainEntry, ...]:
    """The proof of the fact (the row whose validity contains ``t``, else its first row) as chain
    entries: premises first, the fact itself last as the conclusion."""
    root = _node_at(story.model, pred, args, negated, t)
    rule_spans = {r.rule.name: r.span for r in story.reading.rules}
    entries: dict[str, ChainEntry] = {}

    def polarity(n: ProofNode) -> str:  # an absent premise (negation as failure) reads "not p(a, b)"
        return "negate" if n.negated != n.absent else "affirm"

    def fid(n: ProofNode) -> str:
        return Fact(n.args[0], IRI(n.predicate), n.args[1], (), polarity(n)).id

    def visit(n: ProofNode) -> str:
        i = fid(n)
        if n.id in entries:
            return i
        premises = tuple(visit(p) for p in n.premises)
        cf = ChainFact(n.args[0], IRI(n.predicate), n.args[1], (), polarity(n), n.valid)
        if n.rule is None:
            f = story.reading.facts[n.key] if isinstance(n.key, int) else None
            ev = (_span(story, f.span.start, f.span.end),) if f is not None else ()
            entries[n.id] = ChainEntry(i, ChainRole.PREMISE, cf, ev, score=n.score)
        else:
            rs = rule_spans.get(n.rule)
            rev = (_span(story, rs.start, rs.end),) if rs is not None else ()
            entries[n.id] = ChainEntry(i, ChainRole.DERIVED, cf, (), n.rule, rev, premises, n.score)
        return i

    visit(root)
    out = list(entries.values())
    last = out.pop(list(entries).index(root.id))
    if last.role is ChainRole.PREMISE:
        out.append(last)
    out.append(ChainEntry(last.fact_id, ChainRole.CONCLUSION, last.fact, (), last.rule, last.rule_evidence,
                          last.premises or (last.fact_id,), last.score))
    return tuple(out)


def _node_at(model: Model, pred: str, args: tuple, negated: bool, t: int | None) -> ProofNode:
    """Model.explain for the row valid at ``t`` (explain alone takes the first row of the args)."""
    if t is None:
        node = model.explain(pred, args, negated=negated)
        assert node is not None
        return node
    rk = (pred, negated)  # Model.explain takes the first row of the args; this picks the row valid at t
    rel = model.relations[rk]
    ids = [model.terms.lookup(a) for a in args]
    hit = np.ones(rel.size, dtype=bool)
    for c, i in enumerate(ids):
        hit &= rel.col(c) == i
    vf, vt = rel.meta("valid_from"), rel.meta("valid_to")
    hit &= (vf <= t) & (t < vt)
    rows = np.flatnonzero(hit)
    return model._node(rk, int(rows[0]), 0, None, {})


__all__ = ["StoryModel", "answer_plan", "close_reading", "explain_at"]
