"""Stored closures: derived facts with their proofs, kept apart from asserted facts.

A closure is stored for one (rule-set hash, AsOf) with the ledger's change marker at the time
its input was read; a later committed write that its AsOf can see (one that wrote a system time
at or before ``as_of.system``) makes it **stale** (``ClosureInfo.stale``), and the caller decides
whether to recompute.  Writes are append-only in system time, so a write at a later system
time than the closure's AsOf leaves it fresh.  Derived rows live in their own tables and never show
up in ``facts()``, ``visible()``, ``encoded_visible()``, ``spans()`` or an export.

Premise references (``DerivedRecord.premises``, ``DerivedView.premises``) are typed
(:mod:`holokb.core.premises`): :class:`~holokb.core.AssertedRef` names an asserted fact by its
id (64 hex digits, ``Fact.id``), :class:`~holokb.core.DerivedRef` the derived fact stored at
position ``seq`` (0-based) of the same closure (``DerivedView.ref``).  On disk they are compact
integers in array blocks (see :mod:`holokb.ledger.derived_blocks`).

>>> import tempfile, os
>>> from holokb.core import IRI, AsOf
>>> from holokb.ledger import Ledger
>>> led = Ledger.open(os.path.join(tempfile.mkdtemp(), "kb.db"))
>>> info = led.store_closure(rule_set_hash="h", as_of=AsOf.latest(), computed_at=5,
...     derived=[DerivedRecord(IRI("http://ex.org/q"), (IRI("http://ex.org/a"), IRI("http://ex.org/b")))])
>>> info.derived, info.stale, [v.args[1].value for v in led.derived_facts(info)]
(1, False, ['http://ex.org/b'])
>>> led.close()
"""
from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, NamedTuple, Protocol, Sequence

if TYPE_CHECKING:  # annotations only; numpy loads where arrays are built
    import numpy as np

from ..core.errors import InvalidValueError, LedgerError
from ..core.limits import LimitHit, Limits, Page
from ..core.premises import AssertedRef, DerivedRef
from ..core.terms import IRI, Literal, Term
from ..core.time import MAX_TIME, AsOf, Interval
from .derived_columns import DerivedColumns, write_columns
from .dictionary import TermCache, TxnTerms
from .sql import INSERT_TERM, fact_key

if TYPE_CHECKING:
    from .derived_blocks import ClosureTable
    from .derived_input import FactHashes, RecordedFacts

_CHUNK = 20_000  # derived rows per block batch
_IN = 500  # ids per IN (...) list
_CLOSURE_COLS = ("closure_id, rule_set_hash, as_of_system, as_of_valid, change_marker, computed_at, truncated, "
                 "limit_hit, n_derived, n_binary, rule_counts")


@dataclass(frozen=True, slots=True)
class DerivedRecord:
    """One derived fact to store: the fact, where it holds, and its proof (rule, premises, bindings)."""

    predicate: IRI
    args: tuple[Term, ...]
    valid: Interval = Interval.always()
    rule: str = ""
    depth: int = 0
    score: float | None = None
    negated: bool = False
    premises: tuple[AssertedRef | DerivedRef, ...] = ()
    bindings: tuple[tuple[str, Term], ...] = ()


class EncodedRecord(Protocol):
    """A derived fact whose terms are term ids (the engine's proof steps have this shape): ``args``
    and binding values are ledger term ids, except those :attr:`EncodedClosure.minted` names."""

    @property
    def predicate(self) -> str: ...
    @property
    def args(self) -> tuple[int, ...]: ...
    @property
    def valid(self) -> Interval: ...
    @property
    def rule(self) -> str: ...
    @property
    def depth(self) -> int: ...
    @property
    def score(self) -> float | None: ...
    @property
    def negated(self) -> bool: ...
    @property
    def premises(self) -> tuple[object, ...]: ...
    @property
    def bindings(self) -> tuple[tuple[str, int], ...]: ...


@dataclass(frozen=True, slots=True)
class EncodedClosure:
    """Derived facts to store as term ids, so that nothing is decoded and re-interned: every id is
    this ledger's term id except the keys of ``minted`` (ids of terms the ledger may not have,
    interned on the way).  Premises other than :class:`AssertedRef` / :class:`DerivedRef` (ground
    facts of rule files) are not stored, as :func:`holokb.kb.derived_records` leaves them out.
    Stored rows are byte-identical to storing the same facts as :class:`DerivedRecord`."""

    facts: Sequence[EncodedRecord]
    minted: Mapping[int, Term]


