"""RecordColumns (span records -> columnar plain chunks) against a plain per-record reading."""
from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from holokb.core import Fact, Interval, SpanRecord
from holokb.core.terms import IRI, Literal
from holokb.core.time import MIN_TIME
from holokb.ledger.plain import RecordColumns

EX = "http://ex.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
SUBJECTS = [IRI(EX + n) for n in ("a", "b", "c")]
PREDICATES = [IRI(EX + n) for n in ("p", "q")]
# Objects that are equal, or only look alike: an IRI and a string with its text, "1" and "01"
# (one value, two terms), a language tag and none, the same lexical form under two datatypes.
OBJECTS = SUBJECTS + [Literal(EX + "a"), Literal("1", XSD + "integer"), Literal("01", XSD + "integer"),
                      Literal("1"), Literal("1", XSD + "decimal"), Literal("hi", lang="en"), Literal("hi"),
                      Literal("hi", lang="EN"), Literal("hi", lang="fr"), Literal("2.5", XSD + "double")]
KINDS = ("plain", "plain", "plain", "plain", "valid", "negated", "span_id", "system", "fresh_always", "valid_end",
         "system_end")


def record(s: int, p: int, o: int, kind: str) -> SpanRecord:
    sub, pred, obj = SUBJECTS[s], PREDICATES[p], OBJECTS[o]
    if kind == "negated":
        return SpanRecord(Fact(sub, pred, obj, polarity="negate"))
    if kind == "valid":
        return SpanRecord(Fact(sub, pred, obj), valid=Interval(0, 10))
    if kind == "system":
        return SpanRecord(Fact(sub, pred, obj), system=Interval(5))
    if kind == "fresh_always":  # plain, but not the shared Interval.always() instance
        return SpanRecord(Fact(sub, pred, obj), valid=Interval(MIN_TIME, None), system=Interval(MIN_TIME))
    if kind == "valid_end":  # starts where always starts, but ends
        return SpanRecord(Fact(sub, pred, obj), valid=Interval(MIN_TIME, 10))
    if kind == "system_end":
        return SpanRecord(Fact(sub, pred, obj), system=Interval(MIN_TIME, 10))
    if kind == "span_id":
        return SpanRecord(Fact(sub, pred, obj), span_id="x")
    # Fresh objects each time: equal terms must share an index whatever their identity.
    return SpanRecord(Fact(IRI(sub.value), IRI(pred.value), obj))


def reference(records: list[SpanRecord], chunk: int) -> tuple[list, bool]:
    """Chunks of ``chunk`` records (terms new in the chunk, flat s, p, o term indices; one empty
    chunk for no records), up to the block holding the first record that is not plain."""
    index: dict = {}
    terms: list = []
    out = []
    for start in range(0, len(records), chunk):
        spo: list[int] = []
        shipped = len(terms)
        for r in records[start:start + chunk]:
            plain = (r.valid == Interval.always() and r.system == Interval.always() and not r.evidence
                     and r.span_id is None and not r.fact.qualifiers and r.fact.polarity == "affirm")
            if not plain:
                return out, False
            for t in (r.fact.subject, r.fact.predicate, r.fact.object):
                if t not in index:
                    index[t] = len(terms)
                    terms.append(t)
                spo.append(index[t])
        out.append((terms[shipped:], spo))
    return (out or [([], [])]), True


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 1), st.integers(0, len(OBJECTS) - 1),
                          st.sampled_from(KINDS)), max_size=30),
       st.integers(1, 6), st.booleans())
@example([(0, 0, o, "plain") for o in range(len(OBJECTS))] * 2, 5, True)  # every object, twice
def test_record_columns_match_a_per_record_reading(spec, chunk, as_list):
    records = [record(*x) for x in spec]
    cols = RecordColumns(records if as_list else iter(records), chunk=chunk)
    got = [(list(terms), list(spo)) for terms, spo in cols.chunks()]
    want, complete = reference(records, chunk)
    assert got == want
    assert [[type(t) for t in terms] for terms, _ in got] == [[type(t) for t in terms] for terms, _ in want]
    assert cols.complete is complete
    # Every record comes back for the record path, read or not, in order.
    assert list(cols.remaining()) == records


def test_always_is_one_shared_interval_equal_to_a_fresh_one():
    assert Interval.always() is Interval.always()
    assert Interval.always() == Interval(MIN_TIME, None) and hash(Interval.always()) == hash(Interval(MIN_TIME))
    assert SpanRecord(Fact(SUBJECTS[0], PREDICATES[0], SUBJECTS[1])).valid is Interval.always()
