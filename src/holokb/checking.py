"""Consistency and entailment over the KB: active sets from the ledger, cardinalities from shapes.

One semantics with ``derive``/``ask``: whether a goal holds is the engine's (goal-directed) closure
over every fact visible at the AsOf; ``not``, aggregates and per-rule depths reach the solver as
the engine computed them (:mod:`holokb.closed_world`).  The solver finds refutations of open-world
goals over the goal's neighbourhood, grown one hop per round (no growth ⇒ the stagnation stop), and
minimal conflicts for ``consistency`` over the facts of the predicates the rules, constraints,
functional declarations and shape cardinalities talk about, capped by ``max_atoms``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from rdflib import Graph, URIRef
from rdflib.namespace import SH

from .analysis import Atom, Program
from .analysis.program import Aggregate, Negation
from .closed_world import closed_relations, with_snapshot
from .core import AsOf, AssertedRef, IRI, Limits, RDF_TYPE, Term
from .engine import ProofNode, closure
from .ledger import FactView, Ledger
from .reasoning import TRIPLE, database_at, mentioned_predicates
from .solver import (
    ActiveSet, Cardinality, ConsistencyResult, EntailmentResult, GroundFact, SolverLimit, SolverLimits,
    check_consistency, entails,
)
from .solver.active_set import Absence, relation_key

_ALL = Limits(max_results=None)


def evidence_refs(v: FactView) -> tuple[str, ...]:
    """``doc#chunk[start:end]`` for each piece of evidence (what an unsat core points back to)."""
    return tuple(e.document + (f"#{e.chunk}" if e.chunk else "") +
                 (f"[{e.char_start}:{e.char_end}]" if e.char_start is not None else "") for e in v.evidence)


def ground(v: FactView) -> GroundFact:
    return GroundFact.of_fact(v.fact, evidence=evidence_refs(v), valid=v.valid)


def program_predicates(program: Program) -> set[str]:
    """Every predicate the program mentions, and its functional predicates."""
    return mentioned_predicates(program) | {p for p, d in program.vocabulary.items() if d.functional}


def cardinalities(shapes: Graph | None) -> tuple[Cardinality, ...]:
    """sh:minCount / sh:maxCount / sh:datatype on simple property paths of class-targeted shapes."""
    if shapes is None:
        return ()
    out = []
    for shape in sorted(set(shapes.subjects(SH.targetClass, None)), key=str):
        classes = sorted(shapes.objects(shape, SH.targetClass), key=str)
        for prop in shapes.objects(shape, SH.property):
            path = shapes.value(prop, SH.path)
            if not isinstance(path, URIRef):
                continue
            lo = shapes.value(prop, SH.minCount)
            hi = shapes.value(prop, SH.maxCount)
            dt = shapes.value(prop, SH.datatype)
            if lo is None and hi is None and dt is None:
                continue
            for c in classes:
                out.append(Cardinality(str(path), int(lo.toPython()) if lo is not None else 0,
                                       int(hi.toPython()) if hi is not None else None,
                                       str(dt) if dt is not None else None, str(c)))
    return tuple(sorted(set(out), key=lambda c: (c.predicate, c.target_class or "", c.min_count)))


@dataclass(frozen=True, slots=True)
class ActiveSetInfo:
    """How an active set was gathered: fact count and whether a cap cut it."""

    facts: int
    truncated: bool


