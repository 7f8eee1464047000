"""Ledger.bulk_assert_plain: columnar chunks give the rows of bulk_assert; failures change nothing."""
from __future__ import annotations

import sqlite3
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from holokb.core import AsOf, Fact, Interval, LedgerError, SpanRecord
from holokb.core.terms import IRI, Literal
from holokb.ledger import Ledger, plain
from holokb.ledger.schema import BULK_INDEXES, DEFERRED_INDEXES

AT = 5_000
EX = "http://ex.org/"
A, B, C, P, Q = (IRI(EX + n) for n in ("a", "b", "c", "p", "q"))
ONE, ONE_AGAIN = Literal("1", "http://www.w3.org/2001/XMLSchema#integer"), \
    Literal("01", "http://www.w3.org/2001/XMLSchema#integer")

# Three chunks: terms new in each, indices into all terms so far; duplicates inside and across
# chunks; ONE_AGAIN is a distinct term that shares ONE's canonical encoding.
CHUNKS = [
    ((A, P, B), [0, 1, 2, 0, 1, 2]),
    ((ONE, Q), [2, 4, 3, 0, 1, 2]),
    ((ONE_AGAIN, C), [2, 4, 5, 6, 1, 0, 2, 4, 3]),
]
TRIPLES = [(A, P, B), (B, Q, ONE), (A, P, B), (B, Q, ONE_AGAIN), (C, P, A), (B, Q, ONE)]


def rows(path) -> dict:
    db = sqlite3.connect(path)
    try:
        out = {t: db.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
               for t in ("terms", "facts", "spans", "qualifiers", "evidence", "meta")}
        out["indexes"] = sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'"))
        out["fk"] = db.execute("PRAGMA foreign_key_check").fetchall()
        return out
    finally:
        db.close()


def records(triples) -> list[SpanRecord]:
    always = Interval.always()
    return [SpanRecord(Fact(s, p, o), always, always) for s, p, o in triples]


def test_chunks_store_the_rows_of_bulk_assert(tmp_path):
    with Ledger.open(tmp_path / "plain.db") as led:
        n = led.bulk_assert_plain(iter(CHUNKS), at=AT)
        assert led._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        visible = sorted(map(str, (t for row in led.visible(AsOf.latest()) for t in row)))
    with Ledger.open(tmp_path / "records.db") as led:
        m = led.bulk_assert(records(TRIPLES), at=AT)
    plain, general = rows(tmp_path / "plain.db"), rows(tmp_path / "records.db")
    assert plain == general
    assert n == m == 3 == len(plain["facts"]) == len(plain["spans"])
    assert [r[2] for r in plain["terms"]] == [EX + "a", EX + "p", EX + "b", EX + "q", "1", EX + "c"]
    # The lookup indexes wait for their first reader (schema.DEFERRED_INDEXES), the others are built.
    assert plain["fk"] == [] and {name for name, _ in BULK_INDEXES} - set(DEFERRED_INDEXES) <= set(plain["indexes"])
    assert not set(DEFERRED_INDEXES) & set(plain["indexes"])
    assert [r[1].hex() for r in plain["facts"]] == [Fact(*t).id for t in [TRIPLES[0], TRIPLES[1], TRIPLES[4]]]
    assert visible == sorted(map(str, (A, P, B, B, Q, ONE, C, P, A)))


def test_error_from_the_chunks_rolls_everything_back(tmp_path):
    def chunks():
        yield CHUNKS[0]
        yield CHUNKS[1]
        raise ValueError("syntax error late in the file")

    with Ledger.open(tmp_path / "kb.db") as led:
        with led.batch(at=1) as b:
            b.declare_predicate(Q)
        before = rows(tmp_path / "kb.db")
        with pytest.raises(ValueError, match="late in the file"):
            led.bulk_assert_plain(chunks(), at=AT)
        assert led._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert rows(tmp_path / "kb.db") == before  # dropped indexes are back, no term was kept
        assert led.bulk_assert_plain(iter(CHUNKS), at=AT) == 3


def test_ledger_with_facts_takes_the_record_path(tmp_path):
    def prepare(led: Ledger) -> None:
        with led.batch(at=1) as b:
            b.assert_fact(Fact(A, P, B))

    with Ledger.open(tmp_path / "plain.db") as led:
        prepare(led)
        n = led.bulk_assert_plain(iter(CHUNKS), at=AT)
    with Ledger.open(tmp_path / "records.db") as led:
        prepare(led)
        m = led.bulk_assert(records(TRIPLES), at=AT)
    assert rows(tmp_path / "plain.db") == rows(tmp_path / "records.db")
    assert n == m == 2  # (a p b) is already open


