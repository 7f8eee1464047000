"""Loading plain triples, given columnar, in two steps: staged without the write lock, then
written under it.

:func:`stage_plain` reads the chunks (the parser runs while a writer thread inserts each chunk's
term and fact rows into connection-private staging tables (an attached in-memory database), so parsing and SQLite overlap on
two cores) and keeps the triples for the shapes gate; no other writer waits meanwhile.
:meth:`StagedPlain.write` then runs inside a batch: it checks that nothing was committed since
staging, copies the staged rows into the ledger with one ``INSERT … SELECT`` per table, and
builds the indexes its rows need once (the lookup indexes wait for their first use:
``schema.DEFERRED_INDEXES``).  The rows are exactly those ``Batch.bulk`` writes for the same triples
as SpanRecords with the default intervals: term ids by first occurrence of a canonical
encoding in (s, p, o) order, fact ids = span ids by first occurrence of a fact, one open span
``[at, open)`` valid always per distinct fact.

The fast path needs a ledger without facts, with at most ``_PRELOAD_MAX`` terms and without
functional predicates; :func:`stage_plain` returns None (before reading anything) otherwise.
"""
from __future__ import annotations

import re
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from ..core.errors import LedgerError
from ..core.fact import Fact, SpanRecord
from ..core.terms import IRI, Literal, Term
from ..core.time import MIN_TIME, Interval
from .canon import canon_of
from ..core.arrays import distinct
from .pipeline import fact_hashes, unpack_term, unpack_terms
from .schema import BULK_INDEXES, DEFERRED_INDEXES, build_indexes
from .views import term_row

if TYPE_CHECKING:
    import numpy as np

    from .store import Ledger
    from .writes import Batch

PlainChunk = tuple[Sequence[Term], Sequence[int]]
"""(terms new in this chunk, flat s, p, o indices into all terms so far)."""

_PRELOAD_MAX = 200_000  # existing terms read into memory so a fresh load need not query them
_STAGE = ("plain_terms", "plain_facts")
#: The staging tables live in an attached in-memory database, not in TEMP: the connection keeps
#: ``temp_store = FILE`` so that SQLite's sorter can split CREATE INDEX into runs sorted on helper
#: threads (with TEMP in memory it sorts everything on the calling thread), and TEMP tables in a
#: file cost the staging inserts ~2.5x (1M facts: 2.4 -> 6.3 s CPU).
STAGING_DB = "holokb_stage"
_ROWS_PER_INSERT = 500  # rows per multi-row INSERT (one statement binds 500 rows: far fewer steps)
#: Triples keyed by one int64 of their three term ids while the ids fit in 21 bits each.
_KEY_BITS = 21
_REFERENCES = re.compile(r"\bREFERENCES\s+\w+\s*\(\w+\)(?:\s+ON\s+DELETE\s+CASCADE)?", re.I)


class NotPlainRecords(Exception):
    """A record that is not plain ended :meth:`RecordColumns.complete_chunks` (the record path takes them all)."""


class StagedChanged(LedgerError):
    """Another writer committed between staging and writing: the staged ids are no longer free."""


