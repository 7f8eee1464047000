"""The bulk loader behind ``Ledger.bulk_assert``: same semantics as a batch of asserts, much faster.

Rows are computed in Python with in-memory term/fact caches and written with ``executemany``
in chunks.  Into an empty file the hash and secondary indexes are dropped and built once at the
end.  (A writer thread overlapping hashing with inserting was measured no faster on 2 cores.)
Rare records (functional predicates, re-imported spans) take the general ``Batch`` path after
the pending rows are written.
"""
from __future__ import annotations

import hashlib
import sqlite3
import struct
from typing import TYPE_CHECKING, Iterable

from ..core.errors import LedgerError
from ..core.fact import SpanRecord
from ..core.terms import IRI
from ..core.time import MIN_TIME
from .schema import BULK_INDEXES, build_indexes
from .sql import (FACT_BY_HASH, FACT_MAGIC, INSERT_EVIDENCE, INSERT_FACT, INSERT_QUALIFIER, INSERT_SPAN,
                  INSERT_TERM, SPAN_MAGIC, evidence_row, fact_key, qualifier_bytes)

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
        jobs = [(INSERT_TERM, terms.take_pending()), (INSERT_FACT, fact_rows), (INSERT_QUALIFIER, qual_rows),
                (INSERT_SPAN, span_rows), (INSERT_EVIDENCE, ev_rows)]
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
            qb = qualifier_bytes(encoding, fact) if fact.qualifiers else no_quals
            fhash = sha(FACT_MAGIC + es + ep + eo + qb + (b"\x01" if fact.polarity == "affirm" else b"\x00")).digest()
            valid = rec.valid
            vf, vt = valid.start, valid.end
            if explicit:
                end = b"\x00" if vt is None else b"\x01" + pack_q(vt)
                sh = sha(SPAN_MAGIC + fhash + pack_q(vf) + end + pack_q(system.start)).digest()
                slow = sh in spans_new or (not fresh and db.execute(
                    "SELECT 1 FROM facts f JOIN spans sp ON sp.fact_id = f.fact_id WHERE f.hkey = ? AND f.hash = ? "
                    "AND sp.system_from = ? AND sp.valid_from = ? AND sp.valid_to IS ?",
                    (fact_key(fhash), fhash, system.start, vf, vt)).fetchone() is not None)
            else:
                slow = p_id in functional
            if slow:
                # Supersession and re-imports of known spans take the general path, after the
                # pending rows are written (and with the indexes back, which it relies on).
                flush()
                terms.defer = False
                if dropped:
                    build_indexes(db)
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
                hkey = fact_key(fhash)
                row = None if fresh else db.execute(FACT_BY_HASH, (hkey, fhash)).fetchone()
                if row is not None:
                    fid = row[0]
                else:
                    fid = b._next_fact
                    b._next_fact += 1
                    nq = len(fact.qualifiers)
                    fact_rows.append((fid, fhash, s_id, p_id, o_id, nq, 1 if fact.polarity == "affirm" else 0,
                                      sha(qb).digest() if nq else None, hkey))
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
                span_rows.append((sid, fid, vf, vt, system.start, system.end))
                spans_new.add(sh)
                if system.end is None:
                    open_new.setdefault(key, (sid, sh))
                written += 1
                for e in rec.evidence:
                    ev_rows.append(evidence_row(sid, sh, e, None))
                continue
            hit = open_new.get(key)
            if hit is None and fid < first_unflushed_fact:
                row = db.execute(
                    "SELECT sid FROM spans WHERE fact_id = ? AND valid_from = ? AND valid_to IS ? "
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
                sh = sha(SPAN_MAGIC + fhash + pack_q(vf) + end + pack_q(at)).digest()
                sid = b._next_sid
                b._next_sid += 1
                b._touch(at)
                b._new += 1
                span_rows.append((sid, fid, vf, vt, at, None))
                spans_new.add(sh)
                hit = open_new[key] = (sid, sh)
                written += 1
            for e in rec.evidence:
                ev_rows.append(evidence_row(hit[0], hit[1], e, at))
        flush()
        if dropped:
            build_indexes(db)
    except sqlite3.IntegrityError as e:
        raise LedgerError(f"bulk load rejected: {e}") from None
    finally:
        terms.defer = False
    return written
