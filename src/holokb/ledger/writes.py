"""Write batches: one SQLite transaction each, all or nothing.

A :class:`Batch` is only made by ``Ledger.batch(at)``; every method runs inside the batch's
``BEGIN IMMEDIATE`` transaction and an exception anywhere rolls the whole batch back.
"""
from __future__ import annotations

import hashlib
import sqlite3
from typing import TYPE_CHECKING, Iterable, Sequence

from dataclasses import dataclass

from ..core.errors import Diagnostic, EvidenceError, InvalidValueError, LedgerError, RetractionError, SystemTimeError
from ..core.fact import Evidence, Fact, SpanRecord, alias_key
from ..core.time import format_ms
from ..core.terms import IRI
from ..core.time import Interval
from .dictionary import TxnTerms
from .sql import (FACT_BY_HASH, INSERT_EVIDENCE, INSERT_FACT, INSERT_QUALIFIER, INSERT_SPAN, evidence_row, fact_key,
                  qualifier_bytes)
from .views import PredicateInfo, span_hash

if TYPE_CHECKING:
    from .derived import StoredClosure
    from .store import Ledger

@dataclass(frozen=True, slots=True)
class WriteCounts:
    """What a batch did to spans: opened, closed, and asserted again without any change.

    ``unchanged`` counts distinct open spans that an assertion found already holding the same
    fact, valid interval and evidence (so reloading an unchanged file reports them all here and
    writes nothing).
    """

    new: int = 0
    closed: int = 0
    unchanged: int = 0


def _same_evidence(stored: Evidence, given: Evidence) -> bool:
    """``given`` says nothing ``stored`` does not: equal fields, and an unset asserted_at matches any."""
    if given.asserted_at is None and stored.asserted_at is not None:
        stored = Evidence(stored.document, stored.chunk, stored.char_start, stored.char_end, stored.extractor,
                          stored.extractor_version, stored.confidence, None)
    return stored == given


def _covers(stored: Sequence[Evidence], given: Sequence[Evidence]) -> bool:
    return all(any(_same_evidence(s, g) for s in stored) for g in given)


