"""Bitemporal semantics: half-open boundaries, retraction, supersession, span identity."""
from __future__ import annotations

import pytest

from holokb.core import MAX_TIME, MIN_TIME, AsOf, Evidence, Interval, LedgerError, RetractionError, SpanRecord
from holokb.ledger import Ledger

from ledger_support import fact, iri


def objects(led: Ledger, as_of: AsOf, s: str = "a") -> list[str]:
    return [v.fact.object.value for v in led.facts(as_of, about=iri(s))]


def test_boundaries_are_half_open_on_both_axes(ledger):
    with ledger.batch(at=100) as b:
        b.assert_fact(fact("a", "p", "b"), valid=Interval(10, 20))
    with ledger.batch(at=200) as b:
        assert b.retract(fact("a", "p", "b")) == 1
    b_ = iri("b").value
    # system axis: from included, to excluded
    assert objects(ledger, AsOf(100, 10)) == [b_]
    assert objects(ledger, AsOf(99, 10)) == []
    assert objects(ledger, AsOf(199, 19)) == [b_]
    assert objects(ledger, AsOf(200, 10)) == []
    # valid axis: from included, to excluded
    assert objects(ledger, AsOf(150, 9)) == []
    assert objects(ledger, AsOf(150, 20)) == []


def test_min_time_is_stored_as_is_and_latest_sees_open_spans(ledger):
    with ledger.batch(at=MIN_TIME) as b:
        b.assert_fact(fact("a", "p", "b"))
    v = ledger.facts(AsOf.latest(), about=iri("a"))[0]
    assert v.system == Interval(MIN_TIME, None) and v.valid == Interval(MIN_TIME, None)
    assert objects(ledger, AsOf(MIN_TIME, MIN_TIME)) == [iri("b").value]
    with ledger.batch(at=MAX_TIME - 1) as b:
        b.assert_fact(fact("a", "p", "c"), valid=Interval(0, MAX_TIME))
    # [0, MAX_TIME) does not contain MAX_TIME, the valid time of AsOf.latest()
    assert objects(ledger, AsOf.latest()) == [iri("b").value]
    assert sorted(objects(ledger, AsOf(MAX_TIME - 1, 5))) == [iri("b").value, iri("c").value]


def test_retract_is_idempotent(ledger):
    f = fact("a", "p", "b")
    with ledger.batch(at=100) as b:
        b.assert_fact(f)
    with ledger.batch(at=200) as b:
        assert b.retract(f) == 1
        assert b.retract(f) == 0
    with ledger.batch(at=300) as b:
        assert b.retract(f) == 0
    spans = ledger.history(f)
    assert [s.system for s in spans] == [Interval(100, 200)]


def test_retract_errors(ledger):
    f = fact("a", "p", "b")
    with pytest.raises(RetractionError, match="never asserted"):
        with ledger.batch(at=100) as b:
            b.retract(f)
    with ledger.batch(at=100) as b:
        b.assert_fact(f)
    for when in (100, 50):
        with pytest.raises(RetractionError, match=r"starts at 1970-01-01T00:00:00\.100Z"):
            with ledger.batch(at=when) as b:
                b.retract(f)
    with pytest.raises(RetractionError):
        with ledger.batch(at=500) as b:
            b.retract(f, at=100)
    # the failed batches changed nothing
    assert [s.system for s in ledger.history(f)] == [Interval(100, None)]


def test_retract_explicit_time(ledger):
    f = fact("a", "p", "b")
    with ledger.batch(at=100) as b:
        b.assert_fact(f)
    with ledger.batch(at=900) as b:
        assert b.retract(f, at=150) == 1
    assert [s.system for s in ledger.history(f)] == [Interval(100, 150)]


def test_reasserting_an_open_span_is_unchanged_and_new_evidence_opens_a_new_span(ledger):
    """A span's content (fact, valid interval, evidence) never changes once committed (issue 8)."""
    f = fact("a", "p", "b")
    with ledger.batch(at=100) as b:
        s1 = b.assert_fact(f, evidence=[Evidence("d1", confidence=0.5)])
    with ledger.batch(at=150) as b:  # the same content again: nothing written, counted as unchanged
        assert b.assert_fact(f, evidence=[Evidence("d1", confidence=0.5)]) == s1
        assert b.assert_fact(f) == s1  # no evidence says nothing new either
        assert b.counts.unchanged == 1 and b.counts.new == 0
    with ledger.batch(at=200) as b:
        s2 = b.assert_fact(f, evidence=[Evidence("d2", confidence=0.7)])
        s3 = b.assert_fact(f, evidence=[Evidence("d2", confidence=0.7)])  # same evidence again: stored once
        assert (b.counts.new, b.counts.closed) == (1, 1)
    assert s2 == s3 != s1
    (v,) = ledger.facts(AsOf.latest(), about=iri("a"))
    assert v.system == Interval(200, None)
    assert [(e.document, e.asserted_at) for e in v.evidence] == [("d1", 100), ("d2", 200)]
    (old,) = ledger.facts(AsOf(199, 0), about=iri("a"))  # what was known before 200 is kept as it was
    assert old.span_id == s1 and [e.document for e in old.evidence] == ["d1"]
    # a different valid interval is a different span
    with ledger.batch(at=300) as b:
        s4 = b.assert_fact(f, valid=Interval(0, 10))
    assert s4 not in (s1, s2) and len(ledger.history(f)) == 3