@dataclass(frozen=True, slots=True)
class DerivedView:
    """A stored derived fact; ``ref`` is how other proofs in its closure name it."""

    ref: DerivedRef
    predicate: IRI
    args: tuple[Term, ...]
    negated: bool
    valid: Interval
    rule: str
    depth: int
    score: float | None
    premises: tuple[AssertedRef | DerivedRef, ...]
    bindings: tuple[tuple[str, Term], ...]


@dataclass(frozen=True, slots=True)
class ClosureInfo:
    """A stored closure: for which rules and AsOf, from which ledger state, and whether it is stale.

    ``change_marker`` is the ledger's marker when the closure's input was read; ``stale`` is
    true when a write committed after that marker touched a system time at or before
    ``as_of.system`` (as of the call that returned this info).
    """

    id: int
    rule_set_hash: str
    as_of: AsOf
    change_marker: int
    computed_at: int
    truncated: bool
    limit_hit: LimitHit | None
    derived: int
    binary: int
    rule_counts: tuple[tuple[str, int], ...]
    stale: bool


@dataclass(frozen=True, slots=True)
class StoredClosure:
    """A stored closure as exported: key, provenance, staleness, the canonical rule text (when kept)
    and its derived facts in stored order (premises name ``d:<n>`` positions of this closure)."""

    rule_set_hash: str
    as_of: AsOf
    computed_at: int
    truncated: bool
    limit_hit: LimitHit | None
    stale: bool
    rule_text: str | None
    derived: tuple[DerivedRecord, ...]


class EncodedDerived(NamedTuple):
    """Affirmed binary derived facts as int64 term-id columns; open ``valid_to`` is MAX_TIME."""

    s: np.ndarray
    p: np.ndarray
    o: np.ndarray
    valid_from: np.ndarray
    valid_to: np.ndarray


