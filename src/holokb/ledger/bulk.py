"""The bulk loader behind ``Ledger.bulk_assert``: same semantics as a batch of asserts, much faster.

Rows are computed in Python with in-memory term/fact caches and written with ``executemany``
in chunks.  Into an empty file the hash and secondary indexes are dropped and built once at the
end.  (A writer thread overlapping hashing with inserting was measured no faster on 2 cores.)
Rare records (functional predicates, re-imported spans) take the general ``Batch`` path after
the pending rows are written.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import struct
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from ..core.errors import LedgerError
from ..core.fact import Fact, SpanRecord, encode_term
from ..core.terms import IRI, Term
from ..core.time import MIN_TIME, Interval
from .schema import BULK_INDEXES
from .views import _SPAN_MAGIC, term_row
from .dictionary import INSERT_TERM as _INS_TERM
from .writes import _INS_EV, _INS_FACT, _INS_QUAL, _INS_SPAN, _MAGIC, _evidence_row, _qual_bytes

#: Fact k of a chunk (id ``?1 + k``): its hash sliced from one blob, [s, p, o] from one JSON array.
_INS_FACTS_JSON = (
    "INSERT INTO facts(fact_id, hash, s, p, o, nq, polarity, qhash) "
    "SELECT ?1 + key, substr(?2, key * 32 + 1, 32), value ->> 0, value ->> 1, value ->> 2, 0, 1, NULL "
    "FROM json_each(?3)"
)
#: Span k of a chunk (sid = fact_id = ``?1 + k``): valid ``[?3, open)``, system ``[?4, open)``.
_INS_SPANS_SEQ = (
    "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < ?5) "
    "INSERT INTO spans(sid, span_id, fact_id, valid_from, valid_to, system_from, system_to) "
    "SELECT ?1 + i, substr(?2, i * 32 + 1, 32), ?1 + i, ?3, NULL, ?4, NULL FROM k"
)
_CHUNK = 20_000  # span rows per executemany chunk
_PRELOAD_MAX = 200_000  # existing terms read into memory so a fresh load need not query them

if TYPE_CHECKING:
    from .writes import Batch


def bulk_load(b: "Batch", records: Iterable[SpanRecord]) -> int:
    """Load ``records`` inside batch ``b``; return the number of spans written."""
    db = b._db
    at = b.at
    terms = b._terms
    intern_encoded = terms.intern_encoded
    encoding = b._ledger._cache.encoding
    functional = b._functional_ids()
    fresh = db.execute("SELECT 1 FROM facts LIMIT 1").fetchone() is None
    dropped = fresh and not functional and terms.preload(_PRELOAD_MAX)
    if dropped:
        for name, _ in BULK_INDEXES:
            db.execute(f"DROP INDEX IF EXISTS {name}")
    facts_new = b._facts
    first_unflushed_fact = b._next_fact
    open_new: dict[tuple[int, int, int | None], tuple[int, bytes]] = {}
    spans_new: set[bytes] = set()
    # Subjects and predicates are IRIs: keyed by their string (str hashes are cached), which
    # is much cheaper than hashing the frozen dataclass on every record.
    iri_local: dict[str, tuple[int, bytes]] = {}
    lit_local: dict[object, tuple[int, bytes]] = {}
    fact_rows: list[tuple] = []
    qual_rows: list[tuple] = []
    span_rows: list[tuple] = []
    ev_rows: list[tuple] = []
    written = 0
    sha = hashlib.sha256
    pack_q = struct.Struct("<q").pack
    no_quals = b"\x00\x00\x00\x00"

    def term(t: object) -> tuple[int, bytes]:
        if t.__class__ is IRI:
            hit = iri_local.get(t.value)  # type: ignore[attr-defined]
            if hit is None:
                hit = iri_local[t.value] = intern_encoded(t)  # type: ignore[attr-defined,arg-type]
            return hit
        hit = lit_local.get(t)
        if hit is None:
            if len(lit_local) > 500_000:
                lit_local.clear()
            hit = lit_local[t] = intern_encoded(t)  # type: ignore[arg-type]
        return hit

    def flush() -> None:
        nonlocal fact_rows, qual_rows, span_rows, ev_rows
        jobs = [(_INS_TERM, terms.take_pending()), (_INS_FACT, fact_rows), (_INS_QUAL, qual_rows),
                (_INS_SPAN, span_rows), (_INS_EV, ev_rows)]
        fact_rows, qual_rows, span_rows, ev_rows = [], [], [], []
        for sql, rows in jobs:
            if rows:
                db.executemany(sql, rows)

    terms.defer = True
    try:
        for rec in records:
            if len(span_rows) >= _CHUNK:
                flush()
            fact = rec.fact
            system = rec.system
            explicit = rec.span_id is not None or system.start != MIN_TIME or system.end is not None
            if rec.evidence:
                b._check_evidence(rec.evidence)
            subj, pred, obj = fact.subject, fact.predicate, fact.object
            hit = iri_local.get(subj.value)
            s_id, es = hit if hit is not None else term(subj)
            hit = iri_local.get(pred.value)
            p_id, ep = hit if hit is not None else term(pred)
            o_id, eo = term(obj)
            qb = _qual_bytes(encoding, fact) if fact.qualifiers else no_quals
            fhash = sha(_MAGIC + es + ep + eo + qb + (b"\x01" if fact.polarity == "affirm" else b"\x00")).digest()
            valid = rec.valid
            vf, vt = valid.start, valid.end
            if explicit:
                end = b"\x00" if vt is None else b"\x01" + pack_q(vt)
                sh = sha(_SPAN_MAGIC + fhash + pack_q(vf) + end + pack_q(system.start)).digest()
                slow = sh in spans_new or (not fresh and db.execute(
                    "SELECT 1 FROM spans WHERE span_id = ?", (sh,)).fetchone() is not None)
            else:
                slow = p_id in functional
            if slow:
                # Supersession and re-imports of known spans take the general path, after the
                # pending rows are written (and with the indexes back, which it relies on).
                flush()
                terms.defer = False
                if dropped:
                    for _, sql in BULK_INDEXES:
                        db.execute(sql)
                    dropped = False
                before = b._next_sid
                if explicit:
                    done = b.add_span(rec)
                else:
                    done = b.assert_fact(fact, valid=valid, evidence=rec.evidence)
                spans_new.add(bytes.fromhex(done))
                terms.defer = True
                open_new.clear()
                first_unflushed_fact = b._next_fact
                written += b._next_sid - before
                continue
            fid = facts_new.get(fhash)
            if fid is None:
                row = None if fresh else db.execute("SELECT fact_id FROM facts WHERE hash = ?", (fhash,)).fetchone()
                if row is not None:
                    fid = row[0]
                else:
                    fid = b._next_fact
                    b._next_fact += 1
                    nq = len(fact.qualifiers)
                    fact_rows.append((fid, fhash, s_id, p_id, o_id, nq, 1 if fact.polarity == "affirm" else 0,
                                      sha(qb).digest() if nq else None))
                    for k, v in fact.qualifiers:
                        qual_rows.append((fid, k, term(v)[0]))
                facts_new[fhash] = fid
            key = (fid, vf, vt)
            if explicit:
                if rec.span_id is not None and rec.span_id != sh.hex():
                    raise LedgerError(
                        f"span id {rec.span_id[:12]} does not match its content (expected {sh.hex()[:12]})")
                sid = b._next_sid
                b._next_sid += 1
                b._touch(system.start)
                if system.end is not None:
                    b._touch(system.end)
                b._new += 1
                span_rows.append((sid, sh, fid, vf, vt, system.start, system.end))
                spans_new.add(sh)
                if system.end is None:
                    open_new.setdefault(key, (sid, sh))
                written += 1
                for e in rec.evidence:
                    ev_rows.append(_evidence_row(sid, sh, e, None))
                continue
            hit = open_new.get(key)
            if hit is None and fid < first_unflushed_fact:
                row = db.execute(
                    "SELECT sid, span_id FROM spans WHERE fact_id = ? AND valid_from = ? AND valid_to IS ? "
                    "AND system_to IS NULL", key,
                ).fetchone()
                if row is not None:
                    if not rec.evidence:
                        b._unchanged.add(row[0])  # an open span already says it
                        continue
                    # Evidence for a span that may predate this batch: the content rule decides.
                    flush()
                    terms.defer = False
                    before = b._next_sid
                    b.assert_fact(fact, valid=valid, evidence=rec.evidence)
                    terms.defer = True
                    open_new.clear()
                    first_unflushed_fact = b._next_fact
                    written += b._next_sid - before
                    continue
            if hit is None:
                end = b"\x00" if vt is None else b"\x01" + pack_q(vt)
                sh = sha(_SPAN_MAGIC + fhash + pack_q(vf) + end + pack_q(at)).digest()
                sid = b._next_sid
                b._next_sid += 1
                b._touch(at)
                b._new += 1
                span_rows.append((sid, sh, fid, vf, vt, at, None))
                spans_new.add(sh)
                hit = open_new[key] = (sid, sh)
                written += 1
            for e in rec.evidence:
                ev_rows.append(_evidence_row(hit[0], hit[1], e, at))
        flush()
        if dropped:
            for _, sql in BULK_INDEXES:
                db.execute(sql)
    except sqlite3.IntegrityError as e:
        raise LedgerError(f"bulk load rejected: {e}") from None
    finally:
        terms.defer = False
    return written


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


PlainChunk = tuple[Sequence[Term], Sequence[int]]
"""(terms new in this chunk, flat s, p, o indices into all terms so far)."""


def bulk_load_plain(b: "Batch", chunks: Iterator[PlainChunk]) -> int | None:
    """Assert plain triples, given columnar in chunks, at the batch time; the number of spans written.

    Returns None without reading ``chunks`` when the ledger needs the general path: it already
    holds facts, has too many terms to preload, or declares functional predicates.  The rows are
    exactly those :func:`bulk_load` writes for the same triples as SpanRecords with the default
    intervals: term ids by first occurrence of a canonical encoding in (s, p, o) order, fact and
    span ids by first occurrence of a fact, one open span ``[at, open)`` valid always per
    distinct fact.  A writer thread inserts chunk ``k`` while chunk ``k + 1`` is parsed and
    hashed: sqlite3 releases the GIL while it steps, so the two overlap on two cores.
    """
    db = b._db
    txn = b._terms
    if b._functional_ids() or db.execute("SELECT 1 FROM facts LIMIT 1").fetchone() is not None:
        return None
    if b._next_fact != b._next_sid:
        return None  # one counter numbers facts and spans below (true for a file without facts)
    if not txn.preload(_PRELOAD_MAX):
        return None
    b._touch(b.at)  # before anything is written: a load before the ledger's latest write is refused
    for name, _ in BULK_INDEXES:
        db.execute(f"DROP INDEX IF EXISTS {name}")
    terms: list[Term] = []
    canon: list[bytes] = []
    tid: list[int] = []
    by_canon = txn.by_canon
    new = txn.new
    term_rows: list[tuple] = []

    def assign(i: int) -> int:
        c = canon[i]
        t = by_canon.get(c)
        if t is None:
            t = by_canon[c] = txn.next_id
            txn.next_id += 1
            term_rows.append((t, *term_row(terms[i]), c))
        tid[i] = t
        new[terms[i]] = t
        return t

    def write(term_rows: list[tuple], first: int, hashes: list[bytes], spans: list[bytes],
              spo: list[tuple[int, int, int]]) -> None:
        # One statement per table and chunk: sqlite3 holds the GIL only to bind a few large
        # parameters, so the whole insert overlaps with the next chunk's parse.  Fact k of the
        # chunk has fact_id = sid = first + k (both counters advance together on this path).
        if term_rows:
            db.executemany(_INS_TERM, term_rows)
        if hashes:
            db.execute(_INS_FACTS_JSON, (first, b"".join(hashes), json.dumps(spo)))
            db.execute(_INS_SPANS_SEQ, (first, b"".join(spans), MIN_TIME, at, len(spans) - 1))

    facts = b._facts
    sha = hashlib.sha256
    at = b.at
    # Every plain fact has no qualifiers and affirms; every span is valid always, open, from ``at``.
    fact_tail = b"\x00\x00\x00\x00\x01"
    span_head = _SPAN_MAGIC
    span_tail = struct.pack("<q", MIN_TIME) + b"\x00" + struct.pack("<q", at)
    fid = first_fid = b._next_fact
    try:
        with ThreadPoolExecutor(max_workers=1) as writer:
            pending = None
            try:
                for new_terms, spo in chunks:
                    terms.extend(new_terms)
                    canon.extend(encode_term(t) for t in new_terms)
                    tid.extend([0] * len(new_terms))
                    first = fid
                    hashes: list[bytes] = []
                    spans: list[bytes] = []
                    ids: list[tuple[int, int, int]] = []
                    it = iter(spo)
                    for si, pi, oi in zip(it, it, it):
                        # Terms are interned before the duplicate check, as the record path does.
                        spo_ids = (tid[si] or assign(si), tid[pi] or assign(pi), tid[oi] or assign(oi))
                        fh = sha(_MAGIC + canon[si] + canon[pi] + canon[oi] + fact_tail).digest()
                        if fh in facts:
                            continue
                        facts[fh] = fid
                        fid += 1
                        hashes.append(fh)
                        spans.append(sha(span_head + fh + span_tail).digest())
                        ids.append(spo_ids)
                    if pending is not None:
                        pending.result()
                    pending = writer.submit(write, term_rows, first, hashes, spans, ids)
                    term_rows = []
            finally:
                # Never leave the writer running into a rollback (the executor's exit waits too).
                if pending is not None:
                    pending.result()
        for _, sql in BULK_INDEXES:
            db.execute(sql)
    except sqlite3.IntegrityError as e:
        raise LedgerError(f"bulk load rejected: {e}") from None
    b._next_fact = b._next_sid = fid
    b._new += fid - first_fid
    return fid - first_fid
