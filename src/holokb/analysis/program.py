"""The rule program IR: data only, frozen dataclasses with tuple fields.

``holokb.syntax`` parses rule text to an AST; ``holokb.analysis`` checks it and produces one
:class:`Program`; ``holokb.engine`` evaluates a :class:`Program`.  Every node remembers where
it came from (``origin``) so that diagnostics on rewritten rules still point at the user's line.

Predicates are named by their full IRI string (prefixes already expanded).  A unary atom
``ex:Person(?x)`` is normalised by analysis to ``rdf:type(?x, ex:Person)`` (when the program is
compiled for the RDF KB), so asserted ``rdf:type`` triples and unary atoms are one relation.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal as _Lit, Mapping, Union

from ..core.errors import Location
from ..core.terms import Term

CompareOp = _Lit["=", "!=", "<", "<=", ">", ">="]
ArithOp = _Lit["+", "-", "*", "/"]
AggFunc = _Lit["count", "sum", "min", "max"]


@dataclass(frozen=True, slots=True)
class Var:
    """A variable ``?x``; anonymous ``?_`` occurrences get unique names ``_anon<N>``."""

    name: str

    @property
    def anonymous(self) -> bool:
        return self.name.startswith("_")


@dataclass(frozen=True, slots=True)
class Const:
    """A constant: an IRI or a typed literal (``holokb.core`` terms)."""

    term: Term


@dataclass(frozen=True, slots=True)
class BinOp:
    """Arithmetic on numbers, durations and timestamps: ``?x + ?y``."""

    op: ArithOp
    left: "Expr"
    right: "Expr"


RuleTerm = Union[Var, Const]
Expr = Union[Var, Const, BinOp]


@dataclass(frozen=True, slots=True)
class Atom:
    """``pred(t1, ..., tn)``.  ``negated=True`` is a *negative fact* (polarity ``negate``,
    written ``not`` in a head or asserted fact) — never negation as failure."""

    predicate: str
    args: tuple[RuleTerm, ...]
    negated: bool = False
    origin: Location | None = None

    @property
    def arity(self) -> int:
        return len(self.args)


@dataclass(frozen=True, slots=True)
class Negation:
    """Negation as failure in a body: ``not ex:partOf(?x, ?_)``."""

    atom: Atom
    origin: Location | None = None


@dataclass(frozen=True, slots=True)
class Comparison:
    """``left op right`` over bound values: ``?i > ?d``."""

    op: CompareOp
    left: Expr
    right: Expr
    origin: Location | None = None


@dataclass(frozen=True, slots=True)
class Assignment:
    """Binds a fresh variable: ``?z = ?x + ?y`` (``target`` unbound before this literal)."""

    target: Var
    expr: Expr
    origin: Location | None = None


@dataclass(frozen=True, slots=True)
class Aggregate:
    """``?n = count(?y : ex:member(?g, ?y))``: aggregate ``term`` over ``body`` solutions,
    grouped by the variables of ``body`` that also occur outside the aggregate (``group_by``)."""

    target: Var
    func: AggFunc
    term: Expr | None
    body: tuple[Atom, ...]
    group_by: tuple[Var, ...]
    origin: Location | None = None


BodyItem = Union[Atom, Negation, Comparison, Assignment, Aggregate]


def body_atoms(body: "tuple[BodyItem, ...]"):
    """The atoms a body reads, in order: positive atoms, negated atoms, and aggregate bodies."""
    for b in body:
        if isinstance(b, Atom):
            yield b
        elif isinstance(b, Negation):
            yield b.atom
        elif isinstance(b, Aggregate):
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
class PredicateDecl:
    """A vocabulary entry: ``ex:locatedIn/2 functional`` with optional argument types."""

    predicate: str
    arity: int
    arg_types: tuple[str | None, ...] = ()
    functional: bool = False
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

    def idb_predicates(self) -> frozenset[str]:
        """Predicates that appear in some rule head (derived relations)."""
        return frozenset(r.head.predicate for r in self.rules if r.head is not None)
