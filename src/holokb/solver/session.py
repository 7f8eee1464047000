"""An incremental consistency session: one live solver context over a growing active set.

Facts are assumption literals, so adding a fact loads only its delta (declarations, its tracker,
new rule instances, functional pairs) and a re-check costs one ``check-sat-assuming``; a
hypothetical fact (``check_with``) is checked once and then simply no longer assumed.

>>> from holokb.core.terms import IRI
>>> p = "http://ex.org/locatedIn"
>>> s = ConsistencySession(ActiveSet((GroundFact(p, (IRI("http://ex.org/a"), IRI("http://ex.org/x")), key="k1"),),
...                                  functional=(p,)))
>>> s.check().status
'consistent'
>>> s.check_with([GroundFact(p, (IRI("http://ex.org/a"), IRI("http://ex.org/y")), key="k2")]).status
'inconsistent'
>>> s.check().status
'consistent'
"""
from __future__ import annotations

from typing import Iterable

from ..core.limits import Deadline, Limits
from .active_set import ActiveSet, GroundFact
from .backend import Backend, get_backend
from .encode import Encoding, encode, extend
from .modes import ConsistencyResult, SolverLimits, check_encoded


class ConsistencySession:
    """Consistency checks that reuse one solver context as facts are added."""

    def __init__(self, active: ActiveSet, *, backend: Backend | str = "z3",
                 limits: SolverLimits | Limits | None = None):
        self._lim = SolverLimits.of(limits)
        self._be = get_backend(backend) if isinstance(backend, str) else backend
        self._skip: set[str] = set()
        self._reset(active)

    def _reset(self, active: ActiveSet) -> None:
        self._enc: Encoding = encode(active, max_atoms=self._lim.max_atoms)
        self._ctx = self._be.context(timeout_ms=self._lim.timeout_ms)
        self._ctx.load(self._enc.text)
        self.reencodes = getattr(self, "reencodes", -1) + 1

    @property
    def active(self) -> ActiveSet:
        """The facts currently assumed (hypothetical ones excluded)."""
        enc = self._enc
        facts = tuple(f for n, f in zip(enc.fact_names, enc.active.facts) if n not in self._skip)
        return ActiveSet(facts, enc.active.rules, enc.active.functional, enc.active.cardinalities, enc.active.closed)

    def _add(self, facts: tuple[GroundFact, ...], *, keep: bool) -> tuple[str, ...]:
        n0 = len(self._enc.fact_names)
        ext = extend(self._enc, facts, group=keep)
        if ext is None:
            # Closed predicates or cardinalities: their axioms are not additive, so rebuild.
            skipped = set(self._skip)
            self._reset(ActiveSet(self._enc.active.facts + facts, self._enc.active.rules,
                                  self._enc.active.functional, self._enc.active.cardinalities,
                                  self._enc.active.closed))
            self._skip = skipped
        else:
            self._enc, delta = ext
            self._ctx.load(delta)
        return tuple(f"f_{n}" for n in range(n0, n0 + len(facts)))

    def add(self, facts: Iterable[GroundFact]) -> None:
        """Add facts for good."""
        self._add(tuple(facts), keep=True)

    def check(self) -> ConsistencyResult:
        """Check the current active set."""
        result, limit = check_encoded(self._ctx, self._enc, self._lim, Deadline(self._lim.timeout_ms / 1000),
                                      frozenset(self._skip))
        return _with_limit(result, limit)

    def check_with(self, facts: Iterable[GroundFact]) -> ConsistencyResult:
        """Check the active set plus ``facts`` without keeping them."""
        names = self._add(tuple(facts), keep=False)
        try:
            return self.check()
        finally:
            self._skip.update(names)


def _with_limit(r: ConsistencyResult, limit: str | None) -> ConsistencyResult:
    return ConsistencyResult(r.status, r.facts, r.constraints, r.at, r.reason, limit, r.rounds)
