"""The Ledger: one SQLite file (WAL), the store of record.

>>> import tempfile, os
>>> from holokb.core import IRI, Fact, AsOf
>>> path = os.path.join(tempfile.mkdtemp(), "kb.db")
>>> with Ledger.open(path) as led:
...     with led.batch(at=1000) as b:
...         _ = b.assert_fact(Fact(IRI("http://ex.org/a"), IRI("http://ex.org/p"), IRI("http://ex.org/b")))
...     [v.fact.object.value for v in led.facts(AsOf.latest(), about=IRI("http://ex.org/a"))]
['http://ex.org/b']
"""
from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from ..core.errors import LedgerError, WriterBusyError
from ..core.fact import SpanRecord
from ..core.terms import IRI, Term
from .derived import LedgerDerived
from .dictionary import TermCache
from .marker import change_marker
from .reads import LedgerReads
from .schema import CURRENT_VERSION, check_identity, upgrade
from .writes import Batch, WriteCounts

if TYPE_CHECKING:
    from .plain import StagedPlain


#: Switch: new in-memory ledgers copy a migrated template (off: every migration step runs).
TEMPLATE_MEMORY = True
_TEMPLATE_LOCK = threading.Lock()
_TEMPLATE: tuple[int, sqlite3.Connection] | None = None  # (pid, an in-memory ledger at CURRENT_VERSION)


def _schema_from_template(db: sqlite3.Connection) -> None:
    """Give a new in-memory ledger its schema by copying a migrated template (SQLite's backup API)
    instead of running every migration step: ~7 ms per open otherwise, which a KB per question (the
    text evaluations) pays thousands of times.  One template per process: a forked child builds its
    own (a connection is not carried across fork).  :func:`upgrade` still runs after the copy and
    finds the current version."""
    global _TEMPLATE
    with _TEMPLATE_LOCK:
        if _TEMPLATE is None or _TEMPLATE[0] != os.getpid():
            t = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            t.execute("PRAGMA foreign_keys = ON")
            upgrade(t, path=":memory:")
            _TEMPLATE = (os.getpid(), t)
        _TEMPLATE[1].backup(db)


