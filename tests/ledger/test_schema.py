"""Schema identity, versions, migrations and foreign keys."""
from __future__ import annotations

import sqlite3

import pytest

from holokb.core import AsOf, Evidence, SchemaVersionError
from holokb.ledger import APPLICATION_ID, CURRENT_VERSION, Ledger
from holokb.ledger import schema
from holokb.ledger.schema import _V3, _statements
from holokb.ledger.views import span_hash

from ledger_support import fact, iri


def test_new_file_has_identity_and_current_version(db_path):
    with Ledger.open(db_path) as led:
        assert led.schema_version == CURRENT_VERSION == 9
    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA user_version").fetchone()[0] == 9
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_foreign_keys_are_enforced(ledger):
    db = ledger._db
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        db.execute("INSERT INTO spans(fact_id, valid_from, system_from) VALUES (999, 0, 0)")
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        db.execute("INSERT INTO chunks(doc_id, chunk_id, char_start, char_end, text) VALUES ('nope', 'c', 0, 1, 'a')")


def test_span_checks_refuse_empty_intervals(ledger):
    with ledger.batch(at=10) as b:
        b.assert_fact(fact("a", "p", "b"))
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        ledger._db.execute("UPDATE spans SET system_to = system_from")


def test_foreign_file_is_refused(tmp_path):
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t(x)")
    db.commit()
    db.close()
    with pytest.raises(SchemaVersionError, match="not a holokb ledger"):
        Ledger.open(other)


