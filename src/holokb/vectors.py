"""The vector index of a ledger at an AsOf: built from the visible facts, kept in memory, cached on disk.

This is the seam between the ledger and :mod:`holokb.vsa` (which sees neither SQL nor files it
did not write).  In a process, a space is reused while the ledger's change and content markers
are unchanged; when they moved, the facts visible now are read and diffed against the space (new
facts encoded and added, gone ones removed: the incremental path for assert and retract).  The
latest snapshot's vectors are also cached beside the ledger (``kb.db.vsa/<hdc-10048-s0>.npz``);
a loaded file is checked (checksum, configuration) and diffed against the visible facts, so a
stale or corrupt file costs a rebuild, never a wrong neighbour.
"""
from __future__ import annotations

import enum
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from .core import AsOf, Limits
from .ledger import Ledger
from .vsa import FactRecord, VSAConfig, VectorSpace, load, save

_ALL = Limits(max_results=None)


class IndexSource(enum.Enum):
    """Where a vector space came from on this call."""

    MEMORY = "memory"        # reused as it was: the ledger did not change
    UPDATED = "updated"      # reused and brought up to date incrementally
    DISK = "disk"            # loaded from the cache file (and diffed against the ledger)
    BUILT = "built"          # encoded from scratch


@dataclass(frozen=True, slots=True)
class IndexInfo:
    """How the space was obtained, how many facts it holds, how many were encoded or dropped now."""

    source: IndexSource
    facts: int
    encoded: int
    removed: int
    location: str | None = None


def visible_records(ledger: Ledger, as_of: AsOf) -> list[FactRecord]:
    """Every fact visible at ``as_of`` as the index sees it (one record per fact id, sorted by id)."""
    out: dict[str, FactRecord] = {}
    for v in ledger.facts(as_of, limits=_ALL):
        f = v.fact
        out.setdefault(v.fact_id, FactRecord(v.fact_id, f.subject, f.predicate, f.object, f.polarity == "negate"))
    return [out[k] for k in sorted(out)]


def cache_path(ledger: Ledger, config: VSAConfig) -> Path | None:
    """The cache file for ``config`` beside a ledger file (None for an in-memory ledger)."""
    p = str(ledger.path)
    if p in ("", ":memory:"):
        return None
    return Path(p + ".vsa") / f"{config.tag()}.npz"


class VectorCache:
    """Vector spaces per (ledger file, configuration, AsOf): in memory (LRU of ``size``) and on disk."""

    def __init__(self, size: int = 4, *, disk: bool = True):
        self.size = size
        self.disk = disk
        self._mem: OrderedDict[tuple, tuple[tuple, VectorSpace]] = OrderedDict()

    def clear(self) -> None:
        self._mem.clear()

    def space(self, ledger: Ledger, config: VSAConfig, as_of: AsOf) -> tuple[VectorSpace, IndexInfo]:
        """The space for the facts visible at ``as_of``, up to date with the ledger."""
        key = (str(ledger.path), config, as_of)
        marker = (ledger.change_marker(), ledger.content_marker())
        hit = self._mem.get(key)
        path = cache_path(ledger, config) if self.disk and as_of == AsOf.latest() else None
        if hit is not None:
            self._mem.move_to_end(key)
            seen, space = hit
            if seen == marker:
                return space, IndexInfo(IndexSource.MEMORY, len(space.records), 0, 0)
            encoded, removed = _update(space, visible_records(ledger, as_of))
            self._remember(key, marker, space)
            if path is not None and (encoded or removed):
                _save_quietly(space, path)
            return space, IndexInfo(IndexSource.UPDATED, len(space.records), encoded, removed)
        records = visible_records(ledger, as_of)
        space = VectorSpace(config)
        cached = load(path, config) if path is not None and path.exists() else None
        if cached is not None:
            encoded = space.restore(records, cached.keys, cached.vectors, cached.entity_keys, cached.entity_vectors,
                                    cached.norms)
            removed = len(set(cached.keys) - {r.key for r in records})
            source = IndexSource.DISK
        else:
            encoded, removed, source = space.add(records), 0, IndexSource.BUILT
        if path is not None and (cached is None or encoded or removed):
            _save_quietly(space, path)
        self._remember(key, marker, space)
        return space, IndexInfo(source, len(space.records), encoded, removed,
                                str(path) if path is not None else None)

    def persist(self, ledger: Ledger, space: VectorSpace, as_of: AsOf) -> None:
        """Write the space back (after entity vectors were computed), for the latest snapshot only."""
        path = cache_path(ledger, space.config) if self.disk and as_of == AsOf.latest() else None
        if path is not None:
            _save_quietly(space, path)

    def _remember(self, key: tuple, marker: tuple, space: VectorSpace) -> None:
        self._mem[key] = (marker, space)
        while len(self._mem) > self.size:
            self._mem.popitem(last=False)


def _update(space: VectorSpace, records: list[FactRecord]) -> tuple[int, int]:
    current = {r.key for r in records}
    gone = [k for k in space.records if k not in current]
    removed = space.remove(gone)
    encoded = space.add([r for r in records if r.key not in space.records])
    return encoded, removed


def _save_quietly(space: VectorSpace, path: Path) -> None:
    try:
        save(space, path)
    except OSError:
        pass  # a read-only folder or a full disk: the cache is an optimisation, the ledger is the record


#: The process-wide cache ``KnowledgeBase.similar`` / ``search`` use.
DEFAULT_VECTORS = VectorCache()