class Batch:
    """The writer handed out by ``with ledger.batch(at) as b``; ``at`` is the batch's system time.

    A span is immutable once committed: its fact, valid interval and evidence are its content.
    Asserting what an open span already says (same fact and valid interval, evidence it already
    has) changes nothing and counts as ``unchanged``; asserting it with new evidence closes that
    span at ``at`` and opens one holding the old and the new evidence, so a read at an earlier
    system time still shows only what was known then.  Every system time a batch writes must be
    at or after the latest one already committed (:class:`~holokb.core.SystemTimeError`).
    """

    def __init__(self, ledger: "Ledger", db: sqlite3.Connection, at: int) -> None:
        if not isinstance(at, int) or isinstance(at, bool):
            raise InvalidValueError(f"batch time must be an integer (unix ms), got {at!r}")
        self.at = at
        self._ledger = ledger
        self._db = db
        self._terms = TxnTerms(ledger._cache, db)
        self._facts: dict[bytes, int] = {}
        self._next_fact = db.execute("SELECT coalesce(max(fact_id), 0) FROM facts").fetchone()[0] + 1
        self._next_sid = db.execute("SELECT coalesce(max(sid), 0) FROM spans").fetchone()[0] + 1
        self._started_empty = self._next_sid == 1
        self._functional: set[int] | None = None
        self._chunk_len: dict[tuple[str, str | None], int | None] = {}
        self._doc_chunks: dict[str, bool] = {}
        self._closed = False
        self._high = _system_high(db)
        self.system_min: int | None = None  # earliest / latest system time written (None: none)
        self.system_max: int | None = None
        self._new = 0
        self._closed_spans = 0
        self._unchanged: set[int] = set()

    @property
    def counts(self) -> WriteCounts:
        """Spans opened, closed and re-asserted unchanged so far in this batch."""
        return WriteCounts(self._new, self._closed_spans, len(self._unchanged))

    # -- public writes -------------------------------------------------------------------------

    def assert_fact(self, fact: Fact, *, valid: Interval = Interval.always(), evidence: Sequence[Evidence] = ()) -> str:
        """Assert ``fact`` over ``valid`` at the batch time; return the id (hex) of the open span holding it.

        An open span with the same fact and valid interval that already has this evidence is
        left as it is (``unchanged``); otherwise it is closed at ``at`` and a span with its
        evidence plus the new one opens (see the class doc).
        """
        return self._assert(fact, valid, evidence, supersede=False)

    def supersede(self, fact: Fact, *, valid: Interval = Interval.always(), evidence: Sequence[Evidence] = ()) -> str:
        """Assert ``fact`` and close, at the batch time, the open spans of every *other* value of its
        statement key (subject, predicate, qualifiers) whose valid time overlaps ``valid`` (the
        parts outside ``valid`` reopen with their evidence), as a functional predicate does on
        every assertion.  Returns the id of the span holding ``fact``."""
        return self._assert(fact, valid, evidence, supersede=True)

    def _assert(self, fact: Fact, valid: Interval, evidence: Sequence[Evidence], *, supersede: bool) -> str:
        self._check_open()
        evidence = tuple(evidence)
        self._check_evidence(evidence)
        fid, fhash, stmt, p_id, o_id = self._fact_row(fact)
        if supersede or p_id in self._functional_ids():
            self._supersede(stmt, o_id, self.at, valid)
        return self._open_span(fid, fhash, valid, evidence).hex()

    def _open_span(self, fid: int, fhash: bytes, valid: Interval, evidence: tuple[Evidence, ...]) -> bytes:
        """The content rule of :meth:`assert_fact` for a stored fact row; returns the span hash."""
        rows = self._db.execute(
            "SELECT sid, system_from FROM spans WHERE fact_id = ? AND valid_from = ? AND valid_to IS ? "
            "AND system_to IS NULL ORDER BY sid",
            (fid, valid.start, valid.end),
        ).fetchall()
        carried: list[Evidence] = []
        for sid, sf in rows:
            sh = span_hash(fhash, valid, sf)
            stored = self._evidence_of(sid)
            if sf == self.at:
                # Opened at this very system time (this batch or another at the same instant): the
                # KB learned both at once, so the evidence joins it without changing any history.
                fresh = [e for e in evidence if not _covers(stored, (e,))]
                if fresh:
                    self._touch(self.at)
                    self._add_evidence(sid, sh, fresh, default_at=self.at)
                return sh
            if _covers(stored, evidence):
                self._unchanged.add(sid)
                return sh
            carried.extend(e for e in stored if e not in carried)
        if rows:
            self._close([sid for sid, _ in rows], self.at)
        sh = span_hash(fhash, valid, self.at)
        sid = self._insert_span(sh, fid, valid.start, valid.end, self.at, None)
        self._add_evidence(sid, sh, carried, default_at=None)
        self._add_evidence(sid, sh, [e for e in evidence if not _covers(carried, (e,))], default_at=self.at)
        return sh

    def _evidence_of(self, sid: int) -> list[Evidence]:
        return [Evidence(*r) for r in self._db.execute(
            "SELECT document, chunk, char_start, char_end, extractor, extractor_version, confidence, asserted_at "
            "FROM evidence WHERE sid = ? ORDER BY evidence_id", (sid,))]

    def _close(self, sids: Sequence[int], when: int) -> None:
        """Set ``system_to = when`` on open spans (the only way history changes)."""
        if sids:
            self._touch(when)
            self._db.executemany("UPDATE spans SET system_to = ? WHERE sid = ?", [(when, sid) for sid in sids])
            self._closed_spans += len(sids)

    def check_time(self) -> None:
        """Refuse this batch now if its time lies before the ledger's latest committed write (loads call
        it first, so a load at an earlier time fails even when it would have changed nothing)."""
        self._check_open()
        if self._high is not None and self.at < self._high:
            self._touch(self.at)

    def _touch(self, t: int) -> None:
        """Record that this batch writes system time ``t``; refuse it when it lies before the ledger's
        latest committed write (what the KB believed then is history and stays as recorded)."""
        if self._high is not None and t < self._high:
            msg = (f"system time {format_ms(t)} is before the ledger's latest write at {format_ms(self._high)}; "
                   "history is append-only")
            raise SystemTimeError(msg, (Diagnostic(
                "HK501", msg, hint=f"write at or after {format_ms(self._high)} (e.g. --at {format_ms(self._high)})"),))
        if self.system_min is None or t < self.system_min:
            self.system_min = t
        if self.system_max is None or t > self.system_max:
            self.system_max = t

    def retract(self, fact: Fact, *, at: int | None = None) -> int:
        """Close every open span of ``fact`` at ``at`` (default: the batch time); return how many closed."""
        self._check_open()
        when = self.at if at is None else at
        fhash = bytes.fromhex(fact.id)
        row = self._db.execute(FACT_BY_HASH, (fact_key(fhash), fhash)).fetchone()
        if row is None:
            msg = f"cannot retract a fact that was never asserted: {fact.id[:12]}"
            raise RetractionError(msg, (Diagnostic("HK504", msg, hint="`holokb facts SUBJECT` lists what is held"),))
        open_spans = self._db.execute(
            "SELECT sid, system_from FROM spans WHERE fact_id = ? AND system_to IS NULL", (row[0],)
        ).fetchall()
        for _, sf in open_spans:
            if when <= sf:
                msg = (f"cannot retract fact {fact.id[:12]} at {format_ms(when)}: its open span starts at "
                       f"{format_ms(sf)} (system time)")
                raise RetractionError(msg, (Diagnostic(
                    "HK505", msg, hint=f"retract after {format_ms(sf)}, when the span was recorded"),))
        self._close([sid for sid, _ in open_spans], when)
        return len(open_spans)

    def add_span(self, record: SpanRecord) -> str:
        """Import one exported span as it is (explicit system interval and evidence); return its span id."""
        self._check_open()
        self._check_evidence(record.evidence)
        fid, fhash, _, _, _ = self._fact_row(record.fact)
        sh = span_hash(fhash, record.valid, record.system.start)
        if record.span_id is not None and record.span_id != sh.hex():
            raise LedgerError(
                f"span id {record.span_id[:12]} does not match its content (expected {sh.hex()[:12]})"
            )
        row = self._db.execute(
            "SELECT sid, system_to FROM spans WHERE fact_id = ? AND valid_from = ? AND valid_to IS ? AND system_from = ?",
            (fid, record.valid.start, record.valid.end, record.system.start)).fetchone()
        if row is None:
            sid = self._insert_span(sh, fid, record.valid.start, record.valid.end, record.system.start,
                                    record.system.end)
        else:
            sid, sys_to = row
            if sys_to != record.system.end:
                if sys_to is not None:
                    raise LedgerError(f"span {sh.hex()[:12]} is already closed at {format_ms(sys_to)}, not "
                                      f"{'open' if record.system.end is None else format_ms(record.system.end)}")
                self._close([sid], record.system.end)
            if not _covers(self._evidence_of(sid), record.evidence):
                raise LedgerError(f"span {sh.hex()[:12]} is already stored with other evidence (a span's evidence "
                                  "is part of its content and never changes)")
            return sh.hex()
        self._add_evidence(sid, sh, record.evidence, default_at=None)
        return sh.hex()

    def restore_closure(self, closure: "StoredClosure") -> bool:
        """Store an exported closure in this batch (premises must name facts of the ledger); False when
        the same closure is already stored.  It is fresh only when the batch started from a ledger
        without spans (the export's facts are then all it can see) and it was fresh when exported."""
        self._check_open()
        from .derived import write_closure

        current = self._ledger.closure_info(closure.rule_set_hash, closure.as_of)
        if current is not None and self._ledger.stored_closure(current) == closure:
            return False
        if closure.rule_text is not None:
            row = self._db.execute("SELECT text FROM rule_sets WHERE rule_set_hash = ?",
                                   (closure.rule_set_hash,)).fetchone()
            if row is None:
                self._db.execute("INSERT INTO rule_sets(rule_set_hash, text) VALUES (?, ?)",
                                 (closure.rule_set_hash, closure.rule_text))
            elif row[0] != closure.rule_text:
                raise LedgerError(f"rule set {closure.rule_set_hash[:12]} is already stored with a different text")
        marker = -1
        if self._started_empty and not closure.stale:
            marker = self._db.execute("SELECT change_marker FROM meta WHERE id = 1").fetchone()[0] + 1
        self._terms.flush()
        write_closure(self._db, self._terms, closure.rule_set_hash, closure.as_of, closure.computed_at,
                      closure.derived, closure.truncated, closure.limit_hit, marker)
        return True

    def declare_predicate(self, iri: IRI, *, arity: int = 2, arg_types: Sequence[IRI] = (),
                          functional: bool = False) -> PredicateInfo:
        """Declare (or redeclare) a predicate's arity, argument types and cardinality."""
        self._check_open()
        if arity < 1:
            raise InvalidValueError(f"arity must be >= 1, got {arity}")
        if arg_types and len(arg_types) != arity:
            raise InvalidValueError(f"{len(arg_types)} argument types for arity {arity}")
        tid = self._terms.intern(iri)
        self._db.execute(
            "INSERT OR REPLACE INTO predicates(term_id, arity, arg_types, functional) VALUES (?, ?, ?, ?)",
            (tid, arity, " ".join(t.value for t in arg_types), int(functional)),
        )
        self._functional = None
        return PredicateInfo(iri, arity, tuple(arg_types), bool(functional))

    def add_entity(self, iri: IRI, *, aliases: Iterable[str] = (), kind: str = "") -> None:
        """Record an entity with its kind and aliases (aliases accumulate; a non-empty kind replaces)."""
        self._check_open()
        tid = self._terms.intern(iri)
        self._db.execute("INSERT OR IGNORE INTO entities(term_id, kind) VALUES (?, ?)", (tid, kind))
        if kind:
            self._db.execute("UPDATE entities SET kind = ? WHERE term_id = ?", (kind, tid))
        eid = self._db.execute("SELECT entity_id FROM entities WHERE term_id = ?", (tid,)).fetchone()[0]
        for a in aliases:
            norm = alias_key(a)
            if not norm:
                raise InvalidValueError(f"empty alias for {iri}")
            self._db.execute(
                "INSERT OR IGNORE INTO aliases(entity_id, alias, alias_norm) VALUES (?, ?, ?)", (eid, a, norm)
            )

    def add_document(self, doc_id: str, text: str, *, chunks: Sequence[tuple[str, int, int]] = ()) -> None:
        """Store a document and its chunks (chunk id, start, end offsets into ``text``); chunks get indexed."""
        self._check_open()
        row = self._db.execute("SELECT text FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        if row is None:
            self._db.execute("INSERT INTO documents(doc_id, text) VALUES (?, ?)", (doc_id, text))
        elif row[0] != text:
            raise LedgerError(f"document {doc_id!r} is already stored with a different text")
        for chunk_id, start, end in chunks:
            if not (0 <= start <= end <= len(text)):
                raise LedgerError(f"chunk {chunk_id!r} [{start}, {end}) is outside document {doc_id!r} "
                                  f"(length {len(text)})")
            old = self._db.execute(
                "SELECT char_start, char_end FROM chunks WHERE doc_id = ? AND chunk_id = ?", (doc_id, chunk_id)
            ).fetchone()
            if old is None:
                self._db.execute(
                    "INSERT INTO chunks(doc_id, chunk_id, char_start, char_end, text) VALUES (?, ?, ?, ?, ?)",
                    (doc_id, chunk_id, start, end, text[start:end]),
                )
            elif tuple(old) != (start, end):
                raise LedgerError(f"chunk {chunk_id!r} of {doc_id!r} is already stored as [{old[0]}, {old[1]})")
        self._chunk_len.clear()
        self._doc_chunks.clear()

    # -- bulk ------------------------------------------------------------------------------------

    def bulk(self, records: Iterable[SpanRecord]) -> int:
        """The fast path behind ``Ledger.bulk_assert``: same semantics, rows written with executemany."""
        self._check_open()
        from .bulk import bulk_load
        return bulk_load(self, records)

    # -- internals -------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise LedgerError("this batch has already ended")

    def _functional_ids(self) -> set[int]:
        if self._functional is None:
            self._functional = {r[0] for r in self._db.execute("SELECT term_id FROM predicates WHERE functional = 1")}
        return self._functional

    def _fact_row(self, fact: Fact) -> tuple[int, bytes, tuple, int, int]:
        """(fact rowid, hash, statement key, predicate id, object id), storing the fact when new."""
        intern = self._terms.intern
        s_id, p_id, o_id = intern(fact.subject), intern(fact.predicate), intern(fact.object)
        fhash = bytes.fromhex(fact.id)
        qhash = hashlib.sha256(qualifier_bytes(self._ledger._cache.encoding, fact)).digest() if fact.qualifiers else None
        stmt = (s_id, p_id, qhash)
        fid = self._facts.get(fhash)
        if fid is None:
            hkey = fact_key(fhash)
            row = self._db.execute(FACT_BY_HASH, (hkey, fhash)).fetchone()
            if row is not None:
                fid = row[0]
            else:
                fid = self._next_fact
                self._next_fact += 1
                self._db.execute(INSERT_FACT, (fid, fhash, s_id, p_id, o_id, len(fact.qualifiers),
                                             1 if fact.polarity == "affirm" else 0, qhash, hkey))
                self._db.executemany(INSERT_QUALIFIER, [(fid, k, intern(v)) for k, v in fact.qualifiers])
            self._facts[fhash] = fid
        return fid, fhash, stmt, p_id, o_id

    def _supersede(self, stmt: tuple, o_id: int, at: int, valid: Interval) -> None:
        """Functional predicates: a new value for ``valid`` closes (at system time ``at``) the open spans
        of the same statement key with another value *whose valid time overlaps*; the parts of their
        valid time outside ``valid`` are reopened at ``at`` with the same evidence, so history over
        valid time (where Alice was at 9:00 and at 13:00) is kept while the overlap is superseded."""
        # The statement key (subject, predicate, qualifiers) is (s, p, qhash) in the facts table.
        rows = self._db.execute(
            "SELECT sp.sid, sp.system_from, sp.fact_id, f.hash, sp.valid_from, sp.valid_to "
            "FROM facts f JOIN spans sp ON sp.fact_id = f.fact_id "
            "WHERE f.s = ? AND f.p = ? AND f.qhash IS ? AND f.o != ? AND sp.system_to IS NULL "
            "AND (? IS NULL OR sp.valid_from < ?) AND (sp.valid_to IS NULL OR sp.valid_to > ?) ORDER BY sp.sid",
            (*stmt, o_id, valid.end, valid.end, valid.start),
        ).fetchall()
        if rows:
            self._touch(at)  # before the same-instant check: an earlier time is a SystemTimeError
        for _, sf, *_ in rows:
            if at <= sf:
                msg = f"functional predicate: a different value was asserted at {sf}; cannot supersede it at {at}"
                raise LedgerError(msg, (Diagnostic("HK506", msg, hint="one value per statement key at one system "
                                                   "time: assert the new value in a later batch"),))
        self._close([r[0] for r in rows], at)
        for sid, _, fid, fhash, vf, vt in rows:
            keep = []
            if vf < valid.start:
                keep.append(Interval(vf, valid.start))
            if valid.end is not None and (vt is None or vt > valid.end):
                keep.append(Interval(valid.end, vt))
            if not keep:
                continue
            evidence = self._evidence_of(sid)
            for part in keep:
                sh = span_hash(fhash, part, at)
                new_sid = self._insert_span(sh, fid, part.start, part.end, at, None)
                self._add_evidence(new_sid, sh, evidence, default_at=None)

    def _insert_span(self, sh: bytes, fid: int, vf: int, vt: int | None, sf: int, st: int | None) -> int:
        self._touch(sf)
        if st is not None:
            self._touch(st)
        self._new += 1
        sid = self._next_sid
        try:
            self._db.execute(INSERT_SPAN, (sid, fid, vf, vt, sf, st))
        except sqlite3.IntegrityError as e:
            raise LedgerError(f"span {sh.hex()[:12]} cannot be stored: {e}") from None
        self._next_sid += 1
        return sid

    def _add_evidence(self, sid: int, sh: bytes, evidence: Sequence[Evidence], *, default_at: int | None) -> None:
        if evidence:
            self._db.executemany(INSERT_EVIDENCE, [evidence_row(sid, sh, e, default_at) for e in evidence])

    def _check_evidence(self, evidence: Sequence[Evidence]) -> None:
        """Evidence naming a stored document must name one of its chunks (when it names a chunk), and
        character spans must lie inside the chunk (or document) text.  Evidence about a document
        the ledger does not hold is taken as it is (the source lives elsewhere)."""
        for e in evidence:
            if not isinstance(e, Evidence):
                raise InvalidValueError(f"evidence must be Evidence, got {type(e).__name__}")
            if e.chunk is None and e.char_end is None:
                continue
            key = (e.document, e.chunk)
            if key not in self._chunk_len:
                if e.chunk is not None:
                    row = self._db.execute(
                        "SELECT length(text) FROM chunks WHERE doc_id = ? AND chunk_id = ?", key
                    ).fetchone()
                    if row is None and self._document_stored(e.document):
                        known = [r[0] for r in self._db.execute(
                            "SELECT chunk_id FROM chunks WHERE doc_id = ? ORDER BY cid", (e.document,))]
                        msg = f"evidence names chunk {e.chunk!r}, which document {e.document!r} does not have"
                        raise EvidenceError(msg, (Diagnostic("HK502", msg, hint=_did_you_mean(e.chunk, known)),),
                                            document=e.document, chunk=e.chunk)
                else:
                    row = self._db.execute("SELECT length(text) FROM documents WHERE doc_id = ?",
                                           (e.document,)).fetchone()
                self._chunk_len[key] = None if row is None else row[0]
            n = self._chunk_len[key]
            if n is not None and e.char_end is not None and e.char_end > n:
                where = f"chunk {e.chunk!r} of {e.document!r}" if e.chunk is not None else f"document {e.document!r}"
                msg = f"evidence span [{e.char_start}, {e.char_end}) lies outside {where} (length {n})"
                raise EvidenceError(msg, (Diagnostic("HK503", msg),))

    def _document_stored(self, doc_id: str) -> bool:
        hit = self._doc_chunks.get(doc_id)
        if hit is None:
            hit = self._doc_chunks[doc_id] = self._db.execute(
                "SELECT 1 FROM documents WHERE doc_id = ?", (doc_id,)).fetchone() is not None
        return hit


def _system_high(db: sqlite3.Connection) -> int | None:
    """The latest system time a committed write used (None: none yet, or a file older than v5)."""
    try:
        row = db.execute("SELECT system_high FROM meta WHERE id = 1").fetchone()
    except sqlite3.OperationalError:  # a pre-v5 file being built or migrated
        return None
    return None if row is None else row[0]


def _did_you_mean(word: str, known: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, known, n=1, cutoff=0.5)
    if close:
        return f"did you mean {close[0]!r}?"
    shown = ", ".join(repr(k) for k in known[:8]) + (" …" if len(known) > 8 else "")
    return f"its chunks are {shown}" if known else "the document has no chunks"