@dataclass(eq=False)
class StagedPlain:
    """Plain triples parsed and staged, ready to be written at ``at`` (see the module doc)."""

    at: int
    marker: int
    first_term: int
    first_fact: int
    #: The terms by index as staged: Terms, or packed by the forked worker (ledger.pipeline) until
    #: :attr:`terms` is first read.
    raw_terms: list = field(default_factory=list)
    spo: list[int] = field(default_factory=list)
    canon_ids: dict[bytes, int] = field(default_factory=dict)
    facts: int = 0
    next_term: int = 0
    #: The distinct triples as rows of term indices (file order), when no two term indices share a
    #: term id (then distinct ids are distinct indices and the gate need not deduplicate again).
    unique_rows: "np.ndarray | None" = None
    _packed: bool = False
    eager_terms: bool = True

    @property
    def terms(self) -> list[Term]:
        """Every staged term by index (term index -> Term)."""
        if self._packed:
            unpack_terms(self.raw_terms)
            self._packed = False
        return self.raw_terms

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
            # The staging tables are copies of these (see _stage_tables) and the indexes are
            # dropped: SQLite then copies records without decoding them (its transfer optimisation).
            db.execute("INSERT INTO main.terms SELECT * FROM holokb_stage.plain_terms")
            db.execute("INSERT INTO main.facts SELECT * FROM holokb_stage.plain_facts")
            # The spans arrive in spans_key order (fact id ascending, one span each): appending to the
            # index while copying is cheaper than sorting them after (1M: ~0.12 s CPU less).
            db.execute(dict(BULK_INDEXES)["spans_key"])
            # One open span per fact, sid = fact id, valid always, recorded from ``at``.
            db.execute("INSERT INTO main.spans(sid, fact_id, valid_from, valid_to, system_from, system_to) "
                       "SELECT fact_id, fact_id, ?, NULL, ?, NULL FROM holokb_stage.plain_facts", (MIN_TIME, self.at))
        except sqlite3.IntegrityError as e:
            raise LedgerError(f"bulk load rejected: {e}") from None
        # The lookup indexes are left to the first write or keyed read (schema.DEFERRED_INDEXES):
        # the load's rows need none of them, and a scan-only reader never does.
        build_indexes(db, tuple(x for x in BULK_INDEXES if x[0] not in DEFERRED_INDEXES))
        b._ledger._indexes_ready = False
        b._ledger._have_deferred = frozenset()
        # The staging is released after COMMIT (Ledger.write_staged): emptying it here held the
        # lock ~0.15 s longer at 1M facts, and DETACH outside the transaction is ~10x cheaper.
        # The batch's term -> id cache is left out: hashing every new term object cost more
        # than the lookups it saves (ids are found through ``canon_ids`` or the file).
        b._terms.adopt({}, self.canon_ids, self.next_term)
        b._next_fact = b._next_sid = self.first_fact + self.facts
        b._new += self.facts
        return self.facts


def discard_staged(led: "Ledger") -> None:
    """Drop what :func:`stage_plain` staged (a gate refused the load)."""
    if led._db is not None:
        release_staging(led._db)


def release_staging(db: sqlite3.Connection) -> None:
    """Free the staging database: detached outside a transaction (its memory goes back at once;
    emptying its tables kept every page, ~200 MB after 1M facts, and cost ~10x more), else emptied.
    The next :func:`stage_plain` attaches a new one."""
    if db.in_transaction:
        if staged_rows(db):
            _clear(db)
    elif _is_attached(db):
        try:
            db.execute(f"DETACH DATABASE {STAGING_DB}")
        except sqlite3.OperationalError:  # a statement still reading it: empty it instead
            _clear(db)


def staged_rows(db: sqlite3.Connection) -> int:
    """Rows the staging tables hold on ``db`` (0 when no staging database is attached)."""
    if not _is_attached(db):
        return 0
    have = {r[0] for r in db.execute(f"SELECT name FROM {STAGING_DB}.sqlite_master WHERE type = 'table'")}
    return sum(db.execute(f"SELECT count(*) FROM {STAGING_DB}.{t}").fetchone()[0] for t in _STAGE if t in have)