def consistency_active_set(ledger: Ledger, program: Program, as_of: AsOf, cards: Iterable[Cardinality],
                           *, max_facts: int | None) -> tuple[ActiveSet, ActiveSetInfo]:
    """Facts (both polarities) of every predicate the program or the cardinalities constrain."""
    cards = tuple(cards)
    preds = program_predicates(program) | {c.predicate for c in cards}
    classes = {c.target_class for c in cards if c.target_class}
    facts: dict[str, GroundFact] = {}
    truncated = False
    for p in sorted(preds):
        page = ledger.facts(as_of, predicate=IRI(p), limits=Limits(max_results=max_facts))
        truncated |= page.truncated
        for v in page:
            if p == RDF_TYPE and classes and program_predicates(program).isdisjoint({RDF_TYPE}) \
                    and v.fact.object.value not in classes:  # type: ignore[union-attr]
                continue
            facts.setdefault(v.fact_id + v.span_id, ground(v))
    if RDF_TYPE not in preds and classes:
        for c in sorted(classes):
            for v in ledger.facts(as_of, predicate=IRI(RDF_TYPE), obj=IRI(c), limits=_ALL):
                facts.setdefault(v.fact_id + v.span_id, ground(v))
    chosen = [facts[k] for k in sorted(facts)]
    if max_facts is not None and len(chosen) > max_facts:
        chosen, truncated = chosen[:max_facts], True
    return ActiveSet.from_program(program, chosen, cards), ActiveSetInfo(len(chosen), truncated)


def neighbourhood(ledger: Ledger, as_of: AsOf, seeds: Iterable[Term], hops: int,
                  max_facts: int | None = None) -> list[GroundFact]:
    """Facts within ``hops`` edges of the seed IRIs (both directions, both polarities), BFS order."""
    frontier = sorted({s for s in seeds if isinstance(s, IRI)}, key=lambda t: t.value)
    seen_nodes = set(frontier)
    out: dict[str, GroundFact] = {}
    for _ in range(hops):
        nxt: set[IRI] = set()
        for node in frontier:
            views = list(ledger.facts(as_of, about=node, limits=_ALL)) + list(
                ledger.facts(as_of, obj=node, limits=_ALL))
            for v in views:
                out.setdefault(v.fact_id + v.span_id, ground(v))
                for t in (v.fact.subject, v.fact.object):
                    if isinstance(t, IRI) and t not in seen_nodes and v.fact.predicate.value != RDF_TYPE:
                        nxt.add(t)
                if max_facts is not None and len(out) >= max_facts:
                    return list(out.values())
        seen_nodes |= nxt
        frontier = sorted(nxt, key=lambda t: t.value)
        if not frontier:
            break
    return list(out.values())


def goal_seeds(atoms: Iterable[Atom]) -> list[Term]:
    from .analysis import Const

    return [a.term for at in atoms for a in at.args if isinstance(a, Const) and isinstance(a.term, IRI)]


# -- prove and consistency: one semantics with derive/ask ---------------------------------------------


def horn_part(program: Program) -> ActiveSet:
    """The rules and constraints the solver may read on a partial set of facts: those without
    ``not``, aggregates or a per-rule depth (dropping a rule only ever removes conclusions, so a
    refutation or conflict found without it also holds with it)."""
    keep = tuple(r for r in tuple(program.rules) + tuple(program.constraints)
                 if r.depth is None and not any(isinstance(b, (Negation, Aggregate)) for b in r.body))
    functional = tuple(sorted(p for p, d in program.vocabulary.items() if d.functional))
    return ActiveSet((), keep, functional)


def goal_cone(program: Program, atom: Atom) -> Program:
    """The rules the goal's relation (both polarities) depends on, checked and stratified, with the goal
    as a query so that its predicate is loaded, and the facts written in the rule files (input facts
    the cone's closure must see as the full closure does)."""
    from .analysis import Query, check_program
    from .engine.magic import dependency_cone

    keep = dependency_cone(program.rules, {(atom.predicate, atom.negated), (atom.predicate, not atom.negated)})
    twin = replace(atom, negated=not atom.negated)
    return check_program(tuple(program.rules[i] for i in keep), queries=(Query((atom,), ()), Query((twin,), ())),
                         vocabulary=program.vocabulary, prefixes=program.prefixes, facts=program.facts)


def _absences(proof: ProofNode) -> tuple[Absence, ...]:
    """The negated premises of a proof (its absent nodes), each once, in DAG order."""
    return tuple(dict.fromkeys(Absence(n.predicate, n.args, n.negated) for n in proof.nodes() if n.absent))


