"""Batches are all or nothing; one writer at a time; a killed writer leaves a consistent file."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from holokb.core import AsOf, Evidence, Interval, LedgerError, Limits, SpanRecord, WriterBusyError
from holokb.ledger import Ledger

from ledger_support import dump, fact, iri

SRC = Path(__file__).resolve().parents[2] / "src"


def _seed(led: Ledger) -> None:
    with led.batch(at=100) as b:
        b.declare_predicate(iri("loc"), functional=True)
        b.assert_fact(fact("a", "loc", "paris"), evidence=[Evidence("d")])
        b.add_entity(iri("a"), aliases=["Alice"])
        b.add_document("d", "some text", chunks=[("c", 0, 4)])


class Boom(Exception):
    pass


@pytest.mark.parametrize("failure", ["exception", "retraction", "evidence", "bulk"])
def test_rejected_batch_leaves_file_unchanged(ledger, db_path, failure):
    _seed(ledger)
    before = dump(db_path)
    with pytest.raises((Boom, LedgerError)):
        if failure == "bulk":
            recs = [SpanRecord(fact("a", "p", i)) for i in range(500)]
            recs.append(SpanRecord(fact("z", "p", 1), evidence=(Evidence("d", "c", 0, 99),)))
            ledger.bulk_assert(recs, at=200)
        with ledger.batch(at=200) as b:
            b.assert_fact(fact("a", "loc", "rome"))        # supersedes paris
            b.retract(fact("a", "loc", "rome"), at=250)
            b.add_entity(iri("b"), aliases=["Bob"], kind="person")
            b.declare_predicate(iri("age"))
            b.add_document("d2", "more text", chunks=[("c", 0, 4)])
            for i in range(50):
                b.assert_fact(fact("b", "p", i), evidence=[Evidence("d2", "c", 0, 4)])
            if failure == "exception":
                raise Boom()
            if failure == "retraction":
                b.retract(fact("never", "p", "asserted"))
            if failure == "evidence":
                b.assert_fact(fact("c", "p", "d"), evidence=[Evidence("d", "c", 0, 5)])
    assert dump(db_path) == before
    # the ledger object is still usable and its caches did not keep rolled-back ids
    assert [v.fact.object for v in ledger.facts(AsOf.latest(), about=iri("a"))] == [iri("paris")]
    with ledger.batch(at=300) as b:
        b.assert_fact(fact("b", "p", 1))
    assert [v.fact for v in ledger.facts(AsOf.latest(), about=iri("b"))] == [fact("b", "p", 1)]


def test_batch_cannot_be_used_after_it_ends(ledger):
    with ledger.batch(at=1) as b:
        pass
    with pytest.raises(LedgerError, match="ended"):
        b.assert_fact(fact("a", "p", "b"))


def test_batches_do_not_nest(ledger):
    with pytest.raises(LedgerError, match="nest"):
        with ledger.batch(at=1):
            with ledger.batch(at=2):
                pass


def test_second_writer_times_out_and_readers_see_committed_data_only(db_path):
    first = Ledger.open(db_path)
    second = Ledger.open(db_path, timeout_s=0.3)
    reader = Ledger.open(db_path)
    try:
        with first.batch(at=100) as b:
            b.assert_fact(fact("a", "p", "b"))
            assert reader.facts(AsOf.latest(), about=iri("a")).items == ()
            t0 = time.monotonic()
            with pytest.raises(WriterBusyError):
                with second.batch(at=100):
                    pass
            waited = time.monotonic() - t0
            assert 0.25 <= waited < 3.0
        assert len(reader.facts(AsOf.latest(), about=iri("a"))) == 1
        with second.batch(at=200) as b:  # free again
            b.assert_fact(fact("a", "p", "c"))
    finally:
        first.close(), second.close(), reader.close()


def test_second_writer_waits_for_the_first(db_path):
    first = Ledger.open(db_path)
    second = Ledger.open(db_path, timeout_s=5.0)
    started = threading.Event()

    def hold():
        with first.batch(at=100) as b:
            b.assert_fact(fact("a", "p", "b"))
            started.set()
            time.sleep(0.3)

    t = threading.Thread(target=hold)
    t.start()
    started.wait(5)
    with second.batch(at=200) as b:
        # the first writer committed before we got the lock, so retracting its fact works
        assert b.retract(fact("a", "p", "b")) == 1
    t.join()
    assert [h.system for h in second.history(fact("a", "p", "b"))] == [Interval(100, 200)]
    first.close(), second.close()


_CHILD = textwrap.dedent("""
    import sys
    from holokb.core import IRI, Fact, Literal, SpanRecord
    from holokb.ledger import Ledger
    path, n, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    EX = "http://example.org/"

    def records():
        for i in range(n):
            if i == 100:
                print("started", flush=True)
            yield SpanRecord(Fact(IRI(EX + tag + str(i % 997)), IRI(EX + "p"), Literal.of(i)))

    with Ledger.open(path) as led:
        led.bulk_assert(records(), at=1000)
    print("done", flush=True)
""")


def test_killed_writer_leaves_all_or_nothing(tmp_path):
    path = tmp_path / "crash.db"
    with Ledger.open(path) as led:
        led.bulk_assert([SpanRecord(fact("base", "p", i)) for i in range(10)], at=1)
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    n = 60_000
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    outcomes = []
    for round_, delay in enumerate((0.0, 0.6, 1.4, 2.5)):
        proc = subprocess.Popen([sys.executable, str(script), str(path), str(n), f"r{round_}_"],
                                stdout=subprocess.PIPE, env=env, text=True)
        assert proc.stdout.readline().strip() == "started"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        db.close()
        with Ledger.open(path) as led:
            count = sum(1 for v in led.facts(AsOf.latest(), predicate=iri("p"), limits=Limits.unbounded())
                        if v.fact.subject.value.startswith("http://example.org/r" + str(round_) + "_"))
            assert count in (0, n), f"round {round_}: partial batch of {count} spans"
            outcomes.append(count)
            assert led.stats()["facts"] >= 10
    assert 0 in outcomes  # at least the early kills caught the batch before its commit