def test_functional_predicate_supersedes(ledger):
    with ledger.batch(at=100) as b:
        b.declare_predicate(iri("loc"), functional=True)
        b.assert_fact(fact("a", "loc", "paris"))
        b.assert_fact(fact("a", "tag", "x"))
        b.assert_fact(fact("a", "tag", "y"))  # multi-valued: both stay
    with ledger.batch(at=200) as b:
        b.assert_fact(fact("a", "loc", "rome"))
        b.assert_fact(fact("a", "tag", "z"))
    latest = [(v.fact.predicate, v.fact.object) for v in ledger.facts(AsOf.latest(), about=iri("a"))]
    assert latest == [(iri("loc"), iri("rome")), (iri("tag"), iri("x")), (iri("tag"), iri("y")), (iri("tag"), iri("z"))]
    assert [v.fact.object for v in ledger.facts(AsOf(150, 0), about=iri("a"), predicate=iri("loc"))] == [iri("paris")]
    hist = ledger.history((iri("a"), iri("loc")))
    assert [(h.fact.object, h.system) for h in hist] == [(iri("paris"), Interval(100, 200)),
                                                         (iri("rome"), Interval(200, None))]
    # re-asserting the current value does not close it
    with ledger.batch(at=300) as b:
        b.assert_fact(fact("a", "loc", "rome"))
    assert ledger.open_values(iri("a"), iri("loc"), AsOf.latest()) == [iri("rome")]


def test_supersession_is_per_statement_key(ledger):
    from holokb.core import Literal
    q1 = {"version": Literal("1")}
    q2 = {"version": Literal("2")}
    with ledger.batch(at=100) as b:
        b.declare_predicate(iri("loc"), functional=True)
        b.assert_fact(fact("a", "loc", "paris", qualifiers=q1))
        b.assert_fact(fact("a", "loc", "rome", qualifiers=q2))
        b.assert_fact(fact("b", "loc", "oslo"))
    with ledger.batch(at=200) as b:
        b.assert_fact(fact("a", "loc", "bern", qualifiers=q1))
    got = sorted((v.fact.qualifiers[0][1].value, v.fact.object.value[-4:]) for v in
                 ledger.facts(AsOf.latest(), about=iri("a")))
    assert got == [("1", "bern"), ("2", "rome")]
    assert objects(ledger, AsOf.latest(), "b") == [iri("oslo").value]


def test_two_values_of_a_functional_predicate_at_the_same_time_are_rejected(ledger, db_path):
    with ledger.batch(at=100) as b:
        b.declare_predicate(iri("loc"), functional=True)
    with pytest.raises(LedgerError, match="functional"):
        with ledger.batch(at=200) as b:
            b.assert_fact(fact("a", "loc", "paris"))
            b.assert_fact(fact("a", "loc", "rome"))
    assert ledger.stats()["spans"] == 0


def test_span_id_is_content_derived_and_survives_retraction(ledger):
    f = fact("a", "p", "b")
    with ledger.batch(at=100) as b:
        sid = b.assert_fact(f, valid=Interval(5, 50))
    with ledger.batch(at=200) as b:
        b.retract(f)
    (h,) = ledger.history(f)
    assert h.span_id == sid and len(sid) == 64 and h.system == Interval(100, 200)


def test_add_span_is_lossless_and_checks_span_ids(ledger, tmp_path):
    f = fact("a", "p", "b")
    with ledger.batch(at=100) as b:
        b.assert_fact(f, valid=Interval(1, 9), evidence=[Evidence("d", extractor="x", confidence=0.25)])
    with ledger.batch(at=200) as b:
        b.retract(f)
    with ledger.batch(at=300) as b:
        b.assert_fact(f, valid=Interval(1, 9))
    exported = list(ledger.spans())
    assert len(exported) == 2
    with Ledger.open(tmp_path / "copy.db") as other:
        with other.batch(at=999) as b:
            for rec in exported:
                b.add_span(rec)
        assert list(other.spans()) == exported
        # importing the same export again changes nothing
        with other.batch(at=999) as b:
            for rec in exported:
                b.add_span(rec)
        assert list(other.spans()) == exported and other.stats()["evidence"] == 1
        bad = SpanRecord(f, Interval(1, 9), Interval(5, None), (), exported[0].span_id)
        with pytest.raises(LedgerError, match="does not match"):
            with other.batch(at=999) as b:
                b.add_span(bad)