class Ledger(LedgerDerived, LedgerReads):
    """A bitemporal fact ledger in one SQLite file.  Make one with :meth:`Ledger.open`."""

    def __init__(self, db: sqlite3.Connection, path: str, version: int, timeout_s: float) -> None:
        self._db = db
        self._path = path
        self._version = version
        self._timeout_s = timeout_s
        self._cache = TermCache()
        self._in_batch = False
        self._last_counts = WriteCounts()
        #: Whether the deferred lookup indexes (schema.DEFERRED_INDEXES) are known to exist: None
        #: unknown, False missing (a columnar load left them).  A reader that looks a fact up builds
        #: them first (:meth:`_ensure_indexes`), one that only looks a term up builds terms_canon;
        #: a write transaction builds those it names (all, for a batch).
        self._indexes_ready: bool | None = None
        #: The deferred indexes known to exist while not all do (emptied whenever the flag above is).
        self._have_deferred: frozenset[str] = frozenset()
        self._index_failed_at: int | None = None  # change marker when a build could not take the lock
        self._cache.before_lookup = self._ensure_term_index

    @staticmethod
    def open(path: str | Path, *, timeout_s: float = 5.0) -> "Ledger":
        """Open (creating or migrating) the ledger at ``path``; a second writer waits up to ``timeout_s``."""
        p = str(path)
        try:
            db = sqlite3.connect(p, timeout=timeout_s, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as e:
            raise LedgerError(f"cannot open ledger {p}: {e}") from None
        try:
            db.execute("PRAGMA foreign_keys = ON")
            check_identity(db, path=p)  # before WAL: never convert someone else's file
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal" and p != ":memory:":
                raise LedgerError(f"cannot put {p} in WAL mode (got {mode})")
            # NORMAL is crash-safe in WAL mode (a killed process loses no committed batch).
            db.execute("PRAGMA synchronous = NORMAL")
            # TEMP tables (load staging) in a temporary file with a cache large enough that it is
            # rarely written: with temp_store = MEMORY, SQLite's sorter never splits a sort into runs,
            # so CREATE INDEX could not use the helper threads below (see plain.build_indexes).
            db.execute("PRAGMA temp_store = FILE")
            db.execute("PRAGMA temp.cache_size = -262144")
            db.execute("PRAGMA cache_size = -65536")
            db.execute("PRAGMA threads = 2")  # lets CREATE INDEX sort runs on a helper thread
            try:
                if p == ":memory:" and TEMPLATE_MEMORY:
                    _schema_from_template(db)
                version = upgrade(db, path=p)
            except sqlite3.OperationalError as e:
                if "locked" in str(e) or "busy" in str(e):
                    raise WriterBusyError(f"ledger {p} is busy (migration waited {timeout_s}s)") from None
                raise
        except BaseException:
            db.close()
            raise
        return Ledger(db, p, version, timeout_s)

    @property
    def schema_version(self) -> int:
        """The file's schema version (``PRAGMA user_version``)."""
        return self._version

    @property
    def path(self) -> str:
        return self._path

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._db is not None:
            try:
                self._db.execute("PRAGMA optimize")
            except sqlite3.Error:
                pass
            self._db.close()
            self._db = None  # type: ignore[assignment]

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def batch(self, at: int) -> Iterator[Batch]:
        """One write transaction at system time ``at``: all or nothing (an exception rolls it back)."""
        b: Batch | None = None
        with self._transaction() as db:
            try:
                before = db.total_changes
                b = Batch(self, db, at)
                yield b
                if db.total_changes != before:
                    # In the same transaction: a rolled-back batch leaves the marker as it was.
                    db.execute("UPDATE meta SET change_marker = change_marker + 1, system_high = "
                               "CASE WHEN ?1 IS NULL THEN system_high ELSE max(coalesce(system_high, ?1), ?1) END WHERE id = 1",
                               (b.system_max,))
                    if b.system_min is not None:
                        db.execute("INSERT INTO write_log(change_marker, system_min) "
                                   "SELECT change_marker, ? FROM meta WHERE id = 1", (b.system_min,))
            finally:
                if b is not None:
                    b._closed = True
        b._terms.commit_into_cache()  # type: ignore[union-attr]  # after COMMIT: ids minted are real
        self._last_counts = b.counts  # type: ignore[union-attr]

    @property
    def last_counts(self) -> WriteCounts:
        """What the last batch committed through this object did to spans (new / closed / unchanged);
        ``bulk_assert`` and ``bulk_assert_plain`` are batches too."""
        return self._last_counts

    def change_marker(self) -> int:
        """The write sequence number: bumped by every committed batch or bulk load that changed a row."""
        if self._db is None:
            raise LedgerError("the ledger is closed")
        return change_marker(self._db)

    @contextmanager
    def read_transaction(self) -> Iterator[None]:
        """Every read inside sees one committed state (a deferred SQLite transaction; WAL readers never
        block the writer).  Re-entrant: inside a batch or another read it adds nothing."""
        if self._db is None:
            raise LedgerError("the ledger is closed")
        if self._db.in_transaction:
            yield
            return
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            if self._db is not None and self._db.in_transaction:
                self._db.execute("COMMIT")

    @contextmanager
    def _transaction(self, needs: tuple[str, ...] | None = None) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``; any exception rolls back and clears the term cache.
        ``needs``: the deferred lookup indexes (schema.DEFERRED_INDEXES) this write uses, built first
        when missing; None (the default, every batch) means all of them.  A write that only adds
        rows no lookup finds (a stored closure, a rule set) names fewer: a closure interns terms
        (``terms_canon``'s uniqueness) but never looks a fact up, so after a columnar load
        ``holokb derive`` does not pay the three fact indexes (LUBM: ~0.13 s) that nothing it
        does reads."""
        if self._db is None:
            raise LedgerError("the ledger is closed")
        if self._in_batch:
            raise LedgerError("a batch is already open on this ledger (batches do not nest)")
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            if "locked" in str(e) or "busy" in str(e):
                raise WriterBusyError(
                    f"another writer held ledger {self._path} for more than {self._timeout_s}s"
                ) from None
            raise
        self._in_batch = True
        try:
            # A write looks terms and facts up and inserts terms (terms_canon's uniqueness): the
            # deferred indexes first, in this transaction (checked each time in a file: another
            # process may have loaded it columnar since; an in-memory ledger has this connection
            # alone, and the check was a third of an empty batch's ~30 us).
            if not (self._indexes_ready and self._path == ":memory:"):
                self._build_missing(needs)
            yield self._db
            self._db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        finally:
            self._in_batch = False

    def bulk_assert(self, records: Iterable[SpanRecord], *, at: int) -> int:
        """Load many span records in one transaction (the fast path); return the number of spans written.

        A record with no ``span_id`` and the default system interval is asserted at ``at`` (as
        ``Batch.assert_fact``, supersession included); any other record is imported as it is
        (as ``Batch.add_span``).  Into a file without facts, a run of plain records (default
        intervals, no evidence, no qualifiers, affirmed) is staged columnar like
        :meth:`bulk_assert_plain` (same rows); the first other record sends everything through
        the record path.
        """
        from .pipeline import forked_chunks, worth_forking_records
        from .plain import NotPlainRecords, RecordColumns, discard_staged, stage_plain

        self._check_usable()
        cols = RecordColumns(records)
        if isinstance(records, (list, tuple)) and worth_forking_records(len(records)):
            # A forked worker reads (a copy of) the list into columns and hashes them; it fails,
            # and this process then reads the records itself, as soon as one is not plain.
            try:
                staged = stage_plain(self, forked_chunks(cols.complete_chunks), at=at, terms=False)
            except NotPlainRecords:
                staged = None
            if staged is not None:
                return self.write_staged(staged)
        else:
            staged = stage_plain(self, cols.chunks(), at=at)
            if staged is not None and cols.complete:
                return self.write_staged(staged)
            if staged is not None:
                discard_staged(self)
        with self.batch(at) as b:
            b.check_time()
            return b.bulk(cols.remaining())

    def bulk_assert_plain(self, chunks: Iterable[tuple[Sequence[Term], Sequence[int]]], *, at: int) -> int:
        """Assert plain triples given columnar at ``at``; return the number of spans written.

        ``chunks`` yields (terms new in the chunk, flat s, p, o indices into all terms so far).
        The same rows as ``bulk_assert`` of ``Fact(s, p, o)`` records with the default intervals
        (file order, duplicates dropped).  Into a file without facts they are staged while the
        chunks are read, without the write lock, and written under it in one transaction
        (:mod:`holokb.ledger.plain`); foreign-key checks are off for that transaction (every id it
        writes is minted from rows it also writes; tests run ``foreign_key_check``).  An exception
        from ``chunks`` (a syntax error late in a file) leaves the ledger as it was.
        """
        from .plain import stage_plain

        self._check_usable()
        it = iter(chunks)
        staged = stage_plain(self, it, at=at, terms=False)  # Terms are made only if the load falls back
        if staged is None:
            return self._plain_by_records(it, at=at)
        return self.write_staged(staged)

    def write_staged(self, staged: "StagedPlain", *, entities: Iterable[tuple[IRI, Sequence[str]]] = ()) -> int:
        """Write staged plain triples (:func:`holokb.ledger.plain.stage_plain`) in one batch, with the
        ``entities`` (IRI, aliases) they name; the number of spans written.  When another writer
        committed since staging, the triples go through the record path instead (same rows)."""
        from .plain import StagedChanged, plain_records, release_staging

        self._check_usable()
        # A no-op inside a transaction; batch() then refuses to nest anyway.
        self._db.execute("PRAGMA foreign_keys = OFF")
        try:
            with self.batch(staged.at) as b:
                b.check_time()
                n = staged.write(b)
                for iri, aliases in entities:
                    b.add_entity(iri, aliases=aliases)
            return n
        except StagedChanged:
            pass
        finally:
            if self._db is not None:
                self._db.execute("PRAGMA foreign_keys = ON")
                release_staging(self._db)  # committed or rolled back: the staged rows are spent
        with self.batch(staged.at) as b:
            b.check_time()
            n = b.bulk(plain_records(staged.terms, staged.spo))
            for iri, aliases in entities:
                b.add_entity(iri, aliases=aliases)
        return n

    def _plain_by_records(self, it: Iterator[tuple[Sequence[Term], Sequence[int]]], *, at: int) -> int:
        from .plain import plain_records

        terms: list[Term] = []
        spo: list[int] = []
        for new_terms, part in it:
            terms.extend(new_terms)
            spo.extend(part)
        return self.bulk_assert(plain_records(terms, spo), at=at)

    def _ensure_term_index(self) -> None:
        """Before a term is looked up by its encoding: ``terms_canon`` (the fact indexes wait for a
        read of facts by key; a SPARQL snapshot's build looks terms up and scans facts)."""
        self._ensure_indexes(("terms_canon",))

    def _ensure_indexes(self, needs: tuple[str, ...] | None = None) -> None:
        """Build the deferred lookup indexes (schema.DEFERRED_INDEXES) a columnar load left, before a
        read that looks a fact up (``needs``: fewer, for a read that uses fewer; None: all): under
        the write lock, in a transaction of their own
        (waiting up to the open's timeout for another writer), or inside the caller's read
        transaction.  When the lock cannot be had (a read-only file, a busy writer, a read
        transaction that another writer has since overtaken) the read goes on without them: every
        query finds the same rows by a scan, only slower; the next read after a commit tries again.
        Inside a batch it does nothing: the batch built them at its start, or is the load that
        defers them."""
        if self._indexes_ready or self._in_batch or self._db is None:
            return
        if needs is not None and self._have_deferred.issuperset(needs):
            return
        db = self._db
        if self._index_failed_at is not None and self._index_failed_at == change_marker(db):
            return
        try:
            if db.in_transaction:  # a read transaction: building makes it a write (see above)
                self._build_missing(needs)
                return
            db.execute("BEGIN IMMEDIATE")
            try:
                self._build_missing(needs)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                self._indexes_ready = None
                self._have_deferred = frozenset()
                raise
        except sqlite3.OperationalError:
            self._index_failed_at = change_marker(db)

    def _build_missing(self, needs: tuple[str, ...] | None = None) -> None:
        from .schema import DEFERRED_INDEXES, build_indexes, missing_deferred

        missing = missing_deferred(self._db)
        build = missing if needs is None else tuple(x for x in missing if x[0] in needs)
        if build:
            build_indexes(self._db, build)
        left = {name for name, _ in missing} - {name for name, _ in build}
        self._have_deferred = frozenset(DEFERRED_INDEXES) - left
        if not left:
            self._indexes_ready = True
            self._index_failed_at = None

    def _check_usable(self) -> None:
        if self._db is None:
            raise LedgerError("the ledger is closed")
        if self._in_batch:
            raise LedgerError("a batch is already open on this ledger (batches do not nest)")

    def _rollback(self) -> None:
        try:
            self._db.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        # Ids read inside the failed transaction may not exist any more; nor indexes built in it.
        self._cache.clear()
        self._indexes_ready = None
        self._have_deferred = frozenset()


__all__ = ["Ledger", "CURRENT_VERSION"]
