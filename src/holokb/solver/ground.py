"""Relevance grounding of rules over an active set (no ForAll: quantified rules did not finish at
1k facts, ground instances do).

Only instances whose positive body atoms can possibly hold are produced: the possible atoms
start from the facts (and goal seeds) and grow by rule heads to a fixpoint.  An instance left
out has a body atom that nothing can make true, so setting such atoms false satisfies it;
dropping it changes no verdict.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ..analysis.program import (
    Aggregate, Assignment, Atom, BinOp, Comparison, Const, Expr, Negation, Rule, Var,
)
from ..core.errors import SolverError
from ..core.fact import encode_term
from ..core.limits import Deadline
from ..core.terms import Term
from .active_set import ActiveSet
from .values import arith, compare

AtomKey = tuple[str, tuple[bytes, ...]]


class BudgetHit(Exception):
    """Internal: a grounding budget ran out (``limit`` names it)."""

    def __init__(self, limit: str):
        super().__init__(limit)
        self.limit = limit


@dataclass(frozen=True, slots=True)
class Instance:
    """One ground rule instance: atoms that must hold (``pos``), must not hold (``neg``), and
    closed negations (``naf``: patterns resolved to atom groups after the fixpoint)."""

    rule: int
    head: int | None
    head_negated: bool
    pos: tuple[int, ...]
    neg: tuple[int, ...]
    naf: tuple[tuple[str, tuple[Term | None, ...]], ...]


class Grounder:
    """Interns atoms, tracks which can possibly hold, and grounds rules over them."""

    def __init__(self, active: ActiveSet, *, max_atoms: int | None = None, deadline: Deadline | None = None):
        self.active = active
        self.max_atoms = max_atoms
        self.deadline = deadline or Deadline(None)
        self.atom_ids: dict[AtomKey, int] = {}
        self.atoms: list[tuple[str, tuple[Term, ...]]] = []
        # possible[True] = atoms that may hold, possible[False] = atoms that may be false by a negative fact
        self.possible: dict[bool, set[int]] = {True: set(), False: set()}
        self._index: dict[bool, dict[tuple, list[int]]] = {True: {}, False: {}}
        self.instances: list[Instance] = []
        self._seen: set[tuple] = set()
        self.closed = set(active.closed)
        self.open_query = False
        self.fn_groups: dict[tuple, list[int]] = {}
        for r in active.rules:
            for b in r.body:
                if isinstance(b, Negation):
                    self.closed.add(b.atom.predicate)
                if isinstance(b, Aggregate):
                    raise SolverError(f"rule {r.name!r}: aggregates are not encoded for the solver; "
                                      "evaluate them with the engine first")

    def atom(self, predicate: str, args: tuple[Term, ...]) -> int:
        """The id of ``predicate(args)``, interned on first use."""
        key = (predicate, tuple(encode_term(a) for a in args))
        i = self.atom_ids.get(key)
        if i is None:
            if self.max_atoms is not None and len(self.atoms) >= self.max_atoms:
                raise BudgetHit("max_atoms")
            i = self.atom_ids[key] = len(self.atoms)
            self.atoms.append((predicate, tuple(args)))
        return i

    def lookup(self, predicate: str, args: tuple[Term, ...]) -> int | None:
        return self.atom_ids.get((predicate, tuple(encode_term(a) for a in args)))

    def mark(self, i: int, truth: bool) -> bool:
        """Record that atom ``i`` may be ``truth``; True when that is new."""
        if i in self.possible[truth]:
            return False
        self.possible[truth].add(i)
        pred, args = self.atoms[i]
        idx = self._index[truth]
        idx.setdefault((pred,), []).append(i)
        for pos, a in enumerate(args):
            idx.setdefault((pred, pos, encode_term(a)), []).append(i)
        return True

    def run(self, seeds: tuple[tuple[str, tuple[Term, ...]], ...] = ()) -> None:
        """Mark facts and seeds, ground rules to a fixpoint, then ground constraints."""
        for f in self.active.facts:
            self.mark(self.atom(f.predicate, f.args), f.polarity == "affirm")
        for pred, args in seeds:
            self.mark(self.atom(pred, args), True)
        self.close()

    def close(self) -> None:
        """Ground rules to a fixpoint and constraints over the possible atoms (new instances only)."""
        rules = [(i, r) for i, r in enumerate(self.active.rules) if r.head is not None]
        changed = True
        while changed:
            changed = False
            for i, r in rules:
                for inst in self.ground_body(i, r):
                    if inst.head is not None and self.mark(inst.head, not inst.head_negated):
                        changed = True
        for i, r in enumerate(self.active.rules):
            if r.head is None:
                for _ in self.ground_body(i, r):
                    pass

    def ground_body(self, rule_index: int, rule: Rule) -> Iterator[Instance]:
        """New instances of ``rule`` over the possible atoms (each yielded once over all calls)."""
        plan = _plan(rule)
        for binding, pos, neg in self._solve(plan, 0, {}, (), ()):
            naf = []
            for item in plan:
                if isinstance(item, Negation):
                    naf.append((item.atom.predicate, tuple(
                        binding.get(a.name) if isinstance(a, Var) else a.term for a in item.atom.args)))
            head, head_neg = None, False
            if rule.head is not None:
                args = tuple(_value(a, binding) for a in rule.head.args)
                if any(a is None for a in args):
                    raise SolverError(f"rule {rule.name!r}: head variable not bound by the body")
                head, head_neg = self.atom(rule.head.predicate, args), rule.head.negated
            key = (rule_index, head, pos, neg, tuple(naf))
            if key in self._seen:
                continue
            self._seen.add(key)
            inst = Instance(rule_index, head, head_neg, pos, neg, tuple(naf))
            self.instances.append(inst)
            if len(self.instances) % 512 == 0 and self.deadline.expired():
                raise BudgetHit("timeout")
            yield inst

    def _solve(self, plan: list, k: int, binding: dict[str, Term], pos: tuple[int, ...],
               neg: tuple[int, ...]) -> Iterator[tuple[dict[str, Term], tuple[int, ...], tuple[int, ...]]]:
        if k == len(plan):
            yield binding, pos, neg
            return
        item = plan[k]
        if isinstance(item, Atom):
            truth = not item.negated
            if self.open_query and truth and item.predicate not in self.closed:
                args = tuple(_value(a, binding) for a in item.args)
                if all(a is not None for a in args):
                    # Open world: a fully bound query atom may hold even if nothing asserts it.
                    yield from self._solve(plan, k + 1, binding, pos + (self.atom(item.predicate, args),), neg)
                    return
            for i in self._candidates(item, binding, truth):
                b2 = _unify(item, self.atoms[i][1], binding)
                if b2 is not None:
                    if truth:
                        yield from self._solve(plan, k + 1, b2, pos + (i,), neg)
                    else:
                        yield from self._solve(plan, k + 1, b2, pos, neg + (i,))
        elif isinstance(item, Comparison):
            left, right = _value(item.left, binding), _value(item.right, binding)
            if left is not None and right is not None and compare(item.op, left, right):
                yield from self._solve(plan, k + 1, binding, pos, neg)
        elif isinstance(item, Assignment):
            v = _value(item.expr, binding)
            if v is None:
                return
            old = binding.get(item.target.name)
            if old is not None:
                if compare("=", old, v):
                    yield from self._solve(plan, k + 1, binding, pos, neg)
                return
            yield from self._solve(plan, k + 1, {**binding, item.target.name: v}, pos, neg)
        else:  # Negation: resolved after the fixpoint (see Instance.naf)
            yield from self._solve(plan, k + 1, binding, pos, neg)

    def _candidates(self, atom: Atom, binding: dict[str, Term], truth: bool) -> list[int]:
        idx = self._index[truth]
        for pos, a in enumerate(atom.args):
            t = a.term if isinstance(a, Const) else binding.get(a.name)
            if t is not None:
                return list(idx.get((atom.predicate, pos, encode_term(t)), ()))
        return list(idx.get((atom.predicate,), ()))

    def naf_atoms(self, pattern: tuple[str, tuple[Term | None, ...]]) -> tuple[int, ...]:
        """Possible atoms matching a closed-negation pattern (None = any value)."""
        pred, args = pattern
        cands = self._index[True].get((pred,), ())
        keys = [None if a is None else encode_term(a) for a in args]
        out = []
        for i in cands:
            _, aargs = self.atoms[i]
            if len(aargs) == len(keys) and all(k is None or encode_term(t) == k for k, t in zip(keys, aargs)):
                out.append(i)
        return tuple(sorted(out))


def _plan(rule: Rule) -> list:
    """Body order: atoms as written, each filter as soon as its variables are bound, negations last."""
    atoms = [b for b in rule.body if isinstance(b, Atom)]
    filters = [b for b in rule.body if isinstance(b, (Comparison, Assignment))]
    nafs = [b for b in rule.body if isinstance(b, Negation)]
    bound: set[str] = set()
    plan: list = []

    def place_ready() -> None:
        progress = True
        while progress:
            progress = False
            for f in list(filters):
                need = _vars(f.left) | _vars(f.right) if isinstance(f, Comparison) else _vars(f.expr)
                if need <= bound:
                    plan.append(f)
                    filters.remove(f)
                    if isinstance(f, Assignment):
                        bound.add(f.target.name)
                    progress = True

    place_ready()
    for a in atoms:
        plan.append(a)
        bound.update(x.name for x in a.args if isinstance(x, Var))
        place_ready()
    if filters:
        raise SolverError(f"rule {rule.name!r}: a comparison uses a variable no body atom binds")
    for n in nafs:
        free = {x.name for x in n.atom.args if isinstance(x, Var) and not x.anonymous} - bound
        if free:
            raise SolverError(f"rule {rule.name!r}: negated atom uses unbound variable ?{sorted(free)[0]}")
    return plan + nafs


def _vars(e: Expr) -> set[str]:
    if isinstance(e, Var):
        return {e.name}
    if isinstance(e, BinOp):
        return _vars(e.left) | _vars(e.right)
    return set()


def _value(e: Expr, binding: dict[str, Term]) -> Term | None:
    if isinstance(e, Const):
        return e.term
    if isinstance(e, Var):
        return binding.get(e.name)
    left, right = _value(e.left, binding), _value(e.right, binding)
    if left is None or right is None:
        return None
    return arith(e.op, left, right)


def _unify(atom: Atom, args: tuple[Term, ...], binding: dict[str, Term]) -> dict[str, Term] | None:
    if len(args) != len(atom.args):
        return None
    out = binding
    for pat, t in zip(atom.args, args):
        if isinstance(pat, Const):
            if encode_term(pat.term) != encode_term(t):
                return None
            continue
        old = out.get(pat.name)
        if old is None:
            if out is binding:
                out = dict(binding)
            out[pat.name] = t
        elif encode_term(old) != encode_term(t):
            return None
    return out
