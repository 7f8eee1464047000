"""Answers over a candidate set the vector index proposes (``holokb answer --intuition hdc``).

The answer path (:mod:`holokb.answer`) runs unchanged, with a :class:`CandidateRetriever` that serves
only the candidate facts; the set grows in fixed steps (the loop of :mod:`holokb.intuition`) until an
answer rests on proofs alone.  Only yes/no questions about a ground goal take this path, and only
these answers are accepted from a subset, because more facts cannot undo them:

- ``supported`` from a proof of the goal or of its negation, or from another value of a functional
  predicate (never a closed-world "No", which rests on absence);
- ``conflicting`` (a conflict among candidate facts stays a conflict).

A ``supported`` answer is then checked for conflicts against every visible fact with the same
(subject, predicate) as its premises and goal, read from the ledger in full, so a conflict outside
the candidate set still turns it into ``conflicting``.  Other questions (values, lists, counts,
paths, checks, time references) claim completeness or compare parameters, and are answered over
complete retrieval, as with ``--intuition none``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from .analysis import Atom, Const, Program
from .answer.chain import CLOSED_WORLD, Quoter
from .answer.conflicts import detect_conflicts
from .answer.contract import Answer, AnswerLimit, ChainRole, Missing, MissingKind, Verdict
from .answer.plan import AnswerForm, QueryPlan, Unplannable
from .answer.answering import AnswerOptions, Answerer
from .answer.retrieve import Retrieval, RetrievalRequest, rank_key, version_of
from .core import AsOf, IRI, Limits, Term
from .intuition import IntuitionLoop, LoopSettings, LoopStop, Strategy, entities_of, nearest_facts
from .ledger import FactView, Ledger
from .vectors import DEFAULT_VECTORS, VectorCache
from .vsa.lexicon import TermLexicon


@dataclass(frozen=True, slots=True)
class IntuitiveAnswer:
    """An answer and how intuition reached it: candidate-set size per round, the final size, the
    number of visible facts, and why the rounds stopped."""

    answer: Answer
    strategy: Strategy
    rounds: tuple[int, ...]
    candidates: int
    kb_facts: int
    stop: LoopStop

    def to_json(self) -> dict:
        return {"strategy": self.strategy.value, "rounds": len(self.rounds), "candidateSizes": list(self.rounds),
                "candidates": self.candidates, "kbFacts": self.kb_facts, "stop": self.stop.value}


class CandidateRetriever:
    """The answer path's retriever over a candidate set: every candidate fact matching a request,
    version-filtered and ranked as :class:`~holokb.answer.retrieve.StructuredRetriever` ranks."""

    def __init__(self, views: Mapping[str, FactView], ids: set[str]):
        self.views = [views[i] for i in sorted(ids) if i in views]

    def retrieve(self, ledger: Ledger, request: RetrievalRequest) -> Retrieval:
        seen: dict[str, FactView] = {}
        for v in self.views:
            f = v.fact
            for r in request.requests:
                if f.predicate == r.predicate and (r.subject is None or f.subject == r.subject) and (
                        r.object is None or f.object == r.object):
                    ver = version_of(v) if request.version is not None else None
                    if ver is None or ver == request.version:
                        seen.setdefault(v.span_id, v)
                    break
        preds, subs = frozenset(request.predicates), frozenset(request.subjects)
        ranked = sorted(seen.values(), key=lambda v: rank_key(v, preds, subs))
        if len(ranked) > request.limit_facts:
            return Retrieval(tuple(ranked[:request.limit_facts]), True, AnswerLimit.MAX_FACTS)
        return Retrieval(tuple(ranked))


def _plan_terms(plan: QueryPlan, lexicon: TermLexicon) -> list[Term]:
    """The goal's resolved terms, and the terms the question's words name."""
    out: list[Term] = []
    g = plan.goal
    if g is not None:
        for t in (g.subject, g.object, g.predicate):
            term = getattr(t, "term", None)
            if term is not None and not (isinstance(term, IRI) and term.value.endswith("#type")):
                out.append(term)
    words = " ".join([plan.question or ""] + [str(getattr(s, "text", getattr(s, "term", s))) for s in plan.subjects])
    out.extend(lexicon.lookup(words))
    return list(dict.fromkeys(out))


def _goal_atom(plan: QueryPlan) -> Atom | None:
    g = plan.goal
    terms = [getattr(t, "term", None) for t in (g.predicate, g.subject, g.object)] if g is not None else []
    if not terms or not isinstance(terms[0], IRI) or any(t is None for t in terms):
        return None
    return Atom(terms[0].value, (Const(terms[1]), Const(terms[2])), g.polarity == "negate")  # type: ignore[union-attr]


def _accepted(a: Answer) -> bool:
    if a.verdict is Verdict.CONFLICTING:
        return True
    return a.verdict is Verdict.SUPPORTED and not any(e.rule == CLOSED_WORLD for e in a.fact_chain)


def answer_with_intuition(ledger: Ledger, plan: QueryPlan | Unplannable, *, as_of: AsOf, settings: LoopSettings,
                          rules: Program | None = None, prefixes: Mapping[str, str] | None = None,
                          options: AnswerOptions | None = None, vectors: VectorCache | None = None) -> IntuitiveAnswer:
    """Answer ``plan`` with the candidate set proposed by ``settings.strategy`` (see the module doc)."""
    opts = options or AnswerOptions()
    full = Answerer(ledger, rules=rules, prefixes=prefixes, options=opts)
    loop = IntuitionLoop(ledger, rules or full.rulebook.at(as_of)[0], vectors=vectors)
    views = loop.visible(as_of)
    eligible = (not isinstance(plan, Unplannable) and plan.goal is not None and plan.goal.ground
                and plan.check is None and plan.time is None and plan.answer_form is AnswerForm.YES_NO)
    if settings.strategy is Strategy.NONE or not eligible:
        return IntuitiveAnswer(full.answer(plan, as_of), settings.strategy, (), len(views), len(views),
                               LoopStop.WHOLE_KB)
    assert isinstance(plan, QueryPlan)
    space, _ = (vectors or DEFAULT_VECTORS).space(ledger, settings.vsa_config(), as_of)
    lexicon = TermLexicon(t for r in space.records.values() for t in (r.subject, r.predicate, r.object))
    goal_terms = _plan_terms(plan, lexicon)
    ids: set[str] = set(loop.closed_facts(views))
    chosen: list[str] = []
    sizes: list[int] = []
    terms = list(goal_terms)
    answer: Answer | None = None
    stop = LoopStop.MAX_ROUNDS
    for rnd in range(settings.max_rounds):
        added = nearest_facts(space, terms, settings.initial if rnd == 0 else settings.step, ids, views)
        if rnd > 0 and not added:
            stop = LoopStop.STAGNATION
            break
        chosen.extend(added)
        ids.update(added)
        sizes.append(len(ids))
        answer = Answerer(ledger, rules=rules, prefixes=prefixes, options=opts,
                          retriever=CandidateRetriever(views, ids), rulebook=full.rulebook).answer(plan, as_of)
        if _accepted(answer):
            stop = LoopStop.DECIDED
            break
        if len(ids) >= len(views):
            stop = LoopStop.WHOLE_KB
            break
        terms = list(goal_terms) + entities_of(chosen, views, exclude=set(goal_terms))
    if answer is None:
        answer = Answer(None, Verdict.UNSUPPORTED, plan=plan, as_of=as_of,
                        missing=Missing(MissingKind.NOT_PROVED, "the index proposed no fact related to the question"))
    elif stop is LoopStop.DECIDED and answer.verdict is Verdict.SUPPORTED:
        atom = _goal_atom(plan)
        if atom is not None and all(loop.polarities(atom, as_of)):
            # Both polarities follow from the whole KB: the complete path reports the clash.
            answer = full.answer(plan, as_of)
        else:
            answer = _confirm(ledger, answer, plan, as_of, full, opts)
    elif stop in (LoopStop.MAX_ROUNDS, LoopStop.TIMEOUT):
        # Undecided when a budget ran out: the candidate set was capped (the contract's maxFacts).
        answer = replace(answer, truncated=True, limit_hit=answer.limit_hit or AnswerLimit.MAX_FACTS)
    else:
        answer = replace(answer, truncated=False, limit_hit=None) if answer.limit_hit is AnswerLimit.MAX_FACTS \
            and not answer.truncated else answer
    return IntuitiveAnswer(answer, settings.strategy, tuple(sizes), len(ids), len(views), stop)


def _confirm(ledger: Ledger, answer: Answer, plan: QueryPlan, as_of: AsOf, full: Answerer,
             opts: AnswerOptions) -> Answer:
    """The answer path's conflict check about the statements the answer rests on (its premises and the
    goal), over every visible fact with their (subject, predicate), not only the candidates."""
    focus = [(e.fact.subject, e.fact.predicate, e.fact.object) for e in answer.fact_chain
             if e.role is ChainRole.PREMISE]
    g = _goal_atom(plan)
    if g is not None:
        focus.append((g.args[0].term, IRI(g.predicate), g.args[1].term))  # type: ignore[union-attr]
    relevant: list[FactView] = []
    for s, p in sorted({(s, p) for s, p, _ in focus}, key=lambda k: (str(k[0]), str(k[1]))):
        if isinstance(s, IRI) and isinstance(p, IRI):
            relevant.extend(ledger.facts(as_of, about=s, predicate=p, limits=Limits(max_results=None)))
    program = full.rulebook.at(as_of)[0]
    functional = frozenset({p.iri.value for p in ledger.predicates() if p.functional}
                           | {p for p, d in program.vocabulary.items() if d.functional})
    check = detect_conflicts(relevant, focus=focus, functional=functional, version=plan.version,
                             quoter=Quoter(ledger), backend=opts.backend)
    if check.conflicts:
        return Answer(None, Verdict.CONFLICTING, conflicts=check.conflicts, plan=plan, as_of=as_of)
    if check.undecided:
        return Answer(None, Verdict.UNSUPPORTED, plan=plan, as_of=as_of, truncated=True, limit_hit=AnswerLimit.SOLVER,
                      missing=Missing(MissingKind.BUDGET, "the solver could not decide whether the facts conflict"))
    return answer
