"""The active set: the plain data a consistency/entailment check runs over.

Ground facts carry their fact key and evidence references so that an unsat core maps back to
sources; rules and constraints are :class:`holokb.analysis.program.Rule`; functional predicates
and SHACL-derived cardinalities are simple records.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable

from ..analysis.program import Program, Rule
from ..core.fact import Fact, Polarity
from ..core.terms import Term
from ..core.time import Interval


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
class ActiveSet:
    """Facts plus the rules, constraints, functional predicates and cardinalities that bind them.

    ``closed`` predicates are read under the closed-world assumption (true only when asserted or
    derived); predicates under ``not`` in a rule body are always closed.
    """

    facts: tuple[GroundFact, ...]
    rules: tuple[Rule, ...] = ()
    functional: tuple[str, ...] = ()
    cardinalities: tuple[Cardinality, ...] = ()
    closed: tuple[str, ...] = ()

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