class LedgerDerived:
    """The stored-closure half of :class:`~holokb.ledger.Ledger` (needs ``_db``, ``_cache``, ``_transaction``, ``_term_filters``)."""

    _db: sqlite3.Connection
    _cache: TermCache
    _transaction: Callable[..., AbstractContextManager[sqlite3.Connection]]
    change_marker: Callable[[], int]
    _term_filters: Callable[..., bool]
    _ensure_indexes: Callable[[], None]

    # -- writing ---------------------------------------------------------------------------------

    def store_closure(self, *, rule_set_hash: str, as_of: AsOf, computed_at: int,
                      derived: Iterable[DerivedRecord] | EncodedClosure | DerivedColumns, truncated: bool = False,
                      limit_hit: LimitHit | None = None,
                      change_marker: int | None = None) -> ClosureInfo:
        """Store a closure in one transaction, replacing an earlier one with the same (hash, AsOf).

        ``change_marker`` is the marker read before the closure's input was read (default: the
        current one); pass it so that a write racing the computation leaves the result stale.
        ``derived``: records, or an :class:`EncodedClosure` (term ids; same rows, no decoding), or
        :class:`~holokb.ledger.derived_columns.DerivedColumns` (the same as id columns).
        """
        if not isinstance(rule_set_hash, str) or not rule_set_hash:
            raise InvalidValueError("rule_set_hash must be a non-empty string")
        if not isinstance(as_of, AsOf):
            raise InvalidValueError(f"as_of must be an AsOf, got {type(as_of).__name__}")
        if not isinstance(computed_at, int) or isinstance(computed_at, bool):
            raise InvalidValueError(f"computed_at must be an integer (unix ms), got {computed_at!r}")
        self.__dict__.pop("_derived_table", None)  # a replaced closure's kept read goes (see _table)
        # Id columns name asserted premises by row id and intern terms (terms_canon's uniqueness);
        # records name them by hash, found through facts_hkey: every deferred index then.
        needs = ("terms_canon",) if isinstance(derived, DerivedColumns) else None
        with self._transaction(needs=needs) as db:
            current = self.change_marker()
            marker = current if change_marker is None else change_marker
            if not isinstance(marker, int) or not 0 <= marker <= current:
                raise InvalidValueError(f"change_marker {marker!r} is not a marker this ledger has had "
                                        f"(current: {current})")
            cid, writer, counts = write_closure(db, TxnTerms(self._cache, db), rule_set_hash, as_of, computed_at,
                                                derived, truncated, limit_hit, marker)
        writer.terms.commit_into_cache()
        return ClosureInfo(cid, rule_set_hash, as_of, marker, computed_at, bool(truncated), limit_hit, writer.n,
                           writer.binary, counts, self._stale_after(marker, as_of.system))

    def delete_closure(self, closure: ClosureInfo) -> bool:
        """Delete a stored closure and its derived facts; False when it was already gone."""
        self.__dict__.pop("_derived_table", None)  # the kept closure read (see _table) may be this one
        with self._transaction(needs=()) as db:
            return db.execute("DELETE FROM closures WHERE closure_id = ?", (closure.id,)).rowcount > 0

    # -- reading ---------------------------------------------------------------------------------

    def store_rule_set(self, rule_set_hash: str, text: str) -> None:
        """Keep the canonical text of a rule set under its hash (idempotent; a different text under
        the same hash is refused)."""
        with self._transaction(needs=()):
            row = self._db.execute("SELECT text FROM rule_sets WHERE rule_set_hash = ?", (rule_set_hash,)).fetchone()
            if row is None:
                self._db.execute("INSERT INTO rule_sets(rule_set_hash, text) VALUES (?, ?)", (rule_set_hash, text))
            elif row[0] != text:
                raise LedgerError(f"rule set {rule_set_hash[:12]} is already stored with a different text")

    def rule_set(self, rule_set_hash: str) -> str | None:
        """The canonical text of a stored rule set, or None."""
        row = self._db.execute("SELECT text FROM rule_sets WHERE rule_set_hash = ?", (rule_set_hash,)).fetchone()
        return None if row is None else row[0]

    def closure_info(self, rule_set_hash: str, as_of: AsOf) -> ClosureInfo | None:
        """The stored closure for (rule-set hash, AsOf), or None; ``stale`` says whether writes followed it."""
        row = self._db.execute(
            f"SELECT {_CLOSURE_COLS} FROM closures WHERE rule_set_hash = ? AND as_of_system = ? AND as_of_valid = ?",
            (rule_set_hash, as_of.system, as_of.valid),
        ).fetchone()
        return None if row is None else _info(row, self._stale_after(row[4], row[2]))

    def closures(self) -> tuple[ClosureInfo, ...]:
        """Every stored closure.  Order: rule-set hash, AsOf system, AsOf valid (the unique key)."""
        rows = self._db.execute(
            f"SELECT {_CLOSURE_COLS} FROM closures ORDER BY rule_set_hash, as_of_system, as_of_valid").fetchall()
        return tuple(_info(r, self._stale_after(r[4], r[2])) for r in rows)

    def _stale_after(self, marker: int, as_of_system: int) -> bool:
        """Did a write committed after ``marker`` touch a system time visible at ``as_of_system``?
        (Marker -1: a closure restored from an export in which it was already stale.)"""
        if marker < 0:
            return True
        return self._db.execute("SELECT 1 FROM write_log WHERE change_marker > ? AND system_min <= ? LIMIT 1",
                                (marker, as_of_system)).fetchone() is not None

    def derived_facts(self, closure: ClosureInfo, *, about: IRI | None = None, predicate: IRI | None = None,
                      obj: Term | None = None, limits: Limits = Limits()) -> Page[DerivedView]:
        """Derived facts of a stored closure, filtered by first arg / predicate / second arg.

        Sort key: predicate IRI, negated (affirmed first), then per argument the object key
        (kind, datatype, lexical, canonical bytes) of args[0], args[1], the canonical bytes of
        args[2:], then valid_from, valid_to (open last), position in the closure.
        """
        import numpy as np
        from ..core.arrays import distinct

        from .derived_blocks import sort_order

        table = self._table(closure)
        deadline = limits.deadline()
        mask = None
        for col, term in ((table.s, about), (table.p, predicate), (table.o, obj)):
            if term is not None:
                tid = self._cache.lookup(self._db, term)
                if tid is None:
                    return Page.of(())
                mask = col == tid if mask is None else mask & (col == tid)
        idx = np.arange(len(table)) if mask is None else np.flatnonzero(mask)
        preds = distinct(table.p[idx]).tolist()
        self._cache.terms_of(self._db, preds)
        order = sort_order(self._db, table, idx, {i: self._cache.terms[i].value for i in preds})
        caps = [(n, name) for n, name in ((limits.max_results, LimitHit.MAX_RESULTS),
                                          (limits.max_edges, LimitHit.MAX_EDGES))
                if n is not None]
        cap, cap_name = min(caps) if caps else (None, None)
        truncated, hit = False, None
        if cap is not None and len(order) > cap:
            order, truncated, hit = order[:cap], True, cap_name
        views = self._derived_views(table, order)
        if deadline.expired():
            return Page.of(views, True, LimitHit.TIMEOUT)
        return Page.of(views, truncated, hit)

    def stored_closures(self) -> Iterator[StoredClosure]:
        """Every stored closure with its derived facts (for export).  Order: as :meth:`closures`;
        derived facts in stored position order."""
        for info in self.closures():
            yield self.stored_closure(info)

    def stored_closure(self, info: ClosureInfo) -> StoredClosure:
        """One stored closure with its derived facts in stored position order."""
        table = self._table(info)
        derived = tuple(DerivedRecord(v.predicate, v.args, v.valid, v.rule, v.depth, v.score, v.negated, v.premises,
                                      v.bindings) for v in self._derived_views(table, table.where))
        return StoredClosure(info.rule_set_hash, info.as_of, info.computed_at, info.truncated, info.limit_hit,
                             info.stale, self.rule_set(info.rule_set_hash), derived)

    def derived_by_ref(self, closure: ClosureInfo, refs: Sequence[DerivedRef]) -> tuple[DerivedView, ...]:
        """The derived facts named by ``refs``, in the order given (to walk a proof)."""
        import numpy as np

        table = self._table(closure)
        seqs = [_derived_seq(r) for r in refs]
        missing = [s for s in seqs if s >= len(table)]
        if missing:
            raise LedgerError(f"closure {closure.id} has no derived fact d:{missing[0]}")
        return tuple(self._derived_views(table, table.where[np.array(seqs, dtype=np.int64)]))

    def derived_triples(self, closure: ClosureInfo, valid: int, triple: IRI) -> Iterator[tuple[Term, Term, Term]]:
        """The closure's affirmed derived facts holding at valid time ``valid`` that are RDF triples:
        a binary fact ``p(s, o)`` with an IRI ``s`` as ``(s, p, o)``, and a ``triple(s, p, o)`` fact (the
        relation of rules that quantify over properties) with IRIs ``s`` and ``p`` as ``(s, p, o)``.

        What the SPARQL snapshot adds to the plain triples, read from the stored rows instead of
        closing the rules again.  Order: position in the closure.
        """
        rows = self.derived_triple_ids(closure, valid, triple)
        term = self._cache.terms
        for k in range(0, len(rows), 20_000):
            part = rows[k:k + 20_000]
            self._cache.terms_of(self._db, [i for r in part for i in r])
            for s, p, o in part:
                yield term[s], term[p], term[o]

    def derived_triple_ids(self, closure: ClosureInfo, valid: int, triple: IRI) -> list[tuple[int, int, int]]:
        """:meth:`derived_triples` as term ids ``(s, p, o)``, in the same order (for a ``triple`` fact,
        ``p`` is its second argument and ``o`` its third)."""
        return list(zip(*self.derived_triple_columns(closure, valid, triple)))

    def derived_triple_columns(self, closure: ClosureInfo, valid: int,
                               triple: IRI) -> tuple[list[int], list[int], list[int]]:
        """:meth:`derived_triple_ids` as three columns (subjects, predicates, objects)."""
        import numpy as np

        from .derived_blocks import OPEN, literal_ids

        table = self._table(closure)
        tid = self._cache.lookup(self._db, triple)
        vt = table.valid_to
        binary = table.arity == 2
        ternary = (table.arity == 3) & (table.p == (-1 if tid is None else tid))
        idx = np.flatnonzero(~table.negated & (table.valid_from <= valid) & ((vt == OPEN) | (vt > valid))
                             & (binary | ternary))
        s, o, tern = table.s[idx], table.o[idx], ternary[idx]
        literals = literal_ids(self._db, np.concatenate([s, o[tern]]))
        keep = ~np.isin(s, literals) & ~(tern & np.isin(o, literals))
        idx, tern = idx[keep], tern[keep]
        order = np.argsort(table.seq[idx], kind="stable")
        idx, tern = idx[order], tern[order]
        s, p, o = table.s[idx], table.p[idx], table.o[idx]
        third = table.rest_first()[idx]
        return s.tolist(), np.where(tern, o, p).tolist(), np.where(tern, third, o).tolist()

    def encoded_derived(self, closure: ClosureInfo) -> EncodedDerived:
        """Affirmed binary derived facts as term-id columns (the SPARQL snapshot's input).

        Order: s, p, o, valid_from, valid_to, position — deterministic for a given file.
        """
        import numpy as np

        from .derived_blocks import OPEN

        table = self._table(closure)
        idx = np.flatnonzero((table.arity == 2) & ~table.negated)
        vt = table.valid_to[idx]
        a = np.stack([table.s[idx], table.p[idx], table.o[idx], table.valid_from[idx],
                      np.where(vt == OPEN, MAX_TIME, vt), table.seq[idx]], axis=1).reshape(len(idx), 6)
        a = a[np.lexsort(a.T[::-1])]
        return EncodedDerived(*(np.ascontiguousarray(a[:, k]) for k in range(5)))

    def recorded_facts(self, system: int) -> "RecordedFacts":
        """Every plain affirmed triple recorded at system time ``system``, whatever its valid time, as id
        columns (:mod:`~holokb.ledger.derived_input`: the rows of ``encoded_visible(all_valid=True)``)."""
        from .derived_input import recorded_facts

        return recorded_facts(self._db, system)

    def fact_hashes(self, rowids: "np.ndarray") -> "FactHashes":
        """The fact id (hex) of each fact row id, read when asked for."""
        from .derived_input import FactHashes

        return FactHashes(self._db, rowids)

    def row_confidences(self, rowids: "np.ndarray") -> "np.ndarray":
        """:meth:`confidences` by fact row id."""
        from .derived_input import row_confidences

        return row_confidences(self._db, rowids)

    def confidences(self, fact_ids: Sequence[str]) -> np.ndarray:
        """Per fact id (hex), the max evidence confidence over all its spans; 1.0 without evidence.

        An id the ledger does not know has no evidence (1.0).  One query over a temp table.
        """
        import numpy as np

        out = np.ones(len(fact_ids), dtype=np.float64)
        if not len(fact_ids) or self._db.execute("SELECT 1 FROM evidence LIMIT 1").fetchone() is None:
            return out  # no evidence at all (a plain RDF load): skip hashing and probing every id
        rows = [(i, h, fact_key(h)) for i, h in enumerate(map(_fact_hash, fact_ids))]
        self._ensure_indexes()  # facts_hkey: each id is probed
        db = self._db
        # A savepoint works both inside a batch and outside any transaction; only temp is written,
        # and rolling back to it empties the temp table whatever happened.  CROSS JOIN pins the
        # plan: probe from the ids, never scan all evidence.
        db.execute("SAVEPOINT confidences")
        try:
            db.execute("CREATE TEMP TABLE IF NOT EXISTS conf_ids(pos INTEGER PRIMARY KEY, hash BLOB NOT NULL, "
                       "hkey INTEGER NOT NULL)")
            db.executemany("INSERT INTO temp.conf_ids(pos, hash, hkey) VALUES (?, ?, ?)", rows)
            found = db.execute(
                "SELECT t.pos, max(e.confidence) FROM temp.conf_ids t CROSS JOIN facts f "
                "ON f.hkey = t.hkey AND f.hash = t.hash "
                "JOIN spans sp ON sp.fact_id = f.fact_id JOIN evidence e ON e.sid = sp.sid GROUP BY t.pos"
            ).fetchall()
        finally:
            db.execute("ROLLBACK TO confidences")
            db.execute("RELEASE confidences")
        if found:
            idx = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
            out[idx] = np.fromiter((r[1] for r in found), dtype=np.float64, count=len(found))
        return out

    # -- internals -------------------------------------------------------------------------------

    def _check_closure(self, closure: ClosureInfo) -> tuple:
        row = self._db.execute(f"SELECT {_CLOSURE_COLS} FROM closures WHERE closure_id = ?", (closure.id,)).fetchone()
        if row is None:
            raise LedgerError(f"closure {closure.id} ({closure.rule_set_hash[:12]}, {closure.as_of}) is no longer "
                              "stored (replaced or deleted)")
        return row

    def _table(self, closure: ClosureInfo) -> "ClosureTable":
        """The closure's derived facts read from its blocks.  The last closure read is kept (a walk
        over a proof asks for a few facts at a time): a stored closure's blocks never change, and the
        key is its whole ``closures`` row, so a replaced closure (new id, new counts) is read again."""
        from .derived_blocks import ClosureTable, read_blocks

        row = self._check_closure(closure)
        kept = self.__dict__.get("_derived_table")
        if kept is not None and kept[0] == row:
            return kept[1]
        try:
            table = ClosureTable.of(read_blocks(self._db, closure.id))
        except ValueError as e:
            raise LedgerError(f"closure {closure.id} has a damaged derived block: {e}") from None
        self.__dict__["_derived_table"] = (row, table)
        return table

    def _derived_views(self, table: "ClosureTable", idx: "np.ndarray") -> list[DerivedView]:
        """Views of the facts at indexes ``idx`` of ``table`` (terms and premise fact ids fetched in bulk)."""
        from .derived_blocks import OPEN

        if not len(idx):
            return []
        import numpy as np
        from ..core.arrays import distinct

        db = self._db
        in_block, rows = table.block[idx], table.row[idx]
        blocks = table.blocks
        tids: set[int] = set()
        fact_rowids: set[int] = set()
        for b in distinct(in_block).tolist():  # only the rows asked for: a proof walk asks for a few
            blk, mine = blocks[b], rows[in_block == b]
            tids.add(blk.p)
            tids.update(blk.args[mine].ravel().tolist(), blk.bindings[mine].ravel().tolist())
            codes = blk.premises[mine]
            fact_rowids.update(codes[codes > 0].tolist())
        self._cache.terms_of(db, tids)
        hashes: dict[int, str] = {}
        ids = sorted(fact_rowids)
        for k in range(0, len(ids), _IN):
            part = ids[k:k + _IN]
            for fid, h in db.execute(f"SELECT fact_id, hash FROM facts WHERE fact_id IN ({','.join('?' * len(part))})",
                                     part):
                hashes[fid] = h.hex()
        term = self._cache.terms.__getitem__
        refs = {x: AssertedRef(h) for x, h in hashes.items()}
        out: list = [None] * len(idx)
        for b in distinct(in_block).tolist():
            at = np.flatnonzero(in_block == b)
            blk, mine = blocks[b], rows[at]
            for k, seq, args, vf, end, depth, sc, premises, bindings in zip(
                    at.tolist(), blk.seq[mine].tolist(), blk.args[mine].tolist(), blk.valid_from[mine].tolist(),
                    blk.valid_to[mine].tolist(), blk.depth[mine].tolist(), blk.score[mine].tolist(),
                    blk.premises[mine].tolist(), blk.bindings[mine].tolist()):
                out[k] = DerivedView(
                    DerivedRef(seq), term(blk.p), tuple(map(term, args)), blk.negated,
                    Interval(vf, None if end == OPEN else end), blk.rule, depth, None if sc != sc else sc,
                    tuple(refs[x] if x > 0 else DerivedRef(-x - 1) for x in premises if x),
                    tuple(zip(blk.names, map(term, bindings))))
        return out


