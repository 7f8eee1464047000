"""Logical layer, part 1: the join order of a rule body (strata come from :mod:`holokb.analysis`).

A body is planned as a sequence of steps: positive atoms are joined one at a time (a chosen
atom first — the delta atom in semi-naive variants — then, greedily, the atom with the most
bound positions, ties by written order); every filter (negation, comparison, assignment,
aggregate) runs as soon as the variables it reads are bound.  Atom ``label`` is the atom's
position among the body's positive atoms, which is how proofs name premises.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis.program import Aggregate, Assignment, Atom, Comparison, Negation, Var
from .joins import expr_vars


@dataclass(frozen=True, slots=True)
class Step:
    """One plan step: ``kind`` is atom, neg, cmp, assign or agg; ``label`` numbers atoms."""

    kind: str
    item: object
    label: int = -1


def positive_atoms(body) -> list[Atom]:
    """The positive atoms of a body, in written order (their index is the premise label)."""
    return [b for b in body if isinstance(b, Atom)]


def _needs(item) -> set[str]:
    if isinstance(item, Negation):
        return {t.name for t in item.atom.args if isinstance(t, Var) and not t.anonymous}
    if isinstance(item, Comparison):
        return expr_vars(item.left) | expr_vars(item.right)
    if isinstance(item, Assignment):
        return expr_vars(item.expr)
    if isinstance(item, Aggregate):
        return set()
    raise TypeError(item)


def _binds(item) -> set[str]:
    if isinstance(item, Atom):
        return {t.name for t in item.args if isinstance(t, Var)}
    if isinstance(item, Assignment):
        return {item.target.name}
    if isinstance(item, Aggregate):
        return {item.target.name} | {v.name for v in item.group_by + item.witnesses}
    return set()


def plan_body(body, first: int | None = None) -> list[Step]:
    """Order a body for evaluation, starting with positive atom ``first`` when given."""
    atoms = positive_atoms(body)
    labels = {id(a): i for i, a in enumerate(atoms)}
    if len(labels) != len(atoms):  # the same atom object twice: copy so labels stay distinct
        atoms = [Atom(x.predicate, x.args, x.negated, x.origin) for x in atoms]
        labels = {id(a): i for i, a in enumerate(atoms)}
    pending = [b for b in body if not isinstance(b, Atom)]
    remaining = list(atoms)
    bound: set[str] = set()
    steps: list[Step] = []

    def flush() -> None:
        progress = True
        while progress:
            progress = False
            for item in list(pending):
                if _needs(item) <= bound:
                    kind = {Negation: "neg", Comparison: "cmp", Assignment: "assign", Aggregate: "agg"}[type(item)]
                    steps.append(Step(kind, item))
                    bound.update(_binds(item))
                    pending.remove(item)
                    progress = True

    flush()
    if first is not None:
        a = atoms[first]
        remaining = [x for x in remaining if x is not a]
        steps.append(Step("atom", a, first))
        bound.update(_binds(a))
        flush()
    while remaining:
        def score(a: Atom) -> int:
            return sum(1 for t in a.args if not isinstance(t, Var) or t.name in bound)
        a = max(remaining, key=lambda x: (score(x), -labels[id(x)]))
        remaining = [x for x in remaining if x is not a]
        steps.append(Step("atom", a, labels[id(a)]))
        bound.update(_binds(a))
        flush()
    for item in pending:  # unsafe leftovers: analysis rejects these; run them last, best effort
        steps.append(Step({Negation: "neg", Comparison: "cmp", Assignment: "assign", Aggregate: "agg"}[type(item)], item))
    return steps


def _reads(step: Step) -> set[str]:
    """Every variable a step reads or binds (join keys, filters, produced columns)."""
    item = step.item
    if step.kind == "atom":
        return {t.name for t in item.args if isinstance(t, Var)}
    if step.kind == "neg":
        return {t.name for t in item.atom.args if isinstance(t, Var)}
    if step.kind == "cmp":
        return expr_vars(item.left) | expr_vars(item.right)
    if step.kind == "assign":
        return expr_vars(item.expr) | {item.target.name}
    return {v.name for v in item.group_by + item.witnesses} | {item.target.name}


def live_after(steps: list[Step], keep: frozenset[str]) -> list[frozenset[str]]:
    """Per step, the variables still needed once it has run: read by a later step or in ``keep``.

    Every other column is dead after that step and may be projected out of the bindings.
    """
    out: list[frozenset[str]] = []
    live = set(keep)
    for step in reversed(steps):
        out.append(frozenset(live))
        live |= _reads(step)
    out.reverse()
    return out
