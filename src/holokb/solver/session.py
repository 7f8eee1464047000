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

from dataclasses import replace
from typing import Callable, Iterable

from ..core.limits import Deadline, Limits
from .active_set import ActiveSet, GroundFact
from .backend import Backend, get_backend
from .encode import Encoding, encode, extend
from .limits import SolverLimit
from .modes import ConsistencyResult, SolverLimits, check_encoded

Prepare = Callable[[ActiveSet], ActiveSet]


class ConsistencySession:
    """Consistency checks that reuse one solver context as facts are added.

    ``prepare`` turns the facts and rules into what the solver reads (e.g.
    ``lambda a: holokb.closed_world.with_closed_world(a).active`` when rules use ``not``); it runs
    again whenever the facts change what it computed (then the context is rebuilt).
    """

    def __init__(self, active: ActiveSet, *, backend: Backend | str = "z3",
                 limits: SolverLimits | Limits | None = None, prepare: Prepare | None = None):
        self._lim = SolverLimits.of(limits)
        self._be = get_backend(backend) if isinstance(backend, str) else backend
        self._prepare = prepare
        self._skip: set[str] = set()
        self._reset(active)

    def _reset(self, active: ActiveSet) -> None:
        self._raw = active
        self._enc: Encoding = encode(self._prepare(active) if self._prepare else active, max_atoms=self._lim.max_atoms)
        self._ctx = self._be.context(timeout_ms=self._lim.timeout_ms)
        self._ctx.load(self._enc.text)
        self.reencodes = getattr(self, "reencodes", -1) + 1

    @property
    def active(self) -> ActiveSet:
        """The facts currently assumed (hypothetical ones excluded), with the rules as given."""
        facts = tuple(f for n, f in zip(self._enc.fact_names, self._raw.facts) if n not in self._skip)
        return replace(self._raw, facts=facts)

    def _add(self, facts: tuple[GroundFact, ...], *, keep: bool) -> tuple[str, ...]:
        n0 = len(self._raw.facts)
        ext = None if len(self._enc.active.facts) != n0 else extend(self._enc, facts, group=keep)
        if ext is None:
            # A closed world, engine-made facts or cardinalities: not additive, so rebuild.
            skipped = set(self._skip)
            self._reset(replace(self._raw, facts=self._raw.facts + facts))
            self._skip = skipped
        else:
            self._enc, delta = ext
            self._raw = replace(self._raw, facts=self._raw.facts + facts)
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
        facts = tuple(facts)
        if self._prepare is not None:
            # What ``prepare`` computes (e.g. what is absent) depends on every fact present: check a
            # fresh set instead of assuming less of this one.
            return ConsistencySession(replace(self.active, facts=self.active.facts + facts), backend=self._be,
                                      limits=self._lim, prepare=self._prepare).check()
        names = self._add(facts, keep=False)
        try:
            return self.check()
        finally:
            self._skip.update(names)


def _with_limit(r: ConsistencyResult, limit: SolverLimit | None) -> ConsistencyResult:
    return replace(r, limit_hit=limit)