def write_closure(db: sqlite3.Connection, terms: TxnTerms, rule_set_hash: str, as_of: AsOf, computed_at: int,
                  derived: Iterable[DerivedRecord] | EncodedClosure | DerivedColumns, truncated: bool,
                  limit_hit: LimitHit | str | None,
                  marker: int) -> tuple[int, "_ClosureWriter", tuple[tuple[str, int], ...]]:
    """Write one closure inside the caller's transaction (replacing the same key); (id, writer, rule counts)."""
    key = (rule_set_hash, as_of.system, as_of.valid)
    db.execute("DELETE FROM closures WHERE rule_set_hash = ? AND as_of_system = ? AND as_of_valid = ?", key)
    cid = db.execute(
        f"INSERT INTO closures({_CLOSURE_COLS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, 0, 0, '[]')",
        (*key, marker, computed_at, int(bool(truncated)), None if limit_hit is None else LimitHit(limit_hit).value),
    ).lastrowid
    defer = terms.defer
    writer = _ClosureWriter(db, terms, cid)
    try:
        if isinstance(derived, DerivedColumns):
            write_columns(writer, derived)
        elif isinstance(derived, EncodedClosure):
            writer.add_encoded(derived)
        else:
            for rec in derived:
                writer.add(rec)
        writer.finish()
    finally:
        terms.defer = defer
    counts = tuple(sorted(writer.rule_counts.items()))
    db.execute("UPDATE closures SET n_derived = ?, n_binary = ?, rule_counts = ? WHERE closure_id = ?",
               (writer.n, writer.binary, json.dumps(counts), cid))
    return cid, writer, counts


