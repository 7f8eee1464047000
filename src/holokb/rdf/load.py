"""Files → SpanRecords → the ledger.  A file with an error anywhere changes nothing: plain triple
files stream into one transaction that the error rolls back; other files are parsed fully
before the ledger is touched."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ..core import Interval, SpanRecord
from ..ledger.pipeline import forked_chunks, worth_forking
from .mapping import Changes, changes_from_quads, records_from_quads
from .parse import NotPlain, Source, parse_quads, plain_chunks, read_source


def read_records(path: str | Path, *, at: int, source_id: str | None = None, format: str | None = None,
                 base_iri: str | None = None, system: Interval | None = None) -> list[SpanRecord]:
    """Parse an RDF file (format from its extension, ``.gz`` allowed) into SpanRecords loaded at ``at``.

    ``source_id`` names the file in diagnostics and salts blank-node skolemisation (default: the
    path as given).  ``base_iri`` resolves relative IRIs; without it they are an error.  Plain
    records get the system interval ``[at, open)``, or ``system`` when given (a ledger's bulk
    path reads ``Interval.always()`` as "assert at the batch time").

    >>> # read_records("kb/tools.trig", at=parse_instant("2026-01-01"))
    """
    src = read_source(path, format=format, base_iri=base_iri, name=source_id)
    return records_from_quads(parse_quads(src), at=at, src=src, system=system)


def read_changes(path: str | Path, *, at: int, source_id: str | None = None, format: str | None = None,
                 base_iri: str | None = None, system: Interval | None = None) -> Changes:
    """:func:`read_records` plus the file's retractions (``hk:retractedAt``) and supersessions
    (``hk:supersedes true``)."""
    src = read_source(path, format=format, base_iri=base_iri, name=source_id)
    return changes_from_quads(parse_quads(src), at=at, src=src, system=system)


def apply_changes(batch: Any, changes: Changes) -> None:
    """Write ``changes`` in ``batch``: records first, then supersessions, retractions and stored closures."""
    batch.bulk(changes.records)
    for r in changes.supersede:
        batch.supersede(r.fact, valid=r.valid, evidence=r.evidence)
    for x in changes.retract:
        batch.retract(x.fact, at=x.at)
    for c in changes.closures:
        batch.restore_closure(c)


def parse_records(text: str | bytes, format: str, *, at: int, name: str = "<input>",
                  base_iri: str | None = None) -> list[SpanRecord]:
    """Parse in-memory RDF (``format``: TURTLE, TRIG, N_TRIPLES, N_QUADS, RDF_XML) into SpanRecords."""
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    src = Source(data, format, name, base_iri)
    return records_from_quads(parse_quads(src), at=at, src=src)


def store_records(ledger: Any, records: list[SpanRecord], *, at: int) -> int:
    """Write parsed records into ``ledger`` in one ``bulk_assert`` transaction; returns the span count.

    Plain records (no span id, system time ``[at, open)``) are handed over with the default
    system interval, which the ledger asserts at ``at`` (functional supersession included);
    records carrying their own history are restored as they are.
    """
    always = Interval.always()

    def handed() -> Iterator[SpanRecord]:
        for r in records:
            if r.span_id is None and r.system.start == at and r.system.end is None:
                yield SpanRecord(r.fact, r.valid, always, r.evidence)
            else:
                yield r

    return ledger.bulk_assert(handed(), at=at)


def import_file(ledger: Any, path: str | Path, *, at: int, source_id: str | None = None,
                format: str | None = None, base_iri: str | None = None) -> int:
    """Store ``path`` in ``ledger`` in one transaction (all or nothing); returns the number of spans written.

    A file of plain default-graph triples streams columnar into ``Ledger.bulk_assert_plain``
    (parsing overlaps writing; the write lock is held meanwhile); any other file is parsed
    completely into SpanRecords first.  Both store the same rows.
    """
    src = read_source(path, format=format, base_iri=base_iri, name=source_id)
    try:
        # Plain triples only (no named graph, no hk: term): columnar, no per-triple objects,
        # parsed while the previous chunk is written; an error anywhere rolls the batch back.
        def chunks() -> Iterator[tuple]:
            return ((c.terms, c.spo) for c in plain_chunks(src))

        # A large file is read and hashed by a forked worker while this process stages (same rows).
        return ledger.bulk_assert_plain(forked_chunks(chunks) if worth_forking(len(src.data)) else chunks(), at=at)
    except NotPlain:
        pass
    # Parse everything before the ledger is touched; plain records go in with the default system
    # interval, which the ledger's bulk path asserts at ``at`` (no re-wrapping pass needed).
    changes = changes_from_quads(parse_quads(src), at=at, src=src, system=Interval.always())
    with ledger.batch(at) as b:
        b.check_time()
        apply_changes(b, changes)
    return ledger.last_counts.new
