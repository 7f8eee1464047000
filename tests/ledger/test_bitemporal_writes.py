"""Issue 8: system time only moves forward, a span's content is its identity, evidence is checked,
and staleness of stored closures is decided per AsOf."""
from __future__ import annotations

import sqlite3

import pytest

from holokb.core import AsOf, Evidence, EvidenceError, SpanRecord, SystemTimeError
from holokb.ledger import DerivedRecord, Ledger, schema

from _v7_closures import make_v7
from ledger_support import dump, fact, iri


def test_a_write_before_the_latest_commit_is_refused_and_changes_nothing(ledger, db_path):
    with ledger.batch(at=1000) as b:
        b.assert_fact(fact("a", "p", "b"))
    with ledger.batch(at=2000) as b:
        b.assert_fact(fact("a", "p", "x"))
    before = dump(db_path)
    with pytest.raises(SystemTimeError) as err:
        with ledger.batch(at=1000) as b:
            b.assert_fact(fact("a", "p", "c"))
    assert err.value.diagnostics[0].code == "HK501" and "history is append-only" in err.value.message
    assert "1970-01-01T00:00:02Z" in err.value.diagnostics[0].hint
    with pytest.raises(SystemTimeError):  # the bulk paths refuse it too
        ledger.bulk_assert([SpanRecord(fact("x", "p", "y"))], at=1999)
    with pytest.raises(SystemTimeError):
        with ledger.batch(at=3000) as b:
            b.retract(fact("a", "p", "b"), at=1500)
    assert dump(db_path) == before
    with ledger.batch(at=2000) as b:  # the same instant is fine
        b.assert_fact(fact("a", "p", "c"))
    with ledger.batch(at=1) as b:  # writes that carry no system time are not history
        b.add_document("d", "text")


def test_an_unchanged_reload_at_a_later_time_writes_nothing(ledger, db_path):
    recs = [SpanRecord(fact("a", "p", i), evidence=(Evidence("d", confidence=0.5),)) for i in range(5)]
    assert ledger.bulk_assert(recs, at=100) == 5
    marker, before = ledger.change_marker(), dump(db_path)
    with ledger.batch(at=200) as b:
        assert b.bulk(recs) == 0
        assert (b.counts.new, b.counts.closed, b.counts.unchanged) == (0, 0, 5)
    assert dump(db_path) == before and ledger.change_marker() == marker


def test_chunk_named_by_evidence_must_exist_in_its_stored_document(ledger, db_path):
    with ledger.batch(at=1) as b:
        b.add_document("log.txt", "alice arrived. bob left.", chunks=[("p1", 0, 14), ("p2", 15, 24)])
    before = dump(db_path)
    with pytest.raises(EvidenceError) as err:
        with ledger.batch(at=2) as b:
            b.assert_fact(fact("a", "p", "b"), evidence=[Evidence("log.txt", chunk="p9")])
    d = err.value.diagnostics[0]
    assert d.code == "HK502" and "'p9'" in d.message and d.hint.startswith("did you mean 'p")
    with pytest.raises(EvidenceError, match="outside chunk 'p2'"):
        ledger.bulk_assert([SpanRecord(fact("a", "p", "b"), evidence=(Evidence("log.txt", "p2", 0, 10),))], at=2)
    assert dump(db_path) == before
    with ledger.batch(at=2) as b:  # a document the ledger does not hold is a source kept elsewhere
        b.assert_fact(fact("a", "p", "b"), evidence=[Evidence("elsewhere.pdf", chunk="p9")])
        b.assert_fact(fact("a", "p", "c"), evidence=[Evidence("log.txt", "p2", 0, 8)])


def _store(led: Ledger, as_of: AsOf) -> None:
    led.store_closure(rule_set_hash="h", as_of=as_of, computed_at=0,
                      derived=[DerivedRecord(iri("q"), (iri("a"),))])


def test_staleness_is_decided_per_as_of(ledger):
    with ledger.batch(at=100) as b:
        b.assert_fact(fact("a", "p", "b"))
    early, late = AsOf(150, 0), AsOf(400, 0)
    _store(ledger, early)
    _store(ledger, late)
    with ledger.batch(at=300) as b:  # invisible at system time 150, visible at 400
        b.assert_fact(fact("a", "p", "c"))
    assert not ledger.closure_info("h", early).stale
    assert ledger.closure_info("h", late).stale
    assert {c.as_of: c.stale for c in ledger.closures()} == {early: False, late: True}
    with ledger.batch(at=300) as b:
        b.add_document("d", "t")  # no system time written: nothing can see it
    _store(ledger, late)
    assert not ledger.closure_info("h", late).stale


def test_migration_to_v5_sets_the_high_water_mark_and_keeps_old_closures_stale(db_path):
    with Ledger.open(db_path) as led:
        with led.batch(at=100) as b:
            b.assert_fact(fact("a", "p", "b"))
        _store(led, AsOf(50, 0))
        with led.batch(at=700) as b:
            b.retract(fact("a", "p", "b"))
    make_v7(db_path)  # the closure as v7 rows (v3 to v7 stored one row a derived fact)
    db = sqlite3.connect(db_path)  # make it a v4 file: no system_high, no write log
    db.execute("DROP TABLE write_log")
    db.execute("ALTER TABLE meta DROP COLUMN system_high")
    db.execute("ALTER TABLE spans ADD COLUMN span_id BLOB")  # v4 and v5 stored span ids (v6 drops them)
    db.execute("DROP INDEX facts_hkey")  # v6 and earlier: a unique index on the hash, no hkey (v7)
    db.execute("ALTER TABLE facts DROP COLUMN hkey")
    db.execute("CREATE UNIQUE INDEX facts_hash ON facts(hash)")
    db.execute("PRAGMA user_version = 4")
    db.commit()
    db.close()
    with Ledger.open(db_path) as led:
        assert led.schema_version == schema.CURRENT_VERSION
        assert led.closure_info("h", AsOf(50, 0)).stale  # a write before v5 may have touched any time
        with pytest.raises(SystemTimeError):
            with led.batch(at=600) as b:
                b.assert_fact(fact("a", "p", "c"))
        with led.batch(at=700) as b:
            b.assert_fact(fact("a", "p", "c"))