def _is_attached(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM pragma_database_list WHERE name = ?", (STAGING_DB,)).fetchone() is not None


def _clear(db: sqlite3.Connection) -> None:
    for t in _STAGE:
        db.execute(f"DELETE FROM {STAGING_DB}.{t}")


def stage_plain(led: "Ledger", chunks: Iterator[PlainChunk], *, at: int, terms: bool = True) -> StagedPlain | None:
    """Parse and stage ``chunks`` without the write lock; None (nothing read) when the ledger needs
    the general path.  An exception from ``chunks`` leaves the ledger untouched.  ``terms``: the
    caller reads :attr:`StagedPlain.terms` (a gate does): they are made while the chunks are read,
    beside the forked worker, rather than on first read."""
    db = led._db
    if db.execute("SELECT 1 FROM facts LIMIT 1").fetchone() is not None:
        return None
    if not _attached(db):
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
    staged.eager_terms = terms
    by_canon = staged.canon_ids
    for tid, canon in db.execute("SELECT term_id, canon FROM terms"):
        by_canon[canon] = tid
    _stage_tables(db)
    try:
        _stage(db, staged, chunks)
    except BaseException:
        release_staging(db)
        raise
    return staged


def _attached(db: sqlite3.Connection) -> bool:
    """Whether the staging database is attached to ``db`` (attached now if need be; ATTACH is
    refused inside a transaction, and the general path is taken then)."""
    if _is_attached(db):
        return True
    if db.in_transaction:
        return False
    db.execute(f"ATTACH DATABASE ':memory:' AS {STAGING_DB}")
    return True


def _stage_tables(db: sqlite3.Connection) -> None:
    """Empty staging tables defined exactly as ``terms`` and ``facts`` (same columns, types and
    checks, no indexes), so that copying them into the ledger is a record transfer."""
    for stage, table in zip(_STAGE, ("terms", "facts")):
        ddl = db.execute("SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()[0]
        cols = [r[1] for r in db.execute(f"PRAGMA main.table_info({table})")]
        have = [r[1] for r in db.execute(f"PRAGMA {STAGING_DB}.table_info({stage})")]
        if have != cols:  # absent, or left by an older schema on this connection
            db.execute(f"DROP TABLE IF EXISTS {STAGING_DB}.{stage}")
            # Foreign keys would name staging tables; the copy runs with them off (write_staged).
            db.execute(f"CREATE TABLE {STAGING_DB}.{stage}" + _REFERENCES.sub("", ddl[ddl.index("("):]))
    _clear(db)


def _insert_rows(db: sqlite3.Connection, table: str, row: str, flat: list, width: int) -> None:
    """Insert ``flat`` (``width`` parameters a row) with multi-row ``INSERT … VALUES``: binding a
    row costs far less than stepping a statement, which executemany does per row."""
    per = _ROWS_PER_INSERT * width
    full = len(flat) - len(flat) % per
    if full:
        db.executemany(f"INSERT INTO {STAGING_DB}.{table} VALUES " + ",".join([row] * _ROWS_PER_INSERT),
                       [flat[i:i + per] for i in range(0, full, per)])
    if full < len(flat):
        db.execute(f"INSERT INTO {STAGING_DB}.{table} VALUES " + ",".join([row] * ((len(flat) - full) // width)), flat[full:])


def _stage(db: sqlite3.Connection, staged: StagedPlain, chunks: Iterator[PlainChunk]) -> None:
    import numpy as np

    terms, spo_all = staged.raw_terms, staged.spo
    eager = staged.eager_terms
    fields = [] if eager else terms  # by index, as staging reads them (packed where the worker packed them)
    by_canon = staged.canon_ids
    canon: list[bytes] = []          # by term index
    tid = np.zeros(0, dtype=np.int64)  # term index -> term id (0: not yet assigned)
    next_id = staged.first_term
    seen: set = set()  # keys of the facts staged so far
    wide = False  # keys are tuples (ids past _KEY_BITS), not ints
    fid = staged.first_fact
    kept_rows: list = []  # per chunk, the kept triples as term-index rows

    def write(term_rows: list, fact_rows: list) -> None:
        # sqlite3 holds the GIL only to bind parameters, so the inserts overlap the next chunk's parse.
        if term_rows:
            _insert_rows(db, "plain_terms", "(?,?,?,?,?,?)", term_rows, 6)
        if fact_rows:
            _insert_rows(db, "plain_facts", "(?,?,?,?,?,0,1,NULL,?)", fact_rows, 6)

    with ThreadPoolExecutor(max_workers=1) as writer:
        pending = None
        try:
            for chunk in chunks:
                new_terms, spo = chunk[0], chunk[1]
                spo_all.extend(spo)
                # A HashedChunk (ledger.pipeline) brings the encodings, every triple's hash (or
                # None: hashed below, kept facts only) and the terms packed (an IRI as its
                # string, a Literal as (lexical, datatype, lang)).
                hashed = len(chunk) > 2
                if eager:
                    fields.extend(new_terms)
                    terms.extend(map(unpack_term, new_terms) if hashed else new_terms)
                else:
                    terms.extend(new_terms)
                    staged._packed |= hashed
                canon.extend(chunk[2] if hashed else map(canon_of, new_terms))
                if len(tid) < len(terms):
                    tid = np.concatenate((tid, np.zeros(len(terms) - len(tid), dtype=np.int64)))
                a = np.asarray(spo, dtype=np.int64)
                ids = tid[a]
                term_rows: list = []
                unset = ids == 0
                if unset.any():
                    # Ids in order of first occurrence (s, p, o per triple), as the record path interns.
                    missing = a[unset]
                    u, first = np.unique(missing, return_index=True)
                    order = u[np.argsort(first, kind="stable")].tolist()
                    got, next_id = _new_term_ids(order, canon, fields, by_canon, next_id, term_rows)
                    tid[order] = got
                    ids = tid[a]
                rows = ids.reshape(-1, 3)
                if next_id < 1 << _KEY_BITS:
                    keys = (rows[:, 0] << (2 * _KEY_BITS)) | (rows[:, 1] << _KEY_BITS) | rows[:, 2]
                    _, first = np.unique(keys, return_index=True)
                    first.sort()
                    firsts = keys[first].tolist()
                    if seen.isdisjoint(firsts):  # the usual case, tested in one C loop
                        kept = first
                    else:
                        kept = first[np.asarray([k not in seen for k in firsts], dtype=bool)]
                    seen.update(firsts)
                else:  # very many terms: tuples of ids (slower, any size)
                    if not wide:
                        wide, mask = True, (1 << _KEY_BITS) - 1
                        seen = {(k >> (2 * _KEY_BITS), (k >> _KEY_BITS) & mask, k & mask) for k in seen}
                    kept_l = []
                    for k, key in enumerate(zip(*(rows[:, c].tolist() for c in range(3)))):
                        if key not in seen:
                            seen.add(key)
                            kept_l.append(k)
                    kept = np.asarray(kept_l, dtype=np.int64)
                fact_rows: list = []
                if len(kept):
                    # 1-D columns to lists (a 2-D tolist builds a list per row).
                    # facts.hkey (sql.fact_key) of every hash at once: the first 8 of each 32 bytes.
                    every = chunk[3] if hashed else None
                    if every is not None:
                        hashes = [every[k:k + 32] for k in (kept * 32).tolist()]
                        hkeys = np.frombuffer(every, dtype=">i8")[::4][kept].tolist()
                    else:
                        hashes = fact_hashes(canon, a.reshape(-1, 3)[kept].ravel().tolist())
                        hkeys = np.frombuffer(b"".join(hashes), dtype=">i8")[::4].tolist()
                    fact_rows = list(chain.from_iterable(zip(
                        range(fid, fid + len(kept)), hashes, *(rows[kept, c].tolist() for c in range(3)), hkeys)))
                    fid += len(kept)
                    kept_rows.append(a.reshape(-1, 3)[kept])
                if pending is not None:
                    pending.result()
                pending = writer.submit(write, term_rows, fact_rows)
        finally:
            # Never leave the writer running into a rollback (the executor's exit waits too).
            if pending is not None:
                pending.result()
    staged.facts = fid - staged.first_fact
    staged.next_term = next_id
    if (tid > 0).all() and len(distinct(tid)) == len(tid):  # term index -> id is one-to-one
        staged.unique_rows = np.concatenate(kept_rows) if kept_rows else np.zeros((0, 3), dtype=np.int64)


def _new_term_ids(order: list[int], canon: list[bytes], terms: list, by_canon: dict[bytes, int], next_id: int,
                  term_rows: list) -> tuple[Sequence[int], int]:
    """The term ids of term indices ``order`` (in that order: first occurrence), minting ids from
    ``next_id`` for encodings not in ``by_canon`` (added there, their terms rows appended to
    ``term_rows``); (ids, the next free id)."""
    cs = [canon[i] for i in order]
    if by_canon.keys().isdisjoint(cs):
        fresh = dict(zip(cs, range(next_id, next_id + len(cs))))
        if len(fresh) == len(cs):
            # The usual case (every encoding new and distinct), with the per-term work in C loops
            # and one comprehension (1M facts, 700k terms: ~1.2 -> ~0.5 s CPU).
            by_canon.update(fresh)
            xs = [terms[i] for i in order]
            term_rows.extend(chain.from_iterable(
                (t, 0, x, "", "", c) if x.__class__ is str else (t, 1, x[0], x[1], x[2] or "", c)
                if x.__class__ is tuple else (t, *term_row(x), c) for t, x, c in zip(fresh.values(), xs, cs)))
            import numpy as np

            return np.arange(next_id, next_id + len(cs), dtype=np.int64), next_id + len(cs)
    got = []
    for i, c in zip(order, cs):
        t = by_canon.get(c)
        if t is None:
            t = by_canon[c] = next_id
            next_id += 1
            x = terms[i]
            if x.__class__ is str:  # packed IRI (ledger.pipeline)
                term_rows.extend((t, 0, x, "", "", c))
            elif x.__class__ is tuple:  # packed Literal
                term_rows.extend((t, 1, x[0], x[1], x[2] or "", c))
            else:
                term_rows.extend((t, *term_row(x), c))
        got.append(t)
    return got, next_id


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
        # A list or tuple is given back whole by :meth:`remaining`: no copy of what was read is kept.
        self._seq = records if isinstance(records, (list, tuple)) else None
        self._it = iter(records)
        self._kept: list[SpanRecord] = []
        self._chunk = chunk
        self.complete = False

    def chunks(self) -> Iterator[PlainChunk]:
        index: dict[object, int] = {}
        terms: list[Term] = []
        spo: list[int] = []
        shipped = 0
        get = index.get
        extend, add_term = spo.extend, terms.append
        it = self._it
        always = Interval.always()
        while True:
            # A block of records at a time: the per-record loop then checks no chunk size.
            block = list(islice(it, self._chunk))
            if not block:
                break
            if self._seq is None:
                self._kept.extend(block)
            for rec in block:
                f = rec.fact
                valid, system = rec.valid, rec.system
                # Records mostly hold the shared Interval.always(): identity first, fields only if not.
                if ((valid is not always and (valid.start != MIN_TIME or valid.end is not None))
                        or (system is not always and (system.start != MIN_TIME or system.end is not None))
                        or rec.evidence or rec.span_id is not None or f.qualifiers or f.polarity != "affirm"):
                    return  # not plain: the caller takes the record path for everything
                # Unrolled over (s, p, o): a loop over a tuple cost ~15% of this method.  IRIs are
                # keyed by their string (its hash is cached; the frozen dataclass rehashes), Literals
                # by their fields (the dataclass's __hash__ and __eq__ are Python calls: ~12% of this
                # method at 100k records, callgrind); a fact's subject and predicate are IRIs.
                sub, pred, obj = f.subject, f.predicate, f.object
                i = get(sub.value)
                if i is None:
                    i = index[sub.value] = len(terms)
                    add_term(sub)
                j = get(pred.value)
                if j is None:
                    j = index[pred.value] = len(terms)
                    add_term(pred)
                c = obj.__class__
                key = obj.value if c is IRI else (obj.lexical, obj.datatype, obj.lang) if c is Literal else obj
                k = get(key)
                if k is None:
                    k = index[key] = len(terms)
                    add_term(obj)
                extend((i, j, k))
            yield terms[shipped:], spo
            shipped, spo = len(terms), []
            extend = spo.extend
        self.complete = True
        if not shipped:
            yield terms, spo

    def complete_chunks(self) -> Iterator[PlainChunk]:
        """:meth:`chunks`, then :class:`NotPlainRecords` unless every record was plain."""
        yield from self.chunks()
        if not self.complete:
            raise NotPlainRecords

    def remaining(self) -> Iterator[SpanRecord]:
        if self._seq is not None:
            yield from self._seq
            return
        yield from self._kept
        yield from self._it
