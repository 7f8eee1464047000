"""bulk_assert: the fast path has the semantics of a batch of assert_fact / add_span."""
from __future__ import annotations

import pytest

from holokb.core import AsOf, Evidence, Interval, LedgerError, Limits, Literal, SpanRecord
from holokb.ledger import Ledger

from ledger_support import dump, fact, iri


def _history_records(led: Ledger) -> list[SpanRecord]:
    with led.batch(at=100) as b:
        b.declare_predicate(iri("loc"), functional=True)
        b.assert_fact(fact("a", "loc", "paris"), evidence=[Evidence("d", confidence=0.5)])
        b.assert_fact(fact("a", "name", '"Ann"'), valid=Interval(0, 50))
        b.assert_fact(fact("a", "n", 1, qualifiers={"v": Literal("x")}))
    with led.batch(at=200) as b:
        b.assert_fact(fact("a", "loc", "rome"))
        b.retract(fact("a", "n", 1, qualifiers={"v": Literal("x")}))
    return list(led.spans())


def test_bulk_ids_are_fact_ids(ledger):
    facts = [fact("a", "p", "b"), fact("a", "p", 2.5), fact("a", "p", '"Tx"', qualifiers={"k": iri("q")}),
             fact("a", "p", "b", polarity="negate")]
    ledger.bulk_assert([SpanRecord(f) for f in facts], at=5)
    got = {v.fact_id: v.fact for v in ledger.facts(AsOf.latest(), about=iri("a"))}
    assert got == {f.id: f for f in facts}


def test_bulk_import_of_an_export_is_lossless(ledger, tmp_path):
    exported = _history_records(ledger)
    assert any(r.system.end is not None for r in exported)
    with Ledger.open(tmp_path / "copy.db") as other:
        assert other.bulk_assert(exported, at=999) == len(exported)
        assert list(other.spans()) == exported
        assert other.bulk_assert(exported, at=999) == 0  # importing again changes nothing
        assert list(other.spans()) == exported


def test_bulk_applies_supersession_like_a_batch(tmp_path):
    recs = [SpanRecord(fact("a", "loc", "paris")), SpanRecord(fact("b", "loc", "rome")),
            SpanRecord(fact("a", "tag", "x"))]
    later = [SpanRecord(fact("a", "loc", "oslo")), SpanRecord(fact("a", "tag", "y"))]
    results = []
    for mode in ("bulk", "batch"):
        with Ledger.open(tmp_path / f"{mode}.db") as led:
            with led.batch(at=1) as b:
                b.declare_predicate(iri("loc"), functional=True)
            for at, rs in ((10, recs), (20, later)):
                if mode == "bulk":
                    led.bulk_assert(rs, at=at)
                else:
                    with led.batch(at=at) as b:
                        for r in rs:
                            b.assert_fact(r.fact, valid=r.valid, evidence=r.evidence)
            results.append(list(led.spans()))
            assert led.open_values(iri("a"), iri("loc"), AsOf.latest()) == [iri("oslo")]
    assert results[0] == results[1]


def test_bulk_into_a_non_empty_ledger_dedupes_terms_facts_and_open_spans(ledger):
    with ledger.batch(at=1) as b:
        b.assert_fact(fact("a", "p", "b"), evidence=[Evidence("d1")])
        b.add_entity(iri("c"), aliases=["C"])
    # (a p b) again without evidence: unchanged; with new evidence d2: the span from 1 is closed at 2
    # and one holding d1 and d2 opens (a committed span's content never changes, issue 8)
    assert ledger.bulk_assert([SpanRecord(fact("a", "p", "b"))], at=2) == 0
    n = ledger.bulk_assert([SpanRecord(fact("a", "p", "b"), evidence=(Evidence("d2"),)),
                            SpanRecord(fact("c", "p", "b")), SpanRecord(fact("c", "p", "b"))], at=2)
    assert n == 2
    st = ledger.stats()
    assert (st["facts"], st["spans"], st["evidence"], st["terms"]) == (2, 3, 3, 4)
    (v,) = ledger.facts(AsOf.latest(), about=iri("a"))
    assert [e.document for e in v.evidence] == ["d1", "d2"] and v.system == Interval(2, None)
    (before,) = ledger.facts(AsOf(1, 0), about=iri("a"))
    assert [e.document for e in before.evidence] == ["d1"]


def test_bulk_rejects_bad_span_ids_and_changes_nothing(ledger, db_path):
    ledger.bulk_assert([SpanRecord(fact("a", "p", i)) for i in range(100)], at=1)
    before = dump(db_path)
    bad = SpanRecord(fact("z", "p", "q"), Interval.always(), Interval(5, None), (), "00" * 32)
    with pytest.raises(LedgerError, match="does not match"):
        ledger.bulk_assert([SpanRecord(fact("b", "p", i)) for i in range(100)] + [bad], at=2)
    assert dump(db_path) == before
    assert len(ledger.facts(AsOf.latest(), limits=Limits.unbounded())) == 100


def _indexes(ledger) -> set[str]:
    return {r[0] for r in ledger._db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}


def test_bulk_into_an_empty_file_defers_the_lookup_indexes_to_their_first_reader(ledger):
    ledger.bulk_assert([SpanRecord(fact("a", "p", i)) for i in range(50)], at=1)
    lookups = {"terms_canon", "facts_hkey", "facts_sp", "facts_o"}
    assert {"spans_key", "evidence_sid"} <= _indexes(ledger) and not lookups & _indexes(ledger)
    assert len(ledger.facts(AsOf.latest(), about=iri("a"), limits=Limits.unbounded())) == 50
    assert lookups | {"spans_key", "evidence_sid"} <= _indexes(ledger)


def test_bulk_of_records_that_are_not_plain_keeps_every_index(ledger):
    recs = [SpanRecord(fact("a", "p", i)) for i in range(50)]
    recs.append(SpanRecord(fact("a", "p", 99), Interval(5, None)))  # not plain: the record path
    ledger.bulk_assert(recs, at=1)
    assert {"terms_canon", "facts_hkey", "facts_sp", "facts_o", "spans_key", "evidence_sid"} <= _indexes(ledger)