class _ClosureWriter:
    """Encodes derived records into blocks (:mod:`holokb.ledger.derived_blocks`) and writes them in
    chunks (terms interned on the way).  A row while buffered: ``[seq, p, arity, negated, rule,
    binding names, arg ids, valid_from, valid_to, depth, score, premises, binding ids]``."""

    def __init__(self, db: sqlite3.Connection, terms: TxnTerms, cid: int) -> None:
        self.db = db
        self.terms = terms
        terms.defer = True
        self.cid = cid
        self.n = 0
        self.binary = 0
        self.block = 0  # next block number
        self.max_ref = -1
        self.rule_counts: Counter[str] = Counter()
        self.rows: list[list] = []
        self.iri_ids: dict[str, int] = {}
        self.lit_ids: dict[Literal, int] = {}
        self.fact_ids: dict[str, int] = {}
        self.other_refs = False  # premises that are neither AssertedRef nor DerivedRef: dropped, not refused

    def term(self, t: object) -> int:
        # The id only: TxnTerms.intern finds terms the closure's input decoded in the ledger's cache.
        if t.__class__ is IRI:
            hit = self.iri_ids.get(t.value)  # type: ignore[attr-defined]
            if hit is None:
                hit = self.iri_ids[t.value] = self.terms.intern(t)  # type: ignore[attr-defined,arg-type]
            return hit
        if not isinstance(t, Literal):
            raise InvalidValueError(f"a derived fact's argument must be an IRI or a Literal, got {t!r}")
        hit = self.lit_ids.get(t)
        if hit is None:
            if len(self.lit_ids) > 500_000:
                self.lit_ids.clear()
            hit = self.lit_ids[t] = self.terms.intern(t)
        return hit

    def add(self, rec: DerivedRecord) -> None:
        if rec.__class__ is not DerivedRecord:
            raise InvalidValueError(f"derived facts must be DerivedRecord, got {type(rec).__name__}")
        pred = rec.predicate
        if pred.__class__ is not IRI:
            raise InvalidValueError(f"a derived fact's predicate must be an IRI, got {pred!r}")
        score = rec.score
        if score is not None and not math.isfinite(score):
            raise InvalidValueError(f"derived fact d:{self.n} has a non-finite score {score!r}")
        term = self.term
        # Terms are interned in the order the v7 rows met them (args, predicate, bindings): same term ids.
        args = [term(a) for a in rec.args]
        if len(args) == 2 and not rec.negated:
            self.binary += 1
        p = term(pred)
        bindings = rec.bindings
        valid = rec.valid
        self.rows.append([self.n, p, len(args), bool(rec.negated), rec.rule, tuple(name for name, _ in bindings),
                          args, valid.start, valid.end, rec.depth, score, rec.premises,
                          [term(value) for _, value in bindings]])
        self.rule_counts[rec.rule] += 1
        self.n += 1
        if len(self.rows) >= _CHUNK:
            self.flush()

    def add_encoded(self, closure: EncodedClosure) -> None:
        """Rows from facts given as term ids (:class:`EncodedClosure`): the same rows :meth:`add`
        writes for the decoded facts, with only the minted terms interned."""
        ids: dict[int, int] = {}  # minted id -> ledger id
        pending: dict[int, Term] = {}  # minted terms the ledger lacks: interned on first use in row order,
        for i, t in closure.minted.items():  # as add does, so that the new term ids are the same
            if self.terms.new.get(t) is None and self.terms.cache.lookup(self.db, t) is None:
                pending[i] = t
            else:
                ids[i] = self.term(t)  # checks it is an IRI or a Literal; mints nothing

        for i in pending:
            ids[i] = None  # type: ignore[assignment]  # get(i, i) says None: intern it now

        def first_use(i: int) -> int:
            tid = ids[i] = self.term(pending.pop(i))
            return tid

        get = ids.get  # get(i, i): the ledger id of engine id i
        self.other_refs = True
        iri_ids = self.iri_ids
        for rec in closure.facts:
            score = rec.score
            if score is not None and not math.isfinite(score):
                raise InvalidValueError(f"derived fact d:{self.n} has a non-finite score {score!r}")
            raw = rec.args
            args = [get(i, i) for i in raw]
            if None in args:
                args = [first_use(i) if x is None else x for i, x in zip(raw, args)]
            if len(args) == 2 and not rec.negated:
                self.binary += 1
            pred = rec.predicate
            p = iri_ids.get(pred)
            if p is None:
                p = self.term(IRI(pred))
            values = []
            for _, value in rec.bindings:
                v = get(value, value)
                values.append(first_use(value) if v is None else v)
            valid = rec.valid
            self.rows.append([self.n, p, len(args), bool(rec.negated), rec.rule,
                              tuple(name for name, _ in rec.bindings), args, valid.start, valid.end, rec.depth, score,
                              rec.premises, values])  # flush drops rule-file refs (self.other_refs)
            self.rule_counts[rec.rule] += 1
            self.n += 1
            if len(self.rows) >= _CHUNK:
                self.flush()

    def flush(self) -> None:
        """Resolve the chunk's premises, then write its terms and blocks."""
        from .derived_blocks import blocks_of_rows, write_blocks

        rows, self.rows = self.rows, []
        known = self.fact_ids
        wanted: set[str] = set()
        for r in rows:  # one pass: check the premises' types, collect asserted ids not yet resolved
            for p in r[11]:
                c = p.__class__
                if c is DerivedRef:
                    continue
                if c is AssertedRef or isinstance(p, AssertedRef):
                    if p.fact_id not in known:
                        wanted.add(p.fact_id)
                elif not isinstance(p, DerivedRef):
                    if self.other_refs:
                        r[11] = tuple(x for x in r[11] if isinstance(x, (AssertedRef, DerivedRef)))
                        continue
                    raise InvalidValueError(f"derived fact d:{r[0]} has a premise that is neither an AssertedRef nor "
                                            f"a DerivedRef: {p!r}")
        unknown = sorted(wanted)
        for k in range(0, len(unknown), _IN):
            part = unknown[k:k + _IN]
            hs = [_fact_hash(p) for p in part]
            marks = ",".join("?" * len(part))
            for fid, h in self.db.execute(f"SELECT fact_id, hash FROM facts WHERE hkey IN ({marks}) AND hash IN ({marks})",
                                          [*map(fact_key, hs), *hs]):
                known[h.hex()] = fid
        max_ref = self.max_ref
        for r in rows:
            codes = []
            for p in r[11]:
                if p.__class__ is DerivedRef or isinstance(p, DerivedRef):
                    n = p.seq
                    if n.__class__ is not int or n < 0:
                        n = _derived_seq(p)  # refuses it
                    if n > max_ref:
                        max_ref = n
                    codes.append(-n - 1)
                else:
                    fid = known.get(p.fact_id.lower())
                    if fid is None:
                        raise LedgerError(f"derived fact d:{r[0]} names premise {p.fact_id[:12]}…, which is not an "
                                          "asserted fact of this ledger")
                    codes.append(fid)
            r[11] = codes
        self.max_ref = max_ref
        pending = self.terms.take_pending()
        if pending:
            self.db.executemany(INSERT_TERM, pending)
        self.block = write_blocks(self.db, self.cid, self.block, blocks_of_rows(rows))

    def finish(self) -> None:
        self.flush()
        if self.max_ref >= self.n:
            raise LedgerError(f"a premise names d:{self.max_ref}, but the closure has {self.n} derived facts")


def _info(row: tuple, stale: bool) -> ClosureInfo:
    cid, h, sys_, val, marker, at, trunc, hit, n, nb, counts = row
    return ClosureInfo(cid, h, AsOf(sys_, val), marker, at, bool(trunc), LimitHit.from_stored(hit), n, nb,
                       tuple((r, c) for r, c in json.loads(counts)), stale)


def _fact_hash(h: str) -> bytes:
    try:
        b = bytes.fromhex(h)
    except (TypeError, ValueError):
        b = b""
    if len(b) != 32:
        raise InvalidValueError(f"not a fact id (64 hex digits): {h!r}")
    return b


def _derived_seq(ref: DerivedRef) -> int:
    if isinstance(ref, DerivedRef) and isinstance(ref.seq, int) and not isinstance(ref.seq, bool) and ref.seq >= 0:
        return ref.seq
    raise InvalidValueError(f"not a derived fact reference (DerivedRef with seq >= 0): {ref!r}")
