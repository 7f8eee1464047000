"""Canonical names for anonymous variables: ``?_`` occurrences become ``_anon0``, ``_anon1``, ...

Numbered per statement in textual order (head first, then body items left to right), so the
same rule text always yields the same AST and ``render`` → ``parse`` reproduces the names.
"""
from __future__ import annotations

import itertools
from typing import Callable

from .ast import Aggregate, Atom, BinOp, BodyItem, Call, Comparison, Expr, Negation, Query, Rule, Var

ANON_PREFIX = "_anon"


def is_placeholder(v: Var) -> bool:
    """True for an anonymous variable (any name starting with ``_``)."""
    return v.name.startswith("_")


def renumber_rule(rule: Rule) -> Rule:
    """``rule`` with its anonymous variables renamed ``_anon0..`` in textual order."""
    fresh = _counter()
    head = _atom(rule.head, fresh) if rule.head is not None else None
    body = tuple(_item(b, fresh) for b in rule.body)
    return Rule(rule.name, head, body, rule.weight, rule.depth, rule.origin)


def renumber_query(q: Query) -> Query:
    """``q`` with its anonymous variables renamed in textual order."""
    fresh = _counter()
    return Query(tuple(_item(b, fresh) for b in q.body), q.variables, q.origin)


def _counter() -> Callable[[], Var]:
    c = itertools.count()
    return lambda: Var(f"{ANON_PREFIX}{next(c)}")


def _var(v: Var, fresh: Callable[[], Var]) -> Var:
    return fresh() if is_placeholder(v) else v


def _expr(e: Expr, fresh: Callable[[], Var]) -> Expr:
    if isinstance(e, Var):
        return _var(e, fresh)
    if isinstance(e, BinOp):
        left = _expr(e.left, fresh)
        return BinOp(e.op, left, _expr(e.right, fresh))
    if isinstance(e, Call):
        return Call(e.func, tuple(_expr(a, fresh) for a in e.args))
    return e


def _atom(a: Atom, fresh: Callable[[], Var]) -> Atom:
    args = tuple(_var(t, fresh) if isinstance(t, Var) else t for t in a.args)
    return Atom(a.predicate, args, a.negated, a.origin)


def _item(b: BodyItem, fresh: Callable[[], Var]) -> BodyItem:
    match b:
        case Atom():
            return _atom(b, fresh)
        case Negation(atom, origin):
            return Negation(_atom(atom, fresh), origin)
        case Comparison(op, left, right, origin):
            lhs = _expr(left, fresh)
            return Comparison(op, lhs, _expr(right, fresh), origin)
        case Aggregate(target, func, term, body, origin):
            t = _var(target, fresh)
            term2 = _expr(term, fresh) if term is not None else None
            return Aggregate(t, func, term2, tuple(_atom(a, fresh) for a in body), origin)
    raise TypeError(f"not a body item: {b!r}")  # pragma: no cover


__all__ = ["ANON_PREFIX", "is_placeholder", "renumber_query", "renumber_rule"]
