"""Loading plain triples, given columnar, in two steps: staged without the write lock, then
written under it.

:func:`stage_plain` reads the chunks (the parser runs while a writer thread inserts each chunk's
term, fact and span rows into connection-private TEMP tables, so parsing and SQLite overlap on
two cores) and keeps the triples for the shapes gate; no other writer waits meanwhile.
:meth:`StagedPlain.write` then runs inside a batch: it checks that nothing was committed since
staging, copies the staged rows into the ledger with one ``INSERT … SELECT`` per table, and
builds the indexes once.  The rows are exactly those ``Batch.bulk`` writes for the same triples
as SpanRecords with the default intervals: term ids by first occurrence of a canonical
encoding in (s, p, o) order, fact ids = span ids by first occurrence of a fact, one open span
``[at, open)`` valid always per distinct fact.

The fast path needs a ledger without facts, with at most ``_PRELOAD_MAX`` terms and without
functional predicates; :func:`stage_plain` returns None (before reading anything) otherwise.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from ..core.errors import LedgerError
from ..core.fact import Fact, SpanRecord, encode_term
from ..core.terms import IRI, Term
from ..core.time import MIN_TIME, Interval
from .schema import BULK_INDEXES
from .sql import FACT_MAGIC
from .views import term_row

if TYPE_CHECKING:
    from .store import Ledger
    from .writes import Batch

PlainChunk = tuple[Sequence[Term], Sequence[int]]
"""(terms new in this chunk, flat s, p, o indices into all terms so far)."""

_PRELOAD_MAX = 200_000  # existing terms read into memory so a fresh load need not query them
_STAGE = ("plain_terms", "plain_facts")
_STAGE_DDL = (
    "CREATE TEMP TABLE IF NOT EXISTS plain_terms (term_id INTEGER PRIMARY KEY, kind INTEGER, lexical TEXT, "
    "datatype TEXT, lang TEXT, canon BLOB)",
    "CREATE TEMP TABLE IF NOT EXISTS plain_facts (fact_id INTEGER PRIMARY KEY, hash BLOB, s INTEGER, p INTEGER, "
    "o INTEGER)",
)
#: Fact k of a chunk (id ``?1 + k``): its hash sliced from one blob, [s, p, o] from one JSON array.
_STAGE_FACTS = (
    "INSERT INTO temp.plain_facts(fact_id, hash, s, p, o) "
    "SELECT ?1 + key, substr(?2, key * 32 + 1, 32), value ->> 0, value ->> 1, value ->> 2 FROM json_each(?3)"
)


class StagedChanged(LedgerError):
    """Another writer committed between staging and writing: the staged ids are no longer free."""


@dataclass(eq=False)
class StagedPlain:
    """Plain triples parsed and staged, ready to be written at ``at`` (see the module doc)."""

    at: int
    marker: int
    first_term: int
    first_fact: int
    terms: list[Term] = field(default_factory=list)
    spo: list[int] = field(default_factory=list)
    canon_ids: dict[bytes, int] = field(default_factory=dict)
    new_terms: dict[Term, int] = field(default_factory=dict)
    facts: int = 0
    next_term: int = 0

    def write(self, b: "Batch") -> int:
        """Copy the staged rows into the ledger inside batch ``b``; the number of spans written."""
        db = b._db
        if b.at != self.at:
            raise LedgerError(f"staged at {self.at}, written at {b.at}")
        now = db.execute("SELECT change_marker FROM meta WHERE id = 1").fetchone()[0]
        next_term = db.execute("SELECT coalesce(max(term_id), 0) FROM terms").fetchone()[0] + 1
        has_facts = db.execute("SELECT 1 FROM facts LIMIT 1").fetchone() is not None
        if now != self.marker or next_term != self.first_term or has_facts or b._functional_ids():
            raise StagedChanged("the ledger changed while the load was parsed")
        if self.facts:
            b._touch(self.at)
        for name, _ in BULK_INDEXES:
            db.execute(f"DROP INDEX IF EXISTS {name}")
        try:
            db.execute("INSERT INTO main.terms(term_id, kind, lexical, datatype, lang, canon) "
                       "SELECT term_id, kind, lexical, datatype, lang, canon FROM temp.plain_terms")
            db.execute("INSERT INTO main.facts(fact_id, hash, s, p, o, nq, polarity, qhash) "
                       "SELECT fact_id, hash, s, p, o, 0, 1, NULL FROM temp.plain_facts")
            # One open span per fact, sid = fact id, valid always, recorded from ``at``.
            db.execute("INSERT INTO main.spans(sid, fact_id, valid_from, valid_to, system_from, system_to) "
                       "SELECT fact_id, fact_id, ?, NULL, ?, NULL FROM temp.plain_facts", (MIN_TIME, self.at))
        except sqlite3.IntegrityError as e:
            raise LedgerError(f"bulk load rejected: {e}") from None
        for _, sql in BULK_INDEXES:
            db.execute(sql)
        _clear(db)
        b._terms.adopt(self.new_terms, self.canon_ids, self.next_term)
        b._next_fact = b._next_sid = self.first_fact + self.facts
        b._new += self.facts
        return self.facts


def discard_staged(led: "Ledger") -> None:
    """Drop what :func:`stage_plain` staged (a gate refused the load)."""
    if led._db is not None:
        _clear(led._db)


def _clear(db: sqlite3.Connection) -> None:
    for t in _STAGE:
        db.execute(f"DELETE FROM temp.{t}")


def stage_plain(led: "Ledger", chunks: Iterator[PlainChunk], *, at: int) -> StagedPlain | None:
    """Parse and stage ``chunks`` without the write lock; None (nothing read) when the ledger needs
    the general path.  An exception from ``chunks`` leaves the ledger untouched."""
    db = led._db
    if db.execute("SELECT 1 FROM facts LIMIT 1").fetchone() is not None:
        return None
    if db.execute("SELECT 1 FROM predicates WHERE functional = 1 LIMIT 1").fetchone() is not None:
        return None
    if db.execute("SELECT count(*) FROM terms").fetchone()[0] > _PRELOAD_MAX:
        return None
    marker = db.execute("SELECT change_marker FROM meta WHERE id = 1").fetchone()[0]
    first_term = db.execute("SELECT coalesce(max(term_id), 0) FROM terms").fetchone()[0] + 1
    first_fact = db.execute("SELECT coalesce(max(fact_id), 0) FROM facts").fetchone()[0] + 1
    if first_fact != db.execute("SELECT coalesce(max(sid), 0) FROM spans").fetchone()[0] + 1:
        return None  # one counter numbers facts and spans below
    staged = StagedPlain(at, marker, first_term, first_fact)
    by_canon = staged.canon_ids
    for tid, canon in db.execute("SELECT term_id, canon FROM terms"):
        by_canon[canon] = tid
    for ddl in _STAGE_DDL:
        db.execute(ddl)
    _clear(db)
    try:
        _stage(db, staged, chunks)
    except BaseException:
        _clear(db)
        raise
    return staged


def _stage(db: sqlite3.Connection, staged: StagedPlain, chunks: Iterator[PlainChunk]) -> None:
    terms, spo_all = staged.terms, staged.spo
    by_canon, new = staged.canon_ids, staged.new_terms
    canon: list[bytes] = []
    tid: list[int] = []
    term_rows: list[tuple] = []
    next_id = staged.first_term

    def assign(i: int) -> int:
        nonlocal next_id
        c = canon[i]
        t = by_canon.get(c)
        if t is None:
            t = by_canon[c] = next_id
            next_id += 1
            term_rows.append((t, *term_row(terms[i]), c))
        tid[i] = t
        new[terms[i]] = t
        return t

    def write(rows: list[tuple], first: int, hashes: list[bytes], spo: list[tuple[int, int, int]]) -> None:
        # One statement per table and chunk: sqlite3 holds the GIL only to bind a few large
        # parameters, so the insert overlaps with the next chunk's parse.
        if rows:
            db.executemany("INSERT INTO temp.plain_terms VALUES (?, ?, ?, ?, ?, ?)", rows)
        if hashes:
            db.execute(_STAGE_FACTS, (first, b"".join(hashes), json.dumps(spo)))

    seen: set[bytes] = set()
    sha = hashlib.sha256
    # Every plain fact has no qualifiers and affirms.
    fact_tail = b"\x00\x00\x00\x00\x01"
    fid = staged.first_fact
    with ThreadPoolExecutor(max_workers=1) as writer:
        pending = None
        try:
            for new_terms, spo in chunks:
                terms.extend(new_terms)
                spo_all.extend(spo)
                canon.extend(encode_term(t) for t in new_terms)
                tid.extend([0] * len(new_terms))
                first = fid
                hashes: list[bytes] = []
                ids: list[tuple[int, int, int]] = []
                it = iter(spo)
                for si, pi, oi in zip(it, it, it):
                    # Terms are interned before the duplicate check, as the record path does.
                    spo_ids = (tid[si] or assign(si), tid[pi] or assign(pi), tid[oi] or assign(oi))
                    fh = sha(FACT_MAGIC + canon[si] + canon[pi] + canon[oi] + fact_tail).digest()
                    if fh in seen:
                        continue
                    seen.add(fh)
                    fid += 1
                    hashes.append(fh)
                    ids.append(spo_ids)
                if pending is not None:
                    pending.result()
                pending = writer.submit(write, term_rows, first, hashes, ids)
                term_rows = []
        finally:
            # Never leave the writer running into a rollback (the executor's exit waits too).
            if pending is not None:
                pending.result()
    staged.facts = fid - staged.first_fact
    staged.next_term = next_id


def plain_records(terms: Sequence[Term], spo: Sequence[int]) -> Iterator[SpanRecord]:
    """The SpanRecords of columnar plain triples (file order, exact duplicates dropped), for the general path."""
    always = Interval.always()
    seen: set[tuple] = set()
    it = iter(spo)
    for si, pi, oi in zip(it, it, it):
        s, p, o = terms[si], terms[pi], terms[oi]
        key = (s, p, o)
        if key not in seen:
            seen.add(key)
            yield SpanRecord(Fact(s, p, o), always, always)  # type: ignore[arg-type]


class RecordColumns:
    """SpanRecords as columnar plain chunks while they are plain (default intervals, no evidence,
    no qualifiers, affirmed, no span id); :attr:`complete` says whether every record was.
    :meth:`remaining` gives back every record, read or not, for the record path."""

    def __init__(self, records: Iterable[SpanRecord], *, chunk: int = 20_000):
        self._it = iter(records)
        self._kept: list[SpanRecord] = []
        self._chunk = chunk
        self.complete = False

    def chunks(self) -> Iterator[PlainChunk]:
        index: dict[object, int] = {}
        terms: list[Term] = []
        spo: list[int] = []
        shipped = 0
        kept = self._kept
        get = index.get
        step = 3 * self._chunk
        for rec in self._it:
            kept.append(rec)
            f = rec.fact
            valid, system = rec.valid, rec.system
            if (rec.evidence or rec.span_id is not None or f.qualifiers or f.polarity != "affirm"
                    or valid.start != MIN_TIME or valid.end is not None
                    or system.start != MIN_TIME or system.end is not None):
                return  # not plain: the caller takes the record path for everything
            for t in (f.subject, f.predicate, f.object):
                # IRIs keyed by their string (its hash is cached); the frozen dataclass rehashes.
                key = t.value if t.__class__ is IRI else t
                i = get(key)
                if i is None:
                    i = index[key] = len(terms)
                    terms.append(t)
                spo.append(i)
            if len(spo) >= step:
                yield terms[shipped:], spo
                shipped, spo = len(terms), []
        self.complete = True
        if spo or not shipped:
            yield terms[shipped:], spo

    def remaining(self) -> Iterator[SpanRecord]:
        yield from self._kept
        yield from self._it
