"""The active set: the plain data a consistency/entailment check runs over.

Ground facts carry their fact key and evidence references so that an unsat core maps back to
sources; rules and constraints are :class:`holokb.analysis.program.Rule`; functional predicates
and SHACL-derived cardinalities are simple records.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable

from ..analysis.program import Program, Rule
from ..analysis.stratify import CLASS_SEP
from ..core.fact import Fact, Polarity
from ..core.terms import IRI, RDF_TYPE, Term
from ..core.time import Interval

#: A relation as the engine and the stratifier key it: (predicate, negated); ``rdf:type`` atoms with
#: a constant class are keyed per class (``rdf:type`` + CLASS_SEP + class), as analysis.stratify does.
RelKey = tuple[str, bool]


def relation_key(predicate: str, args: tuple, negated: bool = False) -> RelKey:
    """The relation key of a ground atom (per-class for ``rdf:type``, like ``analysis.stratify.atom_key``)."""
    if predicate == RDF_TYPE and len(args) == 2 and isinstance(args[1], IRI):
        return (RDF_TYPE + CLASS_SEP + args[1].value, negated)
    return (predicate, negated)


@dataclass(frozen=True, slots=True)
class GroundFact:
    """One fact of the active set: ``predicate(args...)`` with polarity, key, evidence refs and valid time."""

    predicate: str
    args: tuple[Term, ...]
    polarity: Polarity = "affirm"
    key: str = ""
    evidence: tuple[str, ...] = ()
    valid: Interval = field(default_factory=Interval.always)

    @staticmethod
    def of_fact(fact: Fact, *, evidence: Iterable[str] = (), valid: Interval | None = None) -> "GroundFact":
        """A ledger :class:`Fact` as ``predicate(subject, object)``; the key is the fact id."""
        return GroundFact(fact.predicate.value, (fact.subject, fact.object), fact.polarity, fact.id,
                          tuple(evidence), valid or Interval.always())


@dataclass(frozen=True, slots=True)
class Cardinality:
    """A SHACL-derived property constraint: per focus node, ``min_count <= |objects| <= max_count``,
    every object of ``datatype``.  Focus nodes: instances of ``target_class`` (``rdf:type`` atoms)
    or, without one, every subject of the predicate."""

    predicate: str
    min_count: int = 0
    max_count: int | None = None
    datatype: str | None = None
    target_class: str | None = None

    @property
    def name(self) -> str:
        lo, hi = self.min_count, "*" if self.max_count is None else self.max_count
        return f"cardinality {self.predicate} [{lo}..{hi}]" + (f" {self.datatype}" if self.datatype else "")


@dataclass(frozen=True, slots=True)
class Absence:
    """A negated premise: no fact of ``predicate`` matches ``args`` (None = any value) where it was read."""

    predicate: str
    args: tuple[Term | None, ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class ActiveSet:
    """Facts plus the rules, constraints, functional predicates and cardinalities that bind them.

    Rules are read classically (Horn clauses; a negative fact ``not p(a)`` is its own atom that may
    not hold together with ``p(a)``), except ``not`` in a body, which is negation as failure exactly
    as the engine evaluates it: it reads ``closed_world``, the complete extension (input and derived,
    each with where it holds) of every relation read under ``not``, computed by the engine
    (``holokb.checking.with_closed_world``).  ``closed`` lists relation keys (:func:`relation_key`)
    read under the closed-world assumption: a ground goal of such a relation that does not follow is
    refuted.  Aggregates are evaluated by the engine too and reach the solver as closed facts.
    """

    facts: tuple[GroundFact, ...]
    rules: tuple[Rule, ...] = ()
    functional: tuple[str, ...] = ()
    cardinalities: tuple[Cardinality, ...] = ()
    closed: tuple[RelKey, ...] = ()
    closed_world: tuple[GroundFact, ...] | None = None

    @staticmethod
    def from_program(program: Program, facts: Iterable[GroundFact],
                     cardinalities: Iterable[Cardinality] = ()) -> "ActiveSet":
        """Rules, constraints and functional predicates taken from a checked :class:`Program`."""
        functional = tuple(sorted(p for p, d in program.vocabulary.items() if d.functional))
        return ActiveSet(tuple(facts), tuple(program.rules) + tuple(program.constraints), functional,
                         tuple(cardinalities))

    def with_facts(self, facts: Iterable[GroundFact]) -> "ActiveSet":
        """The same active set with more facts (duplicates by key are dropped)."""
        seen = {f.key for f in self.facts if f.key}
        extra = []
        for f in facts:
            if f.key and f.key in seen:
                continue
            seen.add(f.key)
            extra.append(f)
        return replace(self, facts=self.facts + tuple(extra))

    def fact_keys(self) -> frozenset[str]:
        """The keys of the facts (what stagnation is measured on)."""
        return frozenset(f.key or f"#{i}" for i, f in enumerate(self.facts))
