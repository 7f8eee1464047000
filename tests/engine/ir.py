"""A tiny IR builder for engine tests: ``r("p(?x,?z) :- e(?x,?y), p(?y,?z)")``-like helpers in Python."""
from __future__ import annotations

from holokb.analysis.program import (
    Aggregate, Assignment, Atom, BinOp, Comparison, Const, Negation, Program, Query, Rule, Var,
)
from holokb.core import IRI, Literal

EX = "http://ex.org/"


def iri(name: str) -> IRI:
    return IRI(EX + name)


def t(x):
    """'?x' → Var, int/float/str literal values → Const(Literal), 'name' → Const(IRI)."""
    if isinstance(x, (Var, Const, BinOp)):
        return x
    if isinstance(x, str) and x.startswith("?"):
        return Var(x[1:])
    if isinstance(x, str):
        return Const(iri(x))
    if isinstance(x, Literal):
        return Const(x)
    return Const(Literal.of(x))


def a(pred: str, *args, negated: bool = False) -> Atom:
    return Atom(EX + pred, tuple(t(x) for x in args), negated)


def neg(pred: str, *args) -> Negation:
    return Negation(a(pred, *args))


def cmp(op: str, left, right) -> Comparison:
    return Comparison(op, t(left), t(right))


def assign(target: str, expr) -> Assignment:
    return Assignment(Var(target[1:]), expr)


def op(o: str, left, right) -> BinOp:
    return BinOp(o, t(left), t(right))


def agg(target: str, func: str, term, body, group_by) -> Aggregate:
    return Aggregate(Var(target[1:]), func, None if term is None else t(term), tuple(body),
                     tuple(Var(g[1:]) for g in group_by))


def rule(name: str, head: Atom | None, *body, weight: float = 1.0, depth: int | None = None) -> Rule:
    return Rule(name, head, tuple(body), weight, depth)


def program(*rules: Rule, constraints=(), queries=()) -> Program:
    return Program(tuple(rules), tuple(constraints), tuple(queries))


def query(*body) -> Query:
    names = []
    for b in body:
        if isinstance(b, Atom):
            for x in b.args:
                if isinstance(x, Var) and not x.anonymous and x not in names:
                    names.append(x)
    return Query(tuple(body), tuple(names))


def tc_program() -> Program:
    return program(
        rule("base", a("path", "?x", "?y"), a("edge", "?x", "?y")),
        rule("step", a("path", "?x", "?z"), a("path", "?x", "?y"), a("edge", "?y", "?z")),
    )


def names(rows) -> set:
    """Rows of IRIs/literals → tuples of local names / python values."""
    out = set()
    for r in rows:
        out.add(tuple(x.value[len(EX):] if isinstance(x, IRI) else x.value for x in r))
    return out
