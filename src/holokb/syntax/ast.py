"""The rule language as written (AST): data-only frozen dataclasses with tuple fields.

The parser builds these; :func:`holokb.analysis.analyze` checks them and lowers them to the IR
(:mod:`holokb.analysis.program`).  The expression and atom nodes (``Var``, ``Const``, ``BinOp``,
``Atom``, ``Negation``, ``Comparison``, ``PredicateDecl``) are shared by both stages; what differs
is what analysis decides: which ``?v = expr`` is an assignment, what an aggregate groups by, and
unary atoms rewritten to ``rdf:type``.  Every node remembers where it came from (``origin``).

This module imports nothing but ``holokb.core``, so the IR (and the engine) can use its nodes
without loading the parser or lark.

Predicates are named by their full IRI string (prefixes already expanded).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal as _Lit, Union

from ..core.errors import Location
from ..core.terms import Term

CompareOp = _Lit["=", "!=", "<", "<=", ">", ">="]
ArithOp = _Lit["+", "-", "*", "/", "%"]
AggFunc = _Lit["count", "sum", "mean", "min", "max"]


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


@dataclass(frozen=True, slots=True)
class Call:
    """A built-in function applied to expressions: ``strlen(?s)``, ``div(?x, 2)`` (:data:`FUNCTIONS`)."""

    func: str
    args: tuple["Expr", ...]


RuleTerm = Union[Var, Const]
Expr = Union[Var, Const, BinOp, Call]

#: Built-in functions: name → (least, most) number of arguments (None: any number), and what they do.
#: Integer ``div``/``mod`` (and ``%``) truncate toward zero as C and Soufflé do; ``/`` stays exact.
FUNCTIONS: dict[str, tuple[int, int | None, str]] = {
    "div": (2, 2, "integer division truncating toward zero: div(-7, 2) = -3"),
    "mod": (2, 2, "remainder with the dividend's sign (the same as %): mod(-7, 2) = -1"),
    "concat": (1, None, "strings joined: concat(\"a\", ?s, \"b\")"),
    "strlen": (1, 1, "the number of characters of a string"),
    "substr": (3, 3, "substr(?s, start, length), 0-based; past the end gives \"\""),
    "contains": (2, 2, "contains(part, ?s): true when part occurs in ?s"),
    "match": (2, 2, "match(regex, ?s): true when the whole of ?s matches the regular expression"),
    "to_number": (1, 1, "the integer or decimal a string spells"),
    "to_string": (1, 1, "a value's lexical form as a string"),
    "min": (2, None, "the least of its arguments (numbers, times, durations or strings, of one kind)"),
    "max": (2, None, "the greatest of its arguments"),
    "abs": (1, 1, "the absolute value of a number"),
    "pow": (2, 2, "pow(?x, ?n): ?x to the power ?n; exact for an integer power of an integer or decimal "
                  "(?n >= 0), a double otherwise (Soufflé's ^)"),
    "to_float": (1, 1, "a number as a double: to_float(7) = 7.0"),
    "to_integer": (1, 1, "a number truncated toward zero to an integer: to_integer(-2.7) = -2"),
    "band": (2, 2, "bitwise and of two integers (two's complement, as Soufflé's band)"),
    "bor": (2, 2, "bitwise or of two integers"),
    "bxor": (2, 2, "bitwise exclusive or of two integers"),
    "bnot": (1, 1, "bitwise complement of an integer: bnot(5) = -6"),
    "bshl": (2, 2, "bshl(?x, ?n): ?x shifted left by ?n bits (0 <= ?n <= 4096)"),
    "bshr": (2, 2, "bshr(?x, ?n): ?x shifted right by ?n bits, keeping its sign (?n >= 0)"),
    "land": (2, 2, "logical and of two integers (non-zero is true): 1 or 0, as Soufflé's land"),
    "lor": (2, 2, "logical or of two integers: 1 or 0"),
    "lxor": (2, 2, "logical exclusive or of two integers: 1 or 0"),
    "lnot": (1, 1, "logical not of an integer: 1 for 0, else 0"),
    "record": (0, None, "a record value: record(?x, \"a\", 3) holds its fields in order (a literal of datatype "
                        "<https://w3id.org/holokb/record>; equal fields, equal records)"),
    "field": (2, 2, "field(?r, ?i): the field of record ?r at position ?i (0-based)"),
}


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
    """``left op right``: ``?i > ?d``.  Analysis turns ``?v = expr`` with ``?v`` free into an assignment."""

    op: CompareOp
    left: Expr
    right: Expr
    origin: Location | None = None


@dataclass(frozen=True, slots=True)
class Aggregate:
    """``?n = count(?y : ex:member(?g, ?y))`` as written; analysis works out what it groups by."""

    target: Var
    func: AggFunc
    term: Expr | None
    body: tuple[Atom, ...]
    origin: Location | None = None


BodyItem = Union[Atom, Negation, Comparison, Aggregate]


@dataclass(frozen=True, slots=True)
class Rule:
    """A named rule (``head`` set) or integrity constraint (``head is None``: ``false :- ...``)."""

    name: str
    head: Atom | None
    body: tuple[BodyItem, ...]
    weight: float = 1.0
    depth: int | None = None
    origin: Location | None = None


@dataclass(frozen=True, slots=True)
class Query:
    """``?- body.``  ``variables``: the named variables outside aggregates, in textual order."""

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


__all__ = [
    "AggFunc", "Aggregate", "ArithOp", "Atom", "BinOp", "BodyItem", "Call", "CompareOp", "Comparison", "Const", "Expr",
    "FUNCTIONS",
    "Negation", "PredicateDecl", "Query", "Rule", "RuleTerm", "Var",
]