def test_garbage_file_is_refused(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(SchemaVersionError):
        Ledger.open(bad)


def test_newer_version_is_refused(db_path):
    Ledger.open(db_path).close()
    db = sqlite3.connect(db_path)
    db.execute(f"PRAGMA user_version = {CURRENT_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(SchemaVersionError, match="newer"):
        Ledger.open(db_path)


def _make_v1(path) -> None:
    """A v1 file with one fact, one span and one piece of evidence, written with v1 DDL."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA foreign_keys = ON")
    assert schema.upgrade(db, to_version=1) == 1
    f = fact("alice", "knows", "bob")
    from holokb.core import encode_term
    for tid, t in ((1, f.subject), (2, f.predicate), (3, f.object)):
        db.execute("INSERT INTO terms(term_id, kind, lexical, canon) VALUES (?, 0, ?, ?)",
                   (tid, t.value, encode_term(t)))
    fh = bytes.fromhex(f.id)
    db.execute("INSERT INTO facts(fact_id, hash, s, p, o, nq, polarity) VALUES (1, ?, 1, 2, 3, 0, 1)", (fh,))
    from holokb.core import Interval
    sh = span_hash(fh, Interval(0, None), 100)
    db.execute("INSERT INTO spans(sid, span_id, fact_id, valid_from, system_from) VALUES (1, ?, 1, 0, 100)", (sh,))
    db.execute("INSERT INTO entities(entity_id, term_id) VALUES (1, 1)")
    db.execute("INSERT INTO evidence(sid, ev_hash, document, extractor, extractor_version, confidence) "
               "VALUES (1, ?, 'doc', 'x', '1', 0.5)", (b"e" * 32,))
    db.close()


def test_migration_v1_to_v2_keeps_data(db_path):
    _make_v1(db_path)
    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'chunks'").fetchone()[0] == 0
    db.close()
    with Ledger.open(db_path) as led:
        assert led.schema_version == CURRENT_VERSION
        page = led.facts(AsOf(200, 50), about=iri("alice"))
        assert [v.fact for v in page] == [fact("alice", "knows", "bob")]
        assert page[0].evidence == (Evidence("doc", extractor="x", extractor_version="1", confidence=0.5),)
        assert led.facts(AsOf(99, 50), about=iri("alice")).items == ()
        # v2 features work on the migrated file.
        with led.batch(at=300) as b:
            b.add_entity(iri("alice"), aliases=["Alice"], kind="person")
            b.add_document("d", "hello world", chunks=[("c", 0, 5)])
        assert led.entities_by_alias("alice") == [iri("alice")]
        assert led.chunk_text("d", "c") == "hello"
    with Ledger.open(db_path) as led:  # migrating is idempotent: reopening changes nothing
        assert led.schema_version == CURRENT_VERSION
        assert led.stats()["facts"] == 1



def test_refused_foreign_file_is_left_untouched(tmp_path):
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t(x)")
    db.commit()
    db.close()
    before = other.read_bytes()
    with pytest.raises(SchemaVersionError):
        Ledger.open(other)
    assert other.read_bytes() == before
    db = sqlite3.connect(other)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()


def _facts_and_spans(led: Ledger) -> list:
    return [(r.fact, r.valid, r.system, r.evidence) for r in led.spans()]


def test_migration_v6_to_v7_keys_facts_by_hash_prefix(db_path):
    from holokb.ledger.sql import fact_key

    ev = Evidence("doc", extractor="x", extractor_version="1", confidence=0.25)
    with Ledger.open(db_path) as led:
        with led.batch(at=100) as b:
            b.assert_fact(fact("alice", "knows", "bob"), evidence=[ev])
            b.assert_fact(fact("alice", "age", 41))
            b.assert_fact(fact("bob", "knows", "carol"))
        with led.batch(at=200) as b:
            b.retract(fact("alice", "age", 41))
        before = _facts_and_spans(led)
    db = sqlite3.connect(db_path)  # make it a v6 file: a unique index on the 32-byte hash, no hkey
    db.execute("DROP INDEX facts_hkey")
    db.execute("ALTER TABLE facts DROP COLUMN hkey")
    db.execute("CREATE UNIQUE INDEX facts_hash ON facts(hash)")
    db.execute("DROP TABLE derived_blocks")  # and v7's one row a derived fact
    db.execute(next(s for s in _statements(_V3) if s.startswith("CREATE TABLE derived")))
    db.execute("PRAGMA user_version = 6")
    db.commit()
    db.close()
    with Ledger.open(db_path) as led:
        assert led.schema_version == CURRENT_VERSION == 9
        assert _facts_and_spans(led) == before
        assert [(v.system.start, v.system.end) for v in led.history(fact("alice", "age", 41))] == [(100, 200)]
        assert led.confidences([fact("alice", "knows", "bob").id, fact("bob", "knows", "carol").id]).tolist() == [0.25, 1.0]
        with led.batch(at=300) as b:
            b.assert_fact(fact("alice", "knows", "bob"), evidence=[ev])  # found by hkey + hash: unchanged
            assert b.retract(fact("bob", "knows", "carol")) == 1
        assert led.last_counts.unchanged == 1 and led.stats()["facts"] == 3
    db = sqlite3.connect(db_path)
    rows = db.execute("SELECT hash, hkey FROM facts").fetchall()
    assert rows and all(k == fact_key(h) == int.from_bytes(h[:8], "big", signed=True) for h, k in rows)
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "facts_hkey" in names and "facts_hash" not in names
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()


def _writes_and_reads(path) -> tuple:
    ev = Evidence("doc", extractor="x", extractor_version="1", confidence=0.5)
    facts = [fact("a", "p", "b"), fact("a", "p", "c"), fact("b", "q", 3), fact("c", "q", "b")]
    with Ledger.open(path) as led:
        with led.batch(at=100) as b:
            for f in facts:
                b.assert_fact(f, evidence=[ev] if f.object == iri("c") else [])
        with led.batch(at=200) as b:
            b.assert_fact(facts[0])
            b.retract(facts[2])
        unchanged = led.last_counts.unchanged
        return (unchanged, led.stats()["facts"], _facts_and_spans(led),
                [[(v.valid, v.system) for v in led.history(f)] for f in facts],
                led.confidences([f.id for f in facts]).tolist())


def test_colliding_hash_keys_are_told_apart_by_the_full_hash(tmp_path, monkeypatch):
    """Every lookup compares the full hash after the int64 key: with all keys equal, nothing changes."""
    from holokb.ledger import derived, reads, writes

    plain = _writes_and_reads(tmp_path / "plain.db")
    for mod in (writes, reads, derived):
        monkeypatch.setattr(mod, "fact_key", lambda h: 7)
    collided = _writes_and_reads(tmp_path / "collided.db")
    db = sqlite3.connect(tmp_path / "collided.db")
    assert {r[0] for r in db.execute("SELECT hkey FROM facts")} == {7}
    db.close()
    assert collided == plain and plain[0] == 1 and plain[1] == 4


def _dump(led: Ledger) -> tuple:
    db = led._db
    return (db.execute("PRAGMA user_version").fetchone(), db.execute("PRAGMA application_id").fetchone(),
            tuple(db.iterdump()))


def test_in_memory_ledgers_copied_from_the_template_equal_fully_migrated_ones(monkeypatch):
    """A new ``:memory:`` ledger gets its schema by copying a migrated template: the same schema,
    meta rows, version and identity as running every migration step, and independent copies
    (a write to one is not seen by the next)."""
    from holokb.ledger import store

    monkeypatch.setattr(store, "TEMPLATE_MEMORY", False)
    with Ledger.open(":memory:") as plain:
        want = _dump(plain)
    monkeypatch.setattr(store, "TEMPLATE_MEMORY", True)
    with Ledger.open(":memory:") as first:
        assert _dump(first) == want and first.schema_version == CURRENT_VERSION
        with first.batch(at=5) as b:
            b.assert_fact(fact("a", "p", "b"), evidence=(Evidence(document="doc"),))
        assert _dump(first) != want
        assert first._db.execute("PRAGMA foreign_keys").fetchone() == (1,)
    with Ledger.open(":memory:") as second:  # the template was not written through the first copy
        assert _dump(second) == want
