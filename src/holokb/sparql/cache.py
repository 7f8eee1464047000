"""Where snapshot stores live: a disk cache beside the ledger file and a small in-process LRU.

Disk layout (only for the *latest* snapshot and the ledger view, the ones asked for most)::

    kb.db.sparql/
      snapshot-<rules>-<fp>/store/      pyoxigraph (RocksDB) store; <rules> = rule-set hash[:8] or "plain",
                                        <fp> = fingerprint[:16]; with an ids/ table instead, a
                                        store-<pid>-<n>/ filled only when a query first needs
                                        pyoxigraph, named by ``store.done`` once complete
      snapshot-<rules>-<fp>/ids/        the integer table :mod:`.bgp` answers basic graph patterns from
      snapshot-<rules>-<fp>/meta.json   full fingerprint, quad count, truncation — written last
      snapshot-<rules>-<fp>-<pid>-<n>/  a rebuild while the plain name was taken by a stale copy
      ledger-plain-<fp>/…               the reified ledger view, the same way
      rules-<digest16>.json             rule-file digest → program hash (see :mod:`.rules_index`)

A directory counts only when its ``meta.json`` exists and holds the full fingerprint of the
current ledger state and rules; anything else is rebuilt (design.md §4: never trusted blindly,
never the only copy).  A build never writes into an existing directory; all other directories of
the same kind and rule set are removed after it.  Other
AsOfs are built in memory.  pyoxigraph is imported only here and in :mod:`holokb.sparql.query`.
"""
from __future__ import annotations

import json
import os
import shutil
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.limits import LimitHit, Limits
from ..core.time import AsOf
from .snapshot import BuiltData, SnapshotKey, ViewKind, build_data, fresh_closure, key_for