def test_add_span_closes_an_open_span_from_a_later_export(ledger):
    f = fact("a", "p", "b")
    rec = SpanRecord(f, Interval.always(), Interval(100, None))
    with ledger.batch(at=0) as b:
        b.add_span(rec)
    with ledger.batch(at=0) as b:
        b.add_span(SpanRecord(f, Interval.always(), Interval(100, 250)))
    assert [h.system for h in ledger.history(f)] == [Interval(100, 250)]
    with pytest.raises(LedgerError, match="already closed"):
        with ledger.batch(at=0) as b:
            b.add_span(SpanRecord(f, Interval.always(), Interval(100, 300)))


def test_polarity_is_part_of_identity(ledger):
    pos, neg = fact("a", "p", "b"), fact("a", "p", "b", polarity="negate")
    with ledger.batch(at=100) as b:
        b.assert_fact(pos)
        b.assert_fact(neg)
    assert [v.fact.polarity for v in ledger.facts(AsOf.latest(), about=iri("a"), polarity="negate")] == ["negate"]
    assert len(ledger.facts(AsOf.latest(), about=iri("a"))) == 2
    assert list(ledger.visible(AsOf.latest())) == [(iri("a"), iri("p"), iri("b"))]


def test_functional_supersession_respects_valid_time(ledger):
    """A new value closes only the overlapping valid time; the rest of the old span is reopened."""
    with ledger.batch(at=100) as b:
        b.declare_predicate(iri("locatedIn"), functional=True)
        b.assert_fact(fact("alice", "locatedIn", "lab"), valid=Interval(9, 13),
                      evidence=[Evidence("log", confidence=0.9)])
    with ledger.batch(at=200) as b:
        b.assert_fact(fact("alice", "locatedIn", "cafe"), valid=Interval(11, 12))  # lunch, inside the lab span
        b.assert_fact(fact("alice", "locatedIn", "home"), valid=Interval(20, 22))  # no overlap: nothing closes
    where = lambda s, v: [x.fact.object.value.rsplit("/", 1)[1] for x in  # noqa: E731
                          ledger.facts(AsOf(s, v), about=iri("alice"), predicate=iri("locatedIn"))]
    assert where(150, 11) == ["lab"]          # what the KB believed before the correction
    assert where(250, 11) == ["cafe"]         # the overlap is superseded
    assert where(250, 10) == ["lab"] and where(250, 12) == ["lab"]   # the rest of the lab span is kept
    assert where(250, 21) == ["home"]
    kept = [x for x in ledger.facts(AsOf(250, 10), about=iri("alice"))]
    assert kept[0].system == Interval(200, None) and kept[0].valid == Interval(9, 11)
    assert [e.document for e in kept[0].evidence] == ["log"]  # evidence travels with the reopened part
    history = ledger.history(fact("alice", "locatedIn", "lab"))
    assert sorted((h.valid.start, h.valid.end, h.system.start, h.system.end) for h in history) == [
        (9, 11, 200, None), (9, 13, 100, 200), (12, 13, 200, None)]


def test_supersede_closes_the_other_values_of_any_predicate(ledger):
    """Batch.supersede: functional supersession for one assertion (issue 8), history kept."""
    with ledger.batch(at=100) as b:
        b.assert_fact(fact("a", "tag", "x"), valid=Interval(0, 50))
        b.assert_fact(fact("a", "tag", "y"))
        b.assert_fact(fact("b", "tag", "x"))
    with ledger.batch(at=200) as b:
        b.supersede(fact("a", "tag", "z"), valid=Interval(10, 100))
        assert (b.counts.new, b.counts.closed) == (4, 2)  # z, and x / y reopened outside [10, 100)
    at = lambda s, v: sorted(o.value[-1] for o in ledger.open_values(iri("a"), iri("tag"), AsOf(s, v)))  # noqa: E731
    assert at(150, 20) == ["x", "y"] and at(250, 20) == ["z"]
    assert at(250, 5) == ["x", "y"] and at(250, 100) == ["y"]
    assert objects(ledger, AsOf.latest(), "b") == [iri("x").value]
