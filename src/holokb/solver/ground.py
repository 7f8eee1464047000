"""Relevance grounding of rules over an active set (no ForAll: quantified rules did not finish at
1k facts, ground instances do).

Only instances whose positive body atoms can possibly hold are produced: the possible atoms
start from the facts (and goal seeds) and grow by rule heads to a fixpoint.  An instance left
out has a body atom that nothing can make true, so setting such atoms false satisfies it;
dropping it changes no verdict.

A ground atom is keyed by (predicate, negated, args): the negative fact ``not p(a)`` is an atom of
its own (the engine's separate relation), so rules read classically stay Horn and agree with the
engine's least model.  ``not`` in a body (negation as failure) is not an atom: each distinct ground
pattern it reads becomes a :class:`NafPattern`, decided per instant from ``ActiveSet.closed_world``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ..analysis.program import (
    Aggregate, Assignment, Atom, BinOp, Call, Comparison, Const, Expr, Negation, Rule, Var,
)
from ..core.errors import SolverError
from ..core.fact import encode_term
from ..core.limits import Deadline
from ..core.terms import Term
from .active_set import Absence, ActiveSet, GroundFact, relation_key
from ..core.functions import apply_call
from .limits import SolverLimit
from .values import arith, compare

AtomKey = tuple[str, bool, tuple[bytes, ...]]


class BudgetHit(Exception):
    """Internal: a grounding budget ran out (``limit`` names it)."""

    def __init__(self, limit: SolverLimit):
        super().__init__(limit.value)
        self.limit = limit


@dataclass(frozen=True, slots=True)
class Instance:
    """One ground rule instance: atoms that must hold (``pos``) and the negation-as-failure
    patterns (``naf``: indexes into ``Grounder.naf_patterns``) that must be absent."""

    rule: int
    head: int | None
    pos: tuple[int, ...]
    naf: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class NafPattern:
    """A ground ``not p(args)`` (None = a variable no body atom binds, i.e. any value)."""

    predicate: str
    negated: bool
    args: tuple[Term | None, ...]

    def matches(self, fact: GroundFact) -> bool:
        if fact.predicate != self.predicate or (fact.polarity == "negate") != self.negated:
            return False
        if len(fact.args) != len(self.args):
            return False
        return all(a is None or encode_term(a) == encode_term(b) for a, b in zip(self.args, fact.args))

    def absence(self) -> Absence:
        return Absence(self.predicate, self.args, self.negated)


class ClosedWorld:
    """The complete extension of the relations read under ``not``, indexed for pattern lookups."""

    def __init__(self, facts: tuple[GroundFact, ...]):
        self._by_key: dict[tuple, list[GroundFact]] = {}
        for f in facts:
            neg = f.polarity == "negate"
            self._by_key.setdefault((f.predicate, neg), []).append(f)
            for pos, a in enumerate(f.args):
                self._by_key.setdefault((f.predicate, neg, pos, encode_term(a)), []).append(f)

    def absent(self, pattern: NafPattern, t: int | None) -> bool:
        """No closed fact matches ``pattern`` at instant ``t`` (at any instant when None)."""
        key: tuple = (pattern.predicate, pattern.negated)
        for pos, a in enumerate(pattern.args):
            if a is not None:
                key = (pattern.predicate, pattern.negated, pos, encode_term(a))
                break
        for f in self._by_key.get(key, ()):
            if pattern.matches(f) and (t is None or f.valid.contains(t)):
                return False
        return True


class Grounder:
    """Interns atoms, tracks which can possibly hold, and grounds rules over them."""

    def __init__(self, active: ActiveSet, *, max_atoms: int | None = None, deadline: Deadline | None = None):
        self.active = active
        self.max_atoms = max_atoms
        self.deadline = deadline or Deadline(None)
        self.atom_ids: dict[AtomKey, int] = {}
        self.atoms: list[tuple[str, tuple[Term, ...], bool]] = []
        self.possible: set[int] = set()
        self._index: dict[tuple, list[int]] = {}
        self.instances: list[Instance] = []
        self._seen: set[tuple] = set()
        self.closed = set(active.closed)
        self.open_query = False
        self.fn_groups: dict[tuple, list[int]] = {}
        self.naf_patterns: list[NafPattern] = []
        self._naf_ids: dict[NafPattern, int] = {}
        needs_closed = False
        for r in active.rules:
            for b in r.body:
                if isinstance(b, Negation):
                    needs_closed = True
                if isinstance(b, Aggregate):
                    raise SolverError(f"rule {r.name!r}: aggregates reach the solver as closed facts; "
                                      "build the active set with holokb.checking.with_closed_world")
        if needs_closed and active.closed_world is None:
            raise SolverError("`not` in a rule needs the closed world it reads (ActiveSet.closed_world); "
                              "build the active set with holokb.checking.with_closed_world")
        self.closed_world = ClosedWorld(active.closed_world or ())

    def atom(self, predicate: str, args: tuple[Term, ...], negated: bool = False) -> int:
        """The id of ``predicate(args)`` (or of the negative fact when ``negated``), interned on first use."""
        key = (predicate, negated, tuple(encode_term(a) for a in args))
        i = self.atom_ids.get(key)
        if i is None:
            if self.max_atoms is not None and len(self.atoms) >= self.max_atoms:
                raise BudgetHit(SolverLimit.MAX_ATOMS)
            i = self.atom_ids[key] = len(self.atoms)
            self.atoms.append((predicate, tuple(args), negated))
        return i

    def lookup(self, predicate: str, args: tuple[Term, ...], negated: bool = False) -> int | None:
        return self.atom_ids.get((predicate, negated, tuple(encode_term(a) for a in args)))

    def twin(self, i: int) -> int | None:
        """The atom of opposite polarity (``p(a)`` for ``not p(a)`` and back), if interned."""
        pred, args, neg = self.atoms[i]
        return self.lookup(pred, args, not neg)

    def mark(self, i: int) -> bool:
        """Record that atom ``i`` may hold; True when that is new."""
        if i in self.possible:
            return False
        self.possible.add(i)
        pred, args, neg = self.atoms[i]
        idx = self._index
        idx.setdefault((pred, neg), []).append(i)
        for pos, a in enumerate(args):
            idx.setdefault((pred, neg, pos, encode_term(a)), []).append(i)
        return True

    def naf_id(self, pattern: NafPattern) -> int:
        j = self._naf_ids.get(pattern)
        if j is None:
            j = self._naf_ids[pattern] = len(self.naf_patterns)
            self.naf_patterns.append(pattern)
        return j

    def absent(self, t: int | None) -> tuple[int, ...]:
        """The negation-as-failure patterns that hold (nothing matches) at ``t``."""
        cw = self.closed_world
        return tuple(j for j, p in enumerate(self.naf_patterns) if cw.absent(p, t))

    def run(self, seeds: tuple[tuple[str, tuple[Term, ...], bool], ...] = ()) -> None:
        """Mark facts and seeds, ground rules to a fixpoint, then ground constraints."""
        for f in self.active.facts:
            self.mark(self.atom(f.predicate, f.args, f.polarity == "negate"))
        for pred, args, neg in seeds:
            self.mark(self.atom(pred, args, neg))
        self.close()

    def close(self) -> None:
        """Ground rules to a fixpoint and constraints over the possible atoms (new instances only)."""
        rules = [(i, r) for i, r in enumerate(self.active.rules) if r.head is not None]
        changed = True
        while changed:
            changed = False
            for i, r in rules:
                for inst in self.ground_body(i, r):
                    if inst.head is not None and self.mark(inst.head):
                        changed = True
        for i, r in enumerate(self.active.rules):
            if r.head is None:
                for _ in self.ground_body(i, r):
                    pass

    def naf_of(self, plan: list, binding: dict[str, Term]) -> tuple[int, ...]:
        """The pattern ids of the plan's negations under ``binding``."""
        return tuple(self.naf_id(NafPattern(item.atom.predicate, item.atom.negated, tuple(
            binding.get(a.name) if isinstance(a, Var) else a.term for a in item.atom.args)))
            for item in plan if isinstance(item, Negation))

    def ground_body(self, rule_index: int, rule: Rule) -> Iterator[Instance]:
        """New instances of ``rule`` over the possible atoms (each yielded once over all calls)."""
        plan = _plan(rule)
        for binding, pos in self._solve(plan, 0, {}, ()):
            naf = self.naf_of(plan, binding)
            head = None
            if rule.head is not None:
                args = tuple(_value(a, binding) for a in rule.head.args)
                if any(a is None for a in args):
                    raise SolverError(f"rule {rule.name!r}: head variable not bound by the body")
                head = self.atom(rule.head.predicate, args, rule.head.negated)
            key = (rule_index, head, pos, naf)
            if key in self._seen:
                continue
            self._seen.add(key)
            inst = Instance(rule_index, head, pos, naf)
            self.instances.append(inst)
            if len(self.instances) % 512 == 0 and self.deadline.expired():
                raise BudgetHit(SolverLimit.TIMEOUT)
            yield inst

    def _solve(self, plan: list, k: int, binding: dict[str, Term],
               pos: tuple[int, ...]) -> Iterator[tuple[dict[str, Term], tuple[int, ...]]]:
        if k == len(plan):
            yield binding, pos
            return
        item = plan[k]
        if isinstance(item, Atom):
            if self.open_query:
                args = tuple(_value(a, binding) for a in item.args)
                if all(a is not None for a in args) and \
                        relation_key(item.predicate, args, item.negated) not in self.closed:
                    # Open world: a fully bound query atom may hold even if nothing asserts it.
                    yield from self._solve(plan, k + 1, binding, pos + (self.atom(item.predicate, args, item.negated),))
                    return
            for i in self._candidates(item, binding):
                b2 = _unify(item, self.atoms[i][1], binding)
                if b2 is not None:
                    yield from self._solve(plan, k + 1, b2, pos + (i,))
        elif isinstance(item, Comparison):
            left, right = _value(item.left, binding), _value(item.right, binding)
            if left is not None and right is not None and compare(item.op, left, right):
                yield from self._solve(plan, k + 1, binding, pos)
        elif isinstance(item, Assignment):
            v = _value(item.expr, binding)
            if v is None:
                return
            old = binding.get(item.target.name)
            if old is not None:
                if compare("=", old, v):
                    yield from self._solve(plan, k + 1, binding, pos)
                return
            yield from self._solve(plan, k + 1, {**binding, item.target.name: v}, pos)
        else:  # Negation: a pattern decided per instant (see Instance.naf)
            yield from self._solve(plan, k + 1, binding, pos)

    def _candidates(self, atom: Atom, binding: dict[str, Term]) -> list[int]:
        idx = self._index
        for pos, a in enumerate(atom.args):
            t = a.term if isinstance(a, Const) else binding.get(a.name)
            if t is not None:
                return list(idx.get((atom.predicate, atom.negated, pos, encode_term(t)), ()))
        return list(idx.get((atom.predicate, atom.negated), ()))


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
    if isinstance(e, Call):
        return set().union(*(_vars(a) for a in e.args)) if e.args else set()
    return set()


def _value(e: Expr, binding: dict[str, Term]) -> Term | None:
    if isinstance(e, Const):
        return e.term
    if isinstance(e, Var):
        return binding.get(e.name)
    if isinstance(e, Call):
        args = tuple(_value(a, binding) for a in e.args)
        return None if any(a is None for a in args) else apply_call(e.func, args)  # type: ignore[arg-type]
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