def test_plain_load_refuses_to_nest_in_a_batch(tmp_path):
    with Ledger.open(tmp_path / "kb.db") as led:
        with led.batch(at=1):
            with pytest.raises(LedgerError, match="do not nest"):
                led.bulk_assert_plain(iter(CHUNKS), at=AT)
    assert rows(tmp_path / "kb.db")["facts"] == []


def test_bulk_indexes_built_in_sorter_runs_match_their_tables(tmp_path):
    """60k facts sort in several 1 MiB runs merged on helper threads (schema.build_indexes): every
    index agrees with its table, the connection's cache size is restored and the staging is emptied."""
    from holokb.ledger.plain import STAGING_DB

    subjects = [IRI(f"{EX}s{i}") for i in range(6000)]
    triples = [(subjects[i % 6000], P if i % 2 else Q, Literal.of(i)) for i in range(60_000)]
    with Ledger.open(tmp_path / "big.db") as led:
        before = led._db.execute("PRAGMA main.cache_size").fetchone()[0]
        assert led.bulk_assert(records(triples), at=AT) == 60_000
        db = led._db
        assert db.execute("PRAGMA main.cache_size").fetchone()[0] == before
        assert db.execute("PRAGMA temp_store").fetchone()[0] == 1  # FILE: the sorter may use runs
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        # The staging database is detached after the COMMIT (its memory released), not just emptied.
        assert db.execute("SELECT 1 FROM pragma_database_list WHERE name = ?", (STAGING_DB,)).fetchone() is None
        got = led.facts(AsOf.latest(), about=subjects[17])  # builds the deferred indexes first
        assert sorted(v.fact.object.value for v in got) == list(range(17, 60_000, 6000))
        by_index = db.execute("SELECT hkey, fact_id FROM facts INDEXED BY facts_hkey ORDER BY hkey, fact_id").fetchall()
        assert by_index == sorted(db.execute("SELECT hkey, fact_id FROM facts NOT INDEXED").fetchall())
        assert len(by_index) == 60_000


# Pairs of distinct terms sharing a canonical encoding ("1" / "01", "Hi" / "hi"), so that ids are
# found by encoding inside one chunk, across chunks and against terms already in the file.
POOL = [A, B, C, P, Q, ONE, ONE_AGAIN, Literal("Hi"), Literal("hi"), Literal("x", lang="en")]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from([0, 1, 2]), st.sampled_from([3, 4]), st.integers(0, len(POOL) - 1)),
                min_size=1, max_size=12),
       st.integers(1, 5), st.sampled_from([(), (B,), (C, A)]))
def test_chunked_triples_store_the_rows_of_bulk_assert(tmp_path_factory, triples, size, known):
    """Chunks of any size, terms colliding by encoding anywhere: the rows of the record path."""
    d = tmp_path_factory.mktemp("chunks")
    chunks, index, terms = [], {}, []
    for k in range(0, len(triples), size):
        new, spo = [], []
        for s, p, o in triples[k:k + size]:
            for t in (POOL[s], POOL[p], POOL[o]):
                if t not in index:
                    index[t] = len(terms)
                    terms.append(t)
                    new.append(t)
                spo.append(index[t])
        chunks.append((tuple(new), spo))
    facts = [(POOL[s], POOL[p], POOL[o]) for s, p, o in triples]
    for name in ("plain.db", "records.db"):
        with Ledger.open(d / name) as led:
            with led.batch(AT - 1) as b:  # terms already in the file (an entity names each)
                for t in known:
                    b.add_entity(t)
            if name == "plain.db":
                with mock.patch.object(plain, "_new_term_ids", wraps=plain._new_term_ids) as minted:
                    led.bulk_assert_plain(iter(chunks), at=AT)
                assert minted.called  # the columnar path ran
            else:
                led.bulk_assert(records(facts), at=AT)
    assert rows(d / "plain.db") == rows(d / "records.db")


def test_staging_is_released_detached_or_emptied(tmp_path):
    """A load's staging goes after its batch: detached when nothing reads it, emptied when a
    statement still does (DETACH is refused then); either way no staged row is left behind and
    the next load stages and writes as usual."""
    with Ledger.open(tmp_path / "kb.db") as led:
        db = led._db
        staged = plain.stage_plain(led, iter(CHUNKS), at=AT)
        assert staged is not None and plain.staged_rows(db) > 0
        reading = db.execute(f"SELECT fact_id FROM {plain.STAGING_DB}.plain_facts")
        assert reading.fetchone() is not None  # the statement stays active
        plain.release_staging(db)
        assert plain.staged_rows(db) == 0
        reading.close()
        plain.release_staging(db)
        assert db.execute("SELECT 1 FROM pragma_database_list WHERE name = ?", (plain.STAGING_DB,)).fetchone() is None
        assert led.bulk_assert_plain(iter(CHUNKS), at=AT) > 0
        assert plain.staged_rows(db) == 0
