"""Sample SpanRecords shared by the rdf tests (every field and edge case of the mapping)."""
from __future__ import annotations

from holokb.core import MAX_TIME, MIN_TIME, Evidence, Fact, Interval, IRI, Literal, SpanRecord
from holokb.core.terms import SKOLEM_PREFIX, XSD_DECIMAL
from holokb.rdf.vocab import evidence_iri

EX = "http://ex.org/"
A, P, B = IRI(EX + "a"), IRI(EX + "p"), IRI(EX + "b")
T0 = 1_767_225_600_000


def canonical(rec: SpanRecord) -> SpanRecord:
    """The form import restores: evidence deduplicated and ordered by evidence node IRI."""
    evs = {evidence_iri(e).value: e for e in rec.evidence}
    return SpanRecord(rec.fact, rec.valid, rec.system, tuple(evs[k] for k in sorted(evs)), rec.span_id)


def sample_records() -> list[SpanRecord]:
    ev1 = Evidence("doc/a.txt", "c1", 0, 12, "cnl", "1.2", 0.75, T0)
    ev2 = Evidence("doc/b.txt", confidence=1.0)
    tricky = Literal('line1\n"quoted" \\ tab\t\u0001 ünï', lang="de-CH")
    return [
        SpanRecord(Fact(A, P, B), Interval(T0, T0 + 1000), Interval(T0, None), (ev1, ev2), "1"),
        SpanRecord(Fact(A, P, B), Interval(T0 + 1000, None), Interval(T0 + 5, T0 + 99), (ev1,), "2"),
        SpanRecord(Fact(A, P, tricky, (("version", Literal("2")), ("graph", IRI(EX + "g")))),
                   Interval.always(), Interval(T0, None), (), "span 3/ü"),
        SpanRecord(Fact(A, IRI(EX + "q"), Literal("1.50", XSD_DECIMAL), polarity="negate"),
                   Interval(MIN_TIME, -1), Interval(-5, None), (ev2,), "4"),
        SpanRecord(Fact(IRI(SKOLEM_PREFIX + "abc"), P, Literal.of(2.5)),
                   Interval(-62135596800001, 253402300800000), Interval(MIN_TIME, MAX_TIME), (), "5"),
    ]
