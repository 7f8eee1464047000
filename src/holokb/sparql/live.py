"""Snapshot stores kept current by each write's delta, instead of rebuilt after every write.

A :class:`LiveCache` is a drop-in for :meth:`SnapshotCache.get` (the ledger view is delegated to
a memory-only :class:`SnapshotCache`).  For each (AsOf, rule program, closure limits) it keeps one
pyoxigraph store plus the two sets it is the union of — the plain quads visible at the AsOf and
the derived triples of the closure there — and the ledger change marker they reflect.

On every ``get`` it reads the marker once (one indexed SQLite row).  When the ledger moved on it
reads, in one read transaction, what the writes since touched (``Ledger.changes_since``):

* a plain quad whose fact had a span opened or closed is set to what the ledger says *now*
  (visible or not), so replaying a change is harmless;
* the closure is computed again only when it can have changed (:func:`closure_affected`): the
  writes touched a predicate the rules read, or wrote something that is not a span (evidence
  changes scores), at a system time the AsOf can see.  Otherwise the derived set stays.

The store then gets the difference (quads added, quads removed) — a quad leaves the store only
when it is neither plain-visible nor derived.  Nothing else touches the store while that happens
(a worker is one thread), so no query sees part of a batch.  tests/sparql/test_live.py holds the
maintained store equal to a fresh build over random batches of asserts and retracts.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

from ..analysis import Program
from ..core.limits import LimitHit, Limits
from ..core.terms import RDF_TYPE, Term
from ..core.time import AsOf
from .cache import Snapshot, SnapshotCache, _ox
from .nquads import NQuadsWriter
from .snapshot import TRIPLE, SnapshotKey, ViewKind, _derived_triples, program_hash

Quad = tuple[Term, Term, Term, Term | None]


def closure_affected(changes: Any, program: Program | None, as_of: AsOf) -> bool:
    """Whether the closure of ``program`` at ``as_of`` can differ after ``changes``
    (a :class:`~holokb.ledger.QuadChanges`).  Sound, not exact: True whenever unsure.

    The engine's input at ``as_of`` is the spans recorded at ``as_of.system`` of the predicates the
    program mentions (every predicate when a rule reads ``hk:triple``; ``rdf:type`` is counted as
    read, for class atoms), with their evidence's confidences.
    """
    from ..reasoning import mentioned_predicates

    if program is None or not program.rules:
        return False  # facts in rule files are input too, but they do not change with the ledger
    if not changes.complete:
        return True  # a write that is not a span (evidence on an existing span changes scores)
    if changes.system_min is None or as_of.system < changes.system_min:
        return False  # nothing recorded that this AsOf can see
    wanted = mentioned_predicates(program)
    if TRIPLE in wanted:
        return bool(changes.predicates)
    return not changes.predicates.isdisjoint(wanted | {RDF_TYPE})


@dataclass(eq=False)
class _Live:
    """One maintained store and what it is made of."""

    as_of: AsOf
    rules: str
    limits: str
    marker: int
    store: Any
    plain: set[Quad]
    derived: set[Quad]
    model: Any  # the closure the derived set came from (identity tells a reused one)
    truncated: bool = False
    limit_hit: LimitHit | None = None
    writer: NQuadsWriter = field(default_factory=lambda: NQuadsWriter(deskolemise=True))
    system_high: int | None = None
    count: int = 0  # quads in the store

    def snapshot(self, built: bool) -> Snapshot:
        key = SnapshotKey("snapshot", self.as_of, (self.marker,), self.rules, self.limits)
        return Snapshot(key, self.store, self.count, built, self.truncated, self.limit_hit,
                        system_high=self.system_high)

    def ox_quads(self, quads: list[Quad]) -> list[Any]:
        ox = _ox()
        if not quads:
            return []
        # The same encoding a fresh build uses, so blank-node labels agree with it.
        return list(ox.parse(self.writer.encode(quads), format=ox.RdfFormat.N_QUADS, rename_blank_nodes=False,
                             lenient=True))


class LiveCache:
    """Snapshot stores kept current by deltas; see the module doc.  ``size`` AsOfs are kept (LRU)."""

    def __init__(self, size: int = 4):
        self.size = size
        self._lru: OrderedDict[tuple, _Live] = OrderedDict()
        self._views = SnapshotCache(size=2, disk=False)
        #: how the last ``get`` was served ("hit", "delta", "rebuild"; tests) and what it returned
        self.last: str = ""
        self.current: Snapshot | None = None

    def clear(self) -> None:
        self._lru.clear()
        self._views.clear()

    def get(self, ledger: Any, kind: ViewKind, as_of: AsOf, program: Program | None = None,
            limits: Limits | None = None, derive: Any = None) -> Snapshot:
        """The current store for (kind, AsOf, rules): as it was, brought up to date, or built now."""
        if kind == "ledger":
            self.current = self._views.get(ledger, kind, as_of, None, limits, derive)
            return self.current
        rules = program_hash(program) if derive is not None else ""
        lim = "" if not rules or limits is None else repr(replace(limits, timeout_s=None, ends_at=None,
                                                                  max_results=None))
        key = (str(getattr(ledger, "path", "")), as_of, rules, lim)
        live = self._lru.get(key)
        with ledger.read_transaction():  # the marker, the changes and the closure: one committed state
            marker = ledger.change_marker()
            if live is not None and live.limit_hit is LimitHit.TIMEOUT:
                live = None  # cut by time: build it again
            if live is not None and live.marker == marker:
                self._lru.move_to_end(key)
                self.last = "hit"
                self.current = live.snapshot(False)
                return self.current
            if live is None:
                live = self._build(ledger, as_of, program, rules, lim, limits, derive, marker)
                self.last = "rebuild"
            else:
                self._catch_up(live, ledger, program, limits, derive, marker)
                self.last = "delta"
        self._lru[key] = live
        self._lru.move_to_end(key)
        while len(self._lru) > self.size:
            self._lru.popitem(last=False)
        self.current = live.snapshot(True)
        return self.current

    def _closure(self, live_or_none: _Live | None, ledger: Any, as_of: AsOf, program: Program | None,
                 limits: Limits | None, derive: Any) -> tuple[Any, set[Quad] | None, bool, LimitHit | None]:
        """(model, derived set or None when the model is the one already applied, truncated, hit)."""
        if derive is None or program is None or not program.rules:
            return None, set(), False, None
        lim = limits.started() if limits is not None else None
        model = derive(program, as_of=as_of, limits=lim)
        if live_or_none is not None and model is live_or_none.model:
            return model, None, live_or_none.truncated, live_or_none.limit_hit
        truncated, hit = bool(model.truncated), model.limit_hit
        derived = model.derived(deadline=lim.deadline() if lim is not None else None)
        if len(derived) < model.derived_count():  # the deadline came while decoding
            truncated, hit = True, hit or LimitHit.TIMEOUT
        return model, set(_derived_triples(derived, as_of)), truncated, hit

    def _build(self, ledger: Any, as_of: AsOf, program: Program | None, rules: str, lim: str,
               limits: Limits | None, derive: Any, marker: int) -> _Live:
        plain_list: list[Quad] = list(ledger.visible_quads(as_of))
        model, derived, truncated, hit = self._closure(None, ledger, as_of, program, limits, derive)
        assert derived is not None
        plain = set(plain_list)
        live = _Live(as_of, rules, lim, marker, _ox().Store(), plain, derived, model, truncated, hit,
                     system_high=ledger.changes_since(marker, as_of).system_high)
        extra = [q for q in derived if q not in plain]
        extra.sort(key=lambda q: (str(q[0]), str(q[1]), str(q[2])))  # a fixed load order
        live.store.bulk_extend(live.ox_quads(plain_list + extra))
        live.count = len(plain) + len(extra)
        return live

    def _catch_up(self, live: _Live, ledger: Any, program: Program | None, limits: Limits | None, derive: Any,
                  marker: int) -> None:
        changes = ledger.changes_since(live.marker, live.as_of)
        sees = changes.system_min is not None and live.as_of.system >= changes.system_min
        touched: dict[Quad, bool] = {(s, p, o, g): vis for s, p, o, g, vis in changes.quads} if sees else {}
        new_derived: set[Quad] | None = None
        if closure_affected(changes, program, live.as_of):
            model, new_derived, truncated, hit = self._closure(live, ledger, live.as_of, program, limits, derive)
            live.model, live.truncated, live.limit_hit = model, truncated, hit
        candidates = set(touched)
        if new_derived is not None:
            candidates |= live.derived ^ new_derived
        before = {q: q in live.plain or q in live.derived for q in candidates}
        for q, visible in touched.items():
            if visible:
                live.plain.add(q)
            else:
                live.plain.discard(q)
        if new_derived is not None:
            live.derived = new_derived
        adds = sorted((q for q in candidates if not before[q] and (q in live.plain or q in live.derived)), key=str)
        removes = sorted((q for q in candidates if before[q] and q not in live.plain and q not in live.derived),
                         key=str)
        for q in live.ox_quads(removes):
            live.store.remove(q)
        if adds:
            live.store.extend(live.ox_quads(adds))
        live.count += len(adds) - len(removes)
        live.marker = marker
        live.system_high = changes.system_high