if TYPE_CHECKING:  # the program is only passed through here: analysis loads with the rules
    from ..analysis import Program


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A queryable store for one :class:`SnapshotKey`; ``built`` says whether this call built it."""

    key: SnapshotKey
    store: Any  # pyoxigraph.Store
    quads: int
    built: bool
    truncated: bool = False
    limit_hit: LimitHit | None = None
    location: str | None = None  # the disk directory, when cached on disk
    system_high: int | None = None  # the ledger's latest write time it reflects, when known
    in_memory: bool = True  # False: ``store`` reads the RocksDB copy on disk
    stats: dict | None = None  # join-order statistics (.join_stats); None: queries run as written
    table: Any = None  # idtable.TableRef: basic graph patterns answered without the store (.bgp)


def _ox() -> Any:
    import pyoxigraph  # optional heavy dependency: imported lazily, only in the SPARQL adapter

    return pyoxigraph


def _fill(store: Any, data: BuiltData) -> None:
    ox = _ox()
    # Store.load renames blank nodes randomly; parsing with rename_blank_nodes=False keeps the
    # stable ``_:b<hash>`` labels, so results name the same blank node in every run.
    quads = ox.parse(data.nquads, format=ox.RdfFormat.N_QUADS, rename_blank_nodes=False, lenient=True)
    store.bulk_extend(quads)


class _LazyStore:
    """A pyoxigraph store made on first use: a query :mod:`.bgp` answers needs none, and filling
    one is most of a snapshot's build (LUBM(1,0): ~1 s of the first query's ~1.8 s)."""

    __slots__ = ("_make", "_store")

    def __init__(self, make: Any):
        self._make, self._store = make, None

    def get(self) -> Any:
        """The store, made now if not yet."""
        if self._store is None:
            self._store, self._make = self._make(), None
        return self._store

    def query(self, *args: Any, **kwargs: Any) -> Any:
        return self.get().query(*args, **kwargs)

    def dump(self, *args: Any, **kwargs: Any) -> Any:
        return self.get().dump(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # every other Store method (quads_for_pattern, …)
        return getattr(self.get(), name)

    def __iter__(self) -> Any:
        return iter(self.get())

    def __len__(self) -> int:
        return len(self.get())


def _memory_store(data: BuiltData) -> Any:
    store = _ox().Store()
    _fill(store, data)
    return store


def _folder_store(folder: Path, data: Any) -> Any:
    """The RocksDB store of a snapshot folder that has an ids/ table: the one ``store.done`` names,
    else filled now into a directory of this process's own and published by creating ``store.done``
    (exclusively: when two processes fill one at once, the first to finish is the one later readers
    open; a process that dies while filling blocks nobody).  ``data``: the BuiltData, or a callable
    giving it (read from the table on disk)."""
    ox = _ox()
    done = folder / "store.done"
    try:
        name = done.read_text(encoding="utf-8").strip()
    except OSError:
        name = ""
    if name and "/" not in name and name.startswith("store-"):
        try:
            return ox.Store.read_only(str(folder / name))
        except OSError:
            pass
    built = data() if callable(data) else data
    _FILLS[0] += 1
    target = folder / f"store-{os.getpid()}-{_FILLS[0]}"
    try:
        store = ox.Store(str(target))
        _fill(store, built)
        store.flush()
    except OSError:
        return _memory_store(built)
    try:
        fd = os.open(done, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(target.name)
    except OSError:
        pass  # another process published its store first (or the disk refused): this one serves this process
    return store


_FILLS = [0]


def _table_data(table: Any) -> BuiltData:
    t = table.get()
    if t is None:
        raise OSError("the snapshot's ids/ table cannot be read")
    return BuiltData(None, len(t) + len(t.quads) // 4, table=t)


def _in_memory(snap: Snapshot) -> Snapshot:
    """A copy of a disk-backed snapshot whose store lives in memory (same quads, labels kept)."""
    ox = _ox()
    store = ox.Store()
    # dump + load of N-Quads is the fastest copy pyoxigraph offers (about 1.8 s for LUBM(1,0)'s
    # 187k quads, against 2.1 s for quads_for_pattern + bulk_extend); blank-node labels are kept
    # as they are, as in _fill.
    data = snap.store.dump(format=ox.RdfFormat.N_QUADS)
    store.bulk_extend(ox.parse(data, format=ox.RdfFormat.N_QUADS, rename_blank_nodes=False))
    return replace(snap, store=store, in_memory=True)


class SnapshotCache:
    """Stores for SPARQL: disk-cached latest snapshot and ledger view, LRU of ``size`` in memory.

    One instance per process is the normal use (:data:`DEFAULT_CACHE`); tests make their own.
    A store opened from disk is read through RocksDB (cheap to open: what a one-shot command
    wants); when the same process asks for it again (``promote``), it is copied into memory
    once, where pyoxigraph answers joins 2-6x faster (LUBM q02/q09: 175 ms on disk, 30 ms in
    memory), so a long-running process pays the copy once and every later query gains.
    """

    def __init__(self, size: int = 4, *, disk: bool = True, promote: bool = True):
        self.size = size
        self.disk = disk
        self.promote = promote
        self._lru: OrderedDict[tuple[str, str], Snapshot] = OrderedDict()
        self._count = 0

    def clear(self) -> None:
        """Forget every in-memory store (disk caches stay)."""
        self._lru.clear()

    def get(self, ledger: Any, kind: ViewKind, as_of: AsOf, program: Program | None = None,
            limits: Limits | None = None, derive: Any = None) -> Snapshot:
        """The store for (ledger state, kind, AsOf, rules): from memory, from disk, or built now."""
        key = key_for(ledger, kind, as_of, program, limits)
        ledger_path = str(getattr(ledger, "path", ":memory:"))
        snap = self._warm(ledger_path, key)
        if snap is None:
            folder = self._folder(ledger_path, key)
            snap = self._remember(ledger_path, key, self._build(folder, key, build_data(ledger, key, program, limits, derive)))
        return snap

    def get_warm(self, ledger: Any, as_of: AsOf, rules_hash: str, limits: Limits | None = None) -> Snapshot | None:
        """The snapshot closed under the program whose ``program_hash`` is ``rules_hash``, when it is
        in memory or on disk and current; None otherwise (never builds: building needs the program)."""
        key = key_for(ledger, "snapshot", as_of, None, limits, rules_hash=rules_hash)
        return self._warm(str(getattr(ledger, "path", ":memory:")), key)

    def get_stored(self, ledger: Any, as_of: AsOf, rules_hash: str, rule_set_hash: str,
                   limits: Limits | None = None) -> Snapshot | None:
        """:meth:`get_warm`, else built from the ledger's fresh stored closure of the rule set
        ``rule_set_hash`` (the program itself is not needed then); None when neither exists."""
        snap = self.get_warm(ledger, as_of, rules_hash, limits)
        if snap is not None:
            return snap
        info = fresh_closure(ledger, rule_set_hash, as_of, limits)
        if info is None:
            return None
        key = key_for(ledger, "snapshot", as_of, None, limits, rules_hash=rules_hash)
        ledger_path = str(getattr(ledger, "path", ":memory:"))
        data = build_data(ledger, key, None, limits, None, info)
        return self._remember(ledger_path, key, self._build(self._folder(ledger_path, key), key, data))

    def _warm(self, ledger_path: str, key: SnapshotKey) -> Snapshot | None:
        lru_key = (ledger_path, key.fingerprint)
        hit = self._lru.get(lru_key)
        if hit is not None and hit.limit_hit is LimitHit.TIMEOUT:  # cut by time: build it again
            hit = None
        if hit is not None:
            self._lru.move_to_end(lru_key)
            if not hit.in_memory and self.promote:  # copied when a query first needs the store
                copy = ((lambda t=hit.table: _memory_store(_table_data(t))) if hit.table is not None
                        else (lambda old=hit: _in_memory(old).store))
                hit = self._lru[lru_key] = replace(hit, store=_LazyStore(copy), in_memory=True)
            return Snapshot(hit.key, hit.store, hit.quads, False, hit.truncated, hit.limit_hit, hit.location,
                            stats=hit.stats, table=hit.table)
        folder = self._folder(ledger_path, key)
        snap = self._open_disk(folder, key) if folder is not None else None
        if snap is None or snap.limit_hit is LimitHit.TIMEOUT:
            return None
        return self._remember(ledger_path, key, snap)

    def _remember(self, ledger_path: str, key: SnapshotKey, snap: Snapshot) -> Snapshot:
        self._lru[(ledger_path, key.fingerprint)] = snap
        while len(self._lru) > self.size:
            self._lru.popitem(last=False)
        return snap

    # -- disk ------------------------------------------------------------------------------------

    def _folder(self, ledger_path: str, key: SnapshotKey) -> Path | None:
        if not self.disk or ledger_path in ("", ":memory:") or key.as_of != AsOf.latest():
            return None
        # The rule set is in the name, so alternating rule sets do not evict each other's copy.
        rules = key.rules[:8] if key.rules else "plain"
        return Path(ledger_path + ".sparql") / f"{key.kind}-{rules}-{key.fingerprint[:16]}"

    def _open_disk(self, folder: Path, key: SnapshotKey) -> Snapshot | None:
        # ``<kind>-<fp16>`` plus any ``<kind>-<fp16>-<pid>-<n>`` built by a process that found it taken.
        for cand in sorted(folder.parent.glob(folder.name + "*")) if folder.parent.is_dir() else ():
            try:
                meta = json.loads((cand / "meta.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(meta, dict) or meta.get("fingerprint") != key.fingerprint:
                continue
            table = None
            if meta.get("table"):
                from .idtable import TableRef, table_folder

                table = TableRef(folder=table_folder(cand))
                store: Any = _LazyStore(lambda c=cand, t=table: _folder_store(c, lambda: _table_data(t)))
            else:
                try:
                    store = _ox().Store.read_only(str(cand / "store"))
                except OSError:
                    continue
            stats = meta.get("stats")
            return Snapshot(key, store, int(meta.get("quads", 0)), False, bool(meta.get("truncated")),
                            LimitHit.from_stored(meta.get("limit_hit")), str(cand), in_memory=False,
                            stats=stats if isinstance(stats, dict) else None, table=table)
        return None

    def _build(self, folder: Path | None, key: SnapshotKey, data: BuiltData) -> Snapshot:
        if data.table is not None:
            return self._build_table(folder, key, data)
        ox = _ox()
        if folder is not None:
            try:
                folder.parent.mkdir(parents=True, exist_ok=True)
                target = folder
                if target.exists():  # stale or half-built (no valid meta.json): never reused, never
                    self._count += 1  # deleted under a reader; a fresh sibling is built instead
                    target = folder.with_name(f"{folder.name}-{os.getpid()}-{self._count}")
                target.mkdir()
                store = ox.Store(str(target / "store"))
                _fill(store, data)
                store.flush()
                meta = {"fingerprint": key.fingerprint, "kind": key.kind, "quads": data.quads,
                        "truncated": data.truncated, "limit_hit": data.limit_hit, "stats": data.stats}
                tmp = target / f"meta.json.{os.getpid()}"
                tmp.write_text(json.dumps(meta, sort_keys=True), encoding="utf-8")
                os.replace(tmp, target / "meta.json")  # written last: the directory is complete
                self._prune(target, folder.name.rsplit("-", 1)[0])
                return Snapshot(key, store, data.quads, True, data.truncated, data.limit_hit, str(target),
                                in_memory=False, stats=data.stats)
            except OSError:
                pass  # another process holds it, or the disk refused: serve from memory
        store = ox.Store()
        _fill(store, data)
        return Snapshot(key, store, data.quads, True, data.truncated, data.limit_hit, stats=data.stats)

    def _build_table(self, folder: Path | None, key: SnapshotKey, data: BuiltData) -> Snapshot:
        """A snapshot with an id table: the table written to disk now, the store filled when needed."""
        from .idtable import TableRef, table_folder

        ref = TableRef(data.table)
        if folder is not None:
            try:
                folder.parent.mkdir(parents=True, exist_ok=True)
                target = folder
                if target.exists():  # as in _build: never reused, never deleted under a reader
                    self._count += 1
                    target = folder.with_name(f"{folder.name}-{os.getpid()}-{self._count}")
                target.mkdir()
                table_folder(target).mkdir()
                data.table.save(table_folder(target))
                meta = {"fingerprint": key.fingerprint, "kind": key.kind, "quads": data.quads,
                        "truncated": data.truncated, "limit_hit": data.limit_hit, "stats": data.stats, "table": True}
                tmp = target / f"meta.json.{os.getpid()}"
                tmp.write_text(json.dumps(meta, sort_keys=True), encoding="utf-8")
                os.replace(tmp, target / "meta.json")  # written last: the directory is complete
                self._prune(target, folder.name.rsplit("-", 1)[0])
                return Snapshot(key, _LazyStore(lambda t=target: _folder_store(t, data)), data.quads, True,
                                data.truncated, data.limit_hit, str(target), in_memory=False, stats=data.stats,
                                table=ref)
            except OSError:
                pass  # another process holds it, or the disk refused: serve from memory
        return Snapshot(key, _LazyStore(lambda: _memory_store(data)), data.quads, True, data.truncated,
                        data.limit_hit, stats=data.stats, table=ref)

    @staticmethod
    def _prune(keep: Path, family: str) -> None:
        for other in sorted(keep.parent.glob(f"{family}-*")):
            if other != keep and other.is_dir():
                shutil.rmtree(other, ignore_errors=True)


#: The process-wide cache ``run_query`` uses unless given another.
DEFAULT_CACHE = SnapshotCache()
