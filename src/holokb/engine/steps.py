"""Decoding proof steps in bulk: per rule, what to read where, worked out once; per relation, its
columns as Python lists read once — then each step is a handful of list lookups.

Storing a closure decodes every derived fact with its proof step (LUBM: ~86k); reading numpy
scalars one by one and re-deriving each rule's layout per fact made that slower than the closure.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis.program import Atom, Const, Negation, Program, Var
from .database import RelKey
from .relation import Relation


@dataclass(frozen=True, slots=True)
class RuleLayout:
    """Where a rule's proof step finds things: its positive atoms' relation keys, per named variable
    the (atom label, argument position) that first binds it or its name in the proof table's values,
    and its negated atoms."""

    atoms: tuple[RelKey, ...]
    slots: tuple[tuple[str, int, int], ...]
    values: tuple[str, ...]
    negations: tuple[Atom, ...]

    @staticmethod
    def of(program: Program, ri: int, value_names: tuple[str, ...]) -> "RuleLayout":
        rule = program.rules[ri]
        atoms = [a for a in rule.body if isinstance(a, Atom)]
        seen: set[str] = set()
        slots = []
        for label, a in enumerate(atoms):
            for pos, t in enumerate(a.args):
                if isinstance(t, Var) and not t.anonymous and t.name not in seen:
                    seen.add(t.name)
                    slots.append((t.name, label, pos))
        values = tuple(n for n in value_names if n not in seen)
        negs = tuple(b.atom for b in rule.body if isinstance(b, Negation))
        return RuleLayout(tuple((a.predicate, a.negated) for a in atoms), tuple(slots), values, negs)


class Columns:
    """Relation columns as Python lists, converted on first use (one pass each)."""

    def __init__(self, relations):
        self.relations = relations
        self._cols: dict[tuple, list] = {}

    def col(self, rk: RelKey, pos: int) -> list:
        key = (rk, pos)
        hit = self._cols.get(key)
        if hit is None:
            rel: Relation = self.relations[rk]
            hit = self._cols[key] = rel.col(pos).tolist()
        return hit

    def meta(self, rk: RelKey, name: str) -> list:
        key = (rk, name)
        hit = self._cols.get(key)
        if hit is None:
            hit = self._cols[key] = self.relations[rk].meta(name).tolist()
        return hit


def negated_args(atom: Atom, vals: dict) -> tuple:
    """A negated atom's arguments under a step's bindings (None where it has ``?_``)."""
    return tuple(t.term if isinstance(t, Const) else vals.get(t.name) for t in atom.args)


__all__ = ["Columns", "RuleLayout", "negated_args"]
