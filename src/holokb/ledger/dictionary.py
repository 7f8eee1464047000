"""The terms dictionary: term ↔ integer id, with in-memory caches.

Integer ids are also the engine's dictionary encoding.  Two terms with the same canonical
encoding (``core.fact.encode_term``; e.g. string literals differing only in case) share an id
and the first lexical form stored is kept.  Caches only ever hold committed ids: ids minted in
a transaction live in :class:`TxnTerms` until it commits.
"""
from __future__ import annotations

import sqlite3
from typing import Callable, Iterable

from ..core.errors import LedgerError
from .canon import canon_of
from ..core.terms import Term
from .sql import INSERT_TERM
from .views import term_from_row, term_row



#: :meth:`TermCache.terms_of` reads a span of ids in one range scan past this many missing ids.
_RANGE_MIN = 2_000


class TermCache:
    """Committed term ids and canonical encodings, shared by reads and writes of one Ledger."""

    __slots__ = ("ids", "terms", "enc", "before_lookup")

    def __init__(self) -> None:
        self.ids: dict[Term, int] = {}
        self.terms: dict[int, Term] = {}
        self.enc: dict[Term, bytes] = {}
        #: Called before a term is looked up by its encoding in the file (the Ledger builds
        #: its deferred indexes there: ``schema.DEFERRED_INDEXES``).
        self.before_lookup: Callable[[], None] | None = None

    def clear(self) -> None:
        self.ids.clear()
        self.terms.clear()

    def encoding(self, t: Term) -> bytes:
        """The canonical encoding of ``t`` (memoised; it depends on the term only)."""
        e = self.enc.get(t)
        if e is None:
            if len(self.enc) > 2_000_000:
                self.enc.clear()
            e = self.enc[t] = canon_of(t)
        return e

    def lookup(self, db: sqlite3.Connection, t: Term) -> int | None:
        """The id of ``t`` in the file, or None when it was never stored."""
        tid = self.ids.get(t)
        if tid is None:
            if self.before_lookup is not None:
                self.before_lookup()
            row = db.execute("SELECT term_id FROM terms WHERE canon = ?", (self.encoding(t),)).fetchone()
            if row is None:
                return None
            tid = self.ids[t] = row[0]
        return tid

    def term(self, db: sqlite3.Connection, tid: int) -> Term:
        """The term with id ``tid`` (LedgerError when there is none)."""
        t = self.terms.get(tid)
        if t is None:
            row = db.execute("SELECT kind, lexical, datatype, lang FROM terms WHERE term_id = ?", (tid,)).fetchone()
            if row is None:
                raise LedgerError(f"no term with id {tid}")
            t = self.terms[tid] = term_from_row(*row)
            self.ids.setdefault(t, tid)  # and back: a closure writer then interns read terms without a query
        return t

    def terms_of(self, db: sqlite3.Connection, ids: Iterable[int]) -> None:
        """Load many ids into the cache with few queries."""
        missing = sorted({i for i in ids if i not in self.terms})
        if len(missing) > _RANGE_MIN and 4 * len(missing) >= missing[-1] - missing[0] + 1:
            # Most ids of one span (a whole input's terms): one range scan of the primary key, the
            # rows not asked for skipped, instead of a query per 500 ids (LUBM: 54 queries, 26.6k ids).
            want = set(missing)
            q = "SELECT term_id, kind, lexical, datatype, lang FROM terms WHERE term_id BETWEEN ? AND ?"
            for tid, kind, lex, dt, lang in db.execute(q, (missing[0], missing[-1])):
                if tid in want:
                    t = self.terms[tid] = term_from_row(kind, lex, dt, lang)
                    self.ids.setdefault(t, tid)
            return
        for k in range(0, len(missing), 500):
            part = missing[k:k + 500]
            q = f"SELECT term_id, kind, lexical, datatype, lang FROM terms WHERE term_id IN ({','.join('?' * len(part))})"
            for tid, kind, lex, dt, lang in db.execute(q, part):
                t = self.terms[tid] = term_from_row(kind, lex, dt, lang)
                self.ids.setdefault(t, tid)


class TxnTerms:
    """Term interning inside one write transaction (ids minted here are private until commit)."""

    __slots__ = ("cache", "db", "new", "by_canon", "next_id", "pending", "defer", "db_empty")

    def __init__(self, cache: TermCache, db: sqlite3.Connection) -> None:
        self.cache = cache
        self.db = db
        self.new: dict[Term, int] = {}
        self.by_canon: dict[bytes, int] = {}
        self.next_id = (db.execute("SELECT coalesce(max(term_id), 0) FROM terms").fetchone()[0]) + 1
        self.db_empty = self.next_id == 1
        self.pending: list[tuple] = []
        self.defer = False

    def intern(self, t: Term) -> int:
        """The id of ``t``, minting one when the file has no term with its canonical encoding."""
        tid = self.cache.ids.get(t)
        if tid is not None:
            return tid
        tid = self.new.get(t)
        if tid is not None:
            return tid
        return self._resolve(t, self.cache.encoding(t))

    def intern_encoded(self, t: Term) -> tuple[int, bytes]:
        """(id, canonical encoding) of ``t``: the bulk loader's path, one encoding and few lookups."""
        canon = canon_of(t)
        tid = self.cache.ids.get(t)
        return (self._resolve(t, canon) if tid is None else tid), canon

    def _resolve(self, t: Term, canon: bytes) -> int:
        """The id of the term with encoding ``canon``: seen in this transaction, stored, or minted now."""
        tid = self.by_canon.get(canon)
        if tid is None and not self.db_empty:
            row = self.db.execute("SELECT term_id FROM terms WHERE canon = ?", (canon,)).fetchone()
            if row is not None:
                tid = row[0]
        if tid is None:
            tid = self.next_id
            self.next_id += 1
            row = (tid, *term_row(t), canon)
            if self.defer:
                self.pending.append(row)
            else:
                self.db.execute(INSERT_TERM, row)
            self.by_canon[canon] = tid
        self.new[t] = tid
        return tid

    def flush(self) -> None:
        """Write deferred term rows."""
        if self.pending:
            self.db.executemany(INSERT_TERM, self.take_pending())

    def take_pending(self) -> list[tuple]:
        """Hand over the deferred term rows (the caller writes them)."""
        rows, self.pending = self.pending, []
        return rows

    def preload(self, max_terms: int) -> bool:
        """Read every stored term's canonical encoding into memory when there are at most ``max_terms``.

        Afterwards interning never queries the file (which lets a bulk load drop the canon index).
        """
        if self.db_empty:
            return True
        if self.db.execute("SELECT count(*) FROM terms").fetchone()[0] > max_terms:
            return False
        for tid, canon in self.db.execute("SELECT term_id, canon FROM terms"):
            self.by_canon[canon] = tid
        self.db_empty = True
        return True

    def adopt(self, new: dict[Term, int], by_canon: dict[bytes, int], next_id: int) -> None:
        """Take over ids another writer of this transaction minted (the staged plain load)."""
        self.new.update(new)
        self.by_canon.update(by_canon)
        self.next_id = max(self.next_id, next_id)

    def commit_into_cache(self) -> None:
        """After COMMIT: the ids minted here become committed."""
        if len(self.cache.ids) > 2_000_000:
            self.cache.ids.clear()
        self.cache.ids.update(self.new)
