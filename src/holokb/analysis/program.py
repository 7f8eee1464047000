"""The rule program IR: data only, frozen dataclasses with tuple fields.

``holokb.syntax`` parses rule text to an AST; ``holokb.analysis`` checks it and produces one
:class:`Program`; ``holokb.engine`` evaluates only a checked :class:`Program` (made by
:func:`~holokb.analysis.analyze` or :func:`~holokb.analysis.check_program`).  Every node remembers
where it came from (``origin``) so that diagnostics on rewritten rules still point at the user's line.

The expression and atom nodes are the AST's (:mod:`holokb.syntax.ast`, which imports no parser);
the IR adds what analysis decides: :class:`Assignment`, the grouping of an :class:`Aggregate`,
checked :class:`Rule` bodies and the stratification in :class:`Program`.

Predicates are named by their full IRI string (prefixes already expanded).  A unary atom
``ex:Person(?x)`` is normalised by analysis to ``rdf:type(?x, ex:Person)`` (when the program is
compiled for the RDF KB), so asserted ``rdf:type`` triples and unary atoms are one relation.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Union

from ..core.errors import Location
from ..syntax import ast
from ..syntax.ast import (
    FUNCTIONS, AggFunc, ArithOp, Atom, BinOp, Call, CompareOp, Comparison, Const, Expr, Negation, PredicateDecl,
    RuleTerm, Var,
)


@dataclass(frozen=True, slots=True)
class Assignment:
    """Binds a fresh variable: ``?z = ?x + ?y`` (``target`` unbound before this literal)."""

    target: Var
    expr: Expr
    origin: Location | None = None


@dataclass(frozen=True, slots=True)
class Aggregate:
    """``?n = count(?y : ex:member(?g, ?y))``: aggregate ``term`` over ``body`` solutions,
    grouped by the variables of ``body`` that also occur outside the aggregate (``group_by``).

    ``witnesses`` (min and max only): variables of ``body`` used only in the head; they take the
    values of the solutions that reach the extreme (one result per distinct witness tuple)."""

    target: Var
    func: AggFunc
    term: Expr | None
    body: tuple[Atom, ...]
    group_by: tuple[Var, ...]
    origin: Location | None = None
    witnesses: tuple[Var, ...] = ()


BodyItem = Union[Atom, Negation, Comparison, Assignment, Aggregate]


def body_atoms(body: "tuple[BodyItem | ast.BodyItem, ...]"):
    """The atoms a body (IR or AST) reads, in order: positive atoms, negated atoms, aggregate bodies."""
    for b in body:
        if isinstance(b, Atom):
            yield b
        elif isinstance(b, Negation):
            yield b.atom
        elif isinstance(b, (Aggregate, ast.Aggregate)):
            yield from b.body


@dataclass(frozen=True, slots=True)
class Rule:
    """A named rule (``head`` set) or integrity constraint (``head is None``: ``false :- ...``)."""

    name: str
    head: Atom | None
    body: tuple[BodyItem, ...]
    weight: float = 1.0
    depth: int | None = None
    origin: Location | None = None

    @property
    def is_constraint(self) -> bool:
        return self.head is None


@dataclass(frozen=True, slots=True)
class Query:
    """``?- body.``  The answer variables are the named variables of the body, in order."""

    body: tuple[BodyItem, ...]
    variables: tuple[Var, ...]
    origin: Location | None = None


@dataclass(frozen=True, slots=True)
class Program:
    """A checked program: rules, constraints, queries, vocabulary and the stratification.

    ``strata`` lists rule indices (into ``rules``) per stratum, lowest first; a stratum's rules
    may depend negatively (``not``/aggregates) only on predicates of lower strata.
    ``rule_set_hash`` is the SHA-256 of the canonical program text, for cache keys.
    ``facts`` are the ground facts written in the rule files (``negated`` = polarity negate).
    """

    rules: tuple[Rule, ...]
    constraints: tuple[Rule, ...] = ()
    queries: tuple[Query, ...] = ()
    vocabulary: Mapping[str, PredicateDecl] = field(default_factory=dict)
    strata: tuple[tuple[int, ...], ...] = ()
    prefixes: tuple[tuple[str, str], ...] = ()
    rule_set_hash: str = ""
    facts: tuple[Atom, ...] = ()

    #: Set only by :mod:`holokb.analysis` once the program is checked and stratified; not an init
    #: field, so ``dataclasses.replace`` yields an unchecked copy.
    checked: bool = field(default=False, init=False, repr=False, compare=False)

    def idb_predicates(self) -> frozenset[str]:
        """Predicates that appear in some rule head (derived relations)."""
        return frozenset(r.head.predicate for r in self.rules if r.head is not None)


__all__ = [
    "AggFunc", "Aggregate", "ArithOp", "Assignment", "Atom", "BinOp", "BodyItem", "Call", "CompareOp", "Comparison",
    "Const", "FUNCTIONS",
    "Expr", "Negation", "PredicateDecl", "Program", "Query", "Rule", "RuleTerm", "Var", "body_atoms",
]
