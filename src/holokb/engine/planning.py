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


def plan_body(body, first: int | None = None, sizes: tuple[int, ...] | None = None) -> list[Step]:
    """Order a body for evaluation, starting with positive atom ``first`` when given.

    The next atom is the one with the most bound positions; with ``sizes`` (bit lengths of the row
    counts per positive atom, by label) an empty one comes first whatever its bound positions, and
    among equally bound ones a relation 16x smaller or more; then written order.  Sizes only
    break ties: an estimate that trades a bound position for a smaller relation
    (``log2(rows) * unbound / arity``) picked cartesian products with small relations over keyed
    lookups into the triple table and passed the intermediate-row cap on LUBM's OWL 2 RL rules.

    ``x = e`` with ``x`` unbound, ``e``'s variables bound and ``x`` in an atom still to join
    becomes a ``key`` step before that atom: it binds ``x`` to ``e``'s value so the atom is probed
    by it instead of joined in full and filtered (the comparison itself still runs after the atom;
    :meth:`~.body.BodySolver.solve` binds only where value equality is id equality).
    """
    atoms = positive_atoms(body)
    labels = {id(a): i for i, a in enumerate(atoms)}
    if len(labels) != len(atoms):  # the same atom object twice: copy so labels stay distinct
        atoms = [Atom(x.predicate, x.args, x.negated, x.origin) for x in atoms]
        labels = {id(a): i for i, a in enumerate(atoms)}
    pending = [b for b in body if not isinstance(b, Atom)]
    remaining = list(atoms)
    bound: set[str] = set()
    keyed: set[str] = set()  # bound by a key step, for choosing atoms only (it may not bind)
    steps: list[Step] = []

    def flush() -> None:
        progress = True
        while progress:
            progress = False
            for item in pending:
                key = _key_of(item, bound | keyed, remaining)
                if key is not None:
                    steps.append(Step("key", key))
                    keyed.add(key.target.name)
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
        def n_bound(a: Atom) -> int:
            return sum(1 for t in a.args if not isinstance(t, Var) or t.name in bound or t.name in keyed)

        if sizes is None:
            a = max(remaining, key=lambda x: (n_bound(x), -labels[id(x)]))
        else:
            # An empty relation ends the body at once; otherwise sizes break ties between atoms with
            # as many bound positions, and only when they differ by 16x or more (4 bits): a row
            # range a little smaller than another (the older rows of the same relation) says nothing.
            a = min(remaining, key=lambda x: (sizes[labels[id(x)]] > 0, -n_bound(x),
                                              sizes[labels[id(x)]] // 4, labels[id(x)]))
        remaining = [x for x in remaining if x is not a]
        steps.append(Step("atom", a, labels[id(a)]))
        bound.update(_binds(a))
        flush()
    for item in pending:  # unsafe leftovers: analysis rejects these; run them last, best effort
        steps.append(Step({Negation: "neg", Comparison: "cmp", Assignment: "assign", Aggregate: "agg"}[type(item)], item))
    return steps


def _key_of(item, bound: set[str], remaining: list[Atom]) -> Assignment | None:
    """``x = e`` (either side) as the assignment ``x := e`` when it can key an atom still to join:
    ``x`` unbound, in such an atom, and every variable of ``e`` bound."""
    if not isinstance(item, Comparison) or item.op != "=":
        return None
    for var, expr in ((item.left, item.right), (item.right, item.left)):
        if (isinstance(var, Var) and not var.anonymous and var.name not in bound
                and var.name not in expr_vars(expr) and expr_vars(expr) <= bound
                and any(isinstance(t, Var) and t.name == var.name for a in remaining for t in a.args)):
            return Assignment(var, expr)
    return None


def _reads(step: Step) -> set[str]:
    """Every variable a step reads or binds (join keys, filters, produced columns)."""
    item = step.item
    if step.kind == "atom":
        return {t.name for t in item.args if isinstance(t, Var)}
    if step.kind == "neg":
        return {t.name for t in item.atom.args if isinstance(t, Var)}
    if step.kind == "cmp":
        return expr_vars(item.left) | expr_vars(item.right)
    if step.kind in ("assign", "key"):
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
