"""Range restriction (safety): every variable that is read must be bound by the body.

Bound are the variables of positive atoms, the target and grouping variables of aggregates, and
targets of assignments.  ``?v = expr`` is an *assignment* when ``?v`` is bound nowhere else and
``expr`` only reads bound variables; otherwise it is an equality test.  Body order is kept as
written (the engine plans its own join order).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..syntax import ast
from .program import Aggregate, Assignment, Atom, BinOp, BodyItem, Call, Comparison, Expr, Negation, Var

Report = Callable[..., None]


def expr_vars(e: Expr | None) -> list[Var]:
    """Variables of an expression, left to right (with repeats)."""
    if isinstance(e, Var):
        return [e]
    if isinstance(e, BinOp):
        return expr_vars(e.left) + expr_vars(e.right)
    if isinstance(e, Call):
        return [v for a in e.args for v in expr_vars(a)]
    return []


def atom_vars(a: Atom) -> list[Var]:
    """Variables of an atom's arguments, in order (with repeats)."""
    return [t for t in a.args if isinstance(t, Var)]


def item_vars(b: "BodyItem | ast.BodyItem") -> list[Var]:
    """Every variable a body item (AST or IR) mentions (inside aggregates too), left to right."""
    match b:
        case Atom():
            return atom_vars(b)
        case Negation(atom):
            return atom_vars(atom)
        case Comparison(_, left, right):
            return expr_vars(left) + expr_vars(right)
        case Assignment(target, expr):
            return [target] + expr_vars(expr)
        case Aggregate(target, _, term, body) | ast.Aggregate(target, _, term, body):  # witnesses are in body
            return [target] + expr_vars(term) + [v for a in body for v in atom_vars(a)]
    raise TypeError(b)  # pragma: no cover


def _show(vs) -> str:
    names = sorted({v.name for v in vs})
    return ", ".join("?_" if n.startswith("_") else f"?{n}" for n in names)


@dataclass(frozen=True, slots=True)
class CheckedBody:
    body: tuple[BodyItem, ...]
    bound: frozenset[str]


def check_body(body: tuple[ast.BodyItem, ...], head: Atom | None, what: str, report: Report) -> CheckedBody:
    """Lower an AST body to IR items — assignments resolved, aggregates grouped — and report unsafe
    variables (HK201-HK204, HK214)."""
    bound: set[str] = set()
    for b in body:
        if isinstance(b, Atom):
            bound.update(v.name for v in atom_vars(b))
    head_names = {v.name for v in atom_vars(head)} if head is not None else set()

    items: list = list(body)
    # Aggregates: grouping = variables of the aggregate body also used outside it.  For min and max,
    # a variable of the aggregate body used only in the head is a witness (Soufflé's semantics): it
    # takes its value from the solutions that reach the extreme.
    for i, b in enumerate(items):
        if not isinstance(b, ast.Aggregate):
            continue
        inner = {v.name for a in b.body for v in atom_vars(a) if not v.anonymous}
        in_body: set[str] = set()
        for j, other in enumerate(items):
            if j != i:
                in_body.update(v.name for v in item_vars(other))
        witness_names = (inner & head_names) - in_body if b.func in ("min", "max") else set()
        group = tuple(Var(n) for n in _ordered(b, inner & (head_names | in_body) - witness_names))
        witnesses = tuple(Var(n) for n in _ordered(b, witness_names))
        if b.target.name in bound:
            report("HK204", f"aggregate target ?{b.target.name} is already bound by an atom in {what}", b.origin,
                   hint="aggregate into a fresh variable and compare it: ?n = count(...), ?n = ?m")
        if b.target.name in inner:
            report("HK214", f"aggregate target ?{b.target.name} also occurs inside its own aggregate", b.origin,
                   hint="use a fresh variable for the result")
        missing = [v for v in expr_vars(b.term) if v.name not in inner]
        if missing:
            report("HK214", f"aggregated term uses {_show(missing)} which the aggregate body does not bind",
                   b.origin, hint="the term must be a variable of the atoms after ':'")
        if b.func != "count" and b.term is None:  # pragma: no cover - the parser reports this first
            report("HK214", f"{b.func} needs a term", b.origin)
        items[i] = Aggregate(b.target, b.func, b.term, b.body, group, b.origin, witnesses)
        bound.add(b.target.name)
        bound.update(v.name for v in group + witnesses)

    # Assignments: '?v = expr' (or 'expr = ?v') with ?v free and expr bound; iterate because one may
    # feed the next.
    changed = True
    while changed:
        changed = False
        for i, b in enumerate(items):
            if not (isinstance(b, Comparison) and b.op == "="):
                continue
            for target, expr in ((b.left, b.right), (b.right, b.left)):
                if isinstance(target, Var) and not target.anonymous and target.name not in bound \
                        and all(v.name in bound for v in expr_vars(expr)):
                    items[i] = Assignment(target, expr, b.origin)
                    bound.add(target.name)
                    changed = True
                    break

    for b in items:
        if isinstance(b, Comparison):
            free = [v for v in expr_vars(b.left) + expr_vars(b.right) if v.name not in bound]
            if free:
                hint = ("a compared variable must be bound by a positive atom; to compute a value write "
                        "?v = <expression> with ?v on the left")
                report("HK203", f"variable {_show(free)} in the comparison is not bound in {what}", b.origin, hint=hint)
        elif isinstance(b, Negation):
            free = [v for v in atom_vars(b.atom) if not v.anonymous and v.name not in bound]
            if free:
                report("HK202", f"variable {_show(free)} under 'not' is not bound by a positive atom in {what}",
                       b.origin, hint="bind it in a positive atom, or write ?_ if any value will do")
    if head is not None:
        anon = [v for v in atom_vars(head) if v.anonymous]
        free = [v for v in atom_vars(head) if not v.anonymous and v.name not in bound]
        if free:
            report("HK201", f"head variable {_show(free)} of {what} does not occur in a positive body atom",
                   head.origin, hint="every head variable must be bound by a positive atom, an assignment "
                   "or an aggregate in the body")
        if anon:
            report("HK201", f"anonymous variable ?_ in the head of {what}", head.origin,
                   hint="a head needs named variables bound by the body")
    return CheckedBody(tuple(items), frozenset(bound))


def _ordered(agg: ast.Aggregate, names: set[str]) -> list[str]:
    out: list[str] = []
    for a in agg.body:
        for v in atom_vars(a):
            if v.name in names and v.name not in out:
                out.append(v.name)
    return out
