"""Consistency and entailment over the KB: active sets from the ledger, cardinalities from shapes.

The active set is bounded: ``prove`` starts from the goal's neighbourhood in the ledger and grows it
one hop per solver round (a deterministic expansion step; no growth ⇒ the solver's stagnation stop);
``consistency`` takes the facts of the predicates the rules, constraints, functional declarations and
shape cardinalities talk about, capped by ``max_atoms``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from rdflib import Graph, URIRef
from rdflib.namespace import SH

from .analysis import Atom, Program
from .core import AsOf, IRI, Limits, RDF_TYPE, Term
from .ledger import FactView, Ledger
from .reasoning import mentioned_predicates
from .solver import ActiveSet, Cardinality, GroundFact

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