def prove(ledger: Ledger, program: Program, atom: Atom, as_of: AsOf, cards: tuple[Cardinality, ...], *,
          backend: str, limits: SolverLimits, hops: int = 1) -> EntailmentResult:
    """``entailed`` exactly when the closure at ``as_of`` derives the goal; ``refuted`` when it does not
    and the goal's relation is closed-world (read under ``not`` or an aggregate, or feeding one), or
    when asserting the goal would clash with what holds (a negative fact, a functional predicate, a
    constraint, a cardinality); ``unknown`` otherwise.

    The closure is goal-directed: only the rules the goal's relation depends on, over every fact
    visible at ``as_of`` (negation as failure needs them all).  The solver only ever looks for a
    refutation of an open-world goal, over the goal's neighbourhood and the rules it may read there.
    """
    args = tuple(a.term for a in atom.args)  # type: ignore[union-attr]
    budget = Limits(timeout_s=limits.timeout_ms / 1000, max_results=None)
    cone = goal_cone(program, atom)
    model = closure(cone, database_at(ledger, as_of, cone), limits=budget, record_proofs=True,
                    valid_at=as_of.valid)
    if model.contains(atom.predicate, args, negated=atom.negated):
        return _entailed(ledger, program, atom, args, as_of, model, backend, limits)
    if model.truncated:
        return EntailmentResult("unknown", reason="the closure ran out of budget before deriving the goal",
                                limit_hit=model.limit_hit)
    if relation_key(atom.predicate, args, atom.negated) in closed_relations(program.rules + program.constraints):
        return EntailmentResult("refuted", reason="closed world: not derived (negation as failure)",
                                absent=(Absence(atom.predicate, args, atom.negated),))
    return _refute_open(ledger, program, atom, as_of, cards, model, backend, limits, hops)


def _entailed(ledger: Ledger, program: Program, atom: Atom, args, as_of: AsOf, model, backend: str,
              limits: SolverLimits) -> EntailmentResult:
    proof = model.explain(atom.predicate, args, negated=atom.negated)
    facts: dict[str, GroundFact] = {}
    for n in proof.inputs():
        view = input_view(ledger, n, as_of)
        if view is not None:
            facts.setdefault(view.fact_id, ground(view))
    rules = sorted({f"rule {n.rule}" for n in proof.nodes() if n.rule})
    support = tuple(facts[k] for k in sorted(facts))
    # Inconsistent premises entail anything: say so instead (the goal's own negative fact, or a
    # conflict among the facts the proof rests on).
    if model.contains(atom.predicate, args, negated=not atom.negated):
        return EntailmentResult("unknown", support, tuple(rules), reason="inconsistent premises: the goal and "
                                "its negation are both derived")
    horn = horn_part(program)
    check = check_consistency(replace(horn, facts=support), backend=backend, limits=limits)
    if check.status == "inconsistent":
        return EntailmentResult("unknown", check.facts, check.constraints, reason="inconsistent premises")
    return EntailmentResult("entailed", support, tuple(rules), reason="derived",
                            absent=_absences(proof))


def _refute_open(ledger: Ledger, program: Program, atom: Atom, as_of: AsOf, cards: tuple[Cardinality, ...],
                 model, backend: str, limits: SolverLimits, hops: int) -> EntailmentResult:
    horn = horn_part(program)
    if not (horn.functional or upper_bounds(cards) or any(r.head is None or r.head.negated for r in horn.rules)
            or _negative_facts(ledger, as_of)):
        # Nothing could clash with the goal: no constraint, functional predicate, cardinality bound
        # or negative fact.  Growing the neighbourhood cannot change that.
        return EntailmentResult("unknown", reason=_OPEN_WORLD)
    seeds = goal_seeds([atom])
    seed_set = set(seeds)
    derived = [GroundFact(d.predicate, d.args, "negate" if d.negated else "affirm", f"derived:{d.rule}", (), d.valid)
               for d in model.derived() if seed_set.intersection(d.args)]
    horn = replace(horn, cardinalities=upper_bounds(cards))
    start = neighbourhood(ledger, as_of, seeds, hops, limits.max_atoms)
    active = replace(horn, facts=tuple(start) + tuple(derived))

    def expand(a: ActiveSet, round_no: int) -> ActiveSet | None:
        more = neighbourhood(ledger, as_of, seeds, hops + round_no, limits.max_atoms)
        grown = a.with_facts(more)
        return None if len(grown.facts) == len(a.facts) else grown

    r = entails(active, atom, backend=backend, limits=limits, expand=expand)
    if r.status == "refuted":
        return r
    if r.status == "entailed":  # cannot happen when the closure and the solver agree: never claim it
        return EntailmentResult("unknown", r.facts, r.constraints, reason="the solver derived what the closure "
                                "did not (please report)", limit_hit=r.limit_hit, rounds=r.rounds)
    if r.reason == "inconsistent premises":
        return r
    # Stagnation is no budget: the whole neighbourhood was read and nothing refutes the goal.
    return replace(r, reason=_OPEN_WORLD,
                   limit_hit=None if r.limit_hit is SolverLimit.STAGNATION else r.limit_hit)


_OPEN_WORLD = "open world: not derived, and nothing known refutes it"


def upper_bounds(cards: tuple[Cardinality, ...]) -> tuple[Cardinality, ...]:
    """The cardinalities as upper bounds only: a minimum count over a neighbourhood could miss values
    that exist further out, so only maximum counts and datatypes may refute."""
    return tuple(replace(c, min_count=0) for c in cards if c.max_count is not None or c.datatype is not None)


def _negative_facts(ledger: Ledger, as_of: AsOf) -> bool:
    """Whether any negative fact is visible at ``as_of``."""
    return len(ledger.facts(as_of, polarity="negate", limits=Limits(max_results=1))) > 0


def input_view(ledger: Ledger, node: ProofNode, as_of: AsOf) -> FactView | None:
    """The ledger span (with evidence) behind an input fact of a proof, if it came from the ledger."""
    if not isinstance(node.key, AssertedRef) or not node.args or not isinstance(node.args[0], IRI):
        return None
    if len(node.args) == 2:
        s, p, o = node.args[0], IRI(node.predicate), node.args[1]
    elif len(node.args) == 3 and node.predicate == TRIPLE and isinstance(node.args[1], IRI):
        s, p, o = node.args  # the triple view holds each visible triple under its own fact id
    else:
        return None
    page = ledger.facts(as_of, about=s, predicate=p, obj=o, limits=_ALL)
    for v in page:
        if v.fact_id == node.key.fact_id:
            return v
    return None


def consistency(ledger: Ledger, program: Program, as_of: AsOf, cards: tuple[Cardinality, ...], *,
                backend: str, limits: SolverLimits) -> tuple[ConsistencyResult, ActiveSetInfo]:
    """Can the facts at ``as_of``, the rules, constraints, functional predicates and cardinalities all hold
    at the instant ``as_of.valid``?  ``not``, aggregates and per-rule depths read the engine's closure of
    every visible fact, so the answer is the one ``derive`` implies; the conflict is a minimal core."""
    active, info = consistency_active_set(ledger, program, as_of, cards, max_facts=limits.max_atoms)
    budget = Limits(timeout_s=limits.timeout_ms / 1000, max_results=None)
    cw = with_snapshot(active, database_at(ledger, as_of, program), limits=budget, valid_at=as_of.valid)
    if cw.limit_hit is not None:
        return ConsistencyResult("unknown", reason="the closure ran out of budget", limit_hit=cw.limit_hit), info
    return check_consistency(cw.active, backend=backend, limits=limits, at=as_of.valid), info
