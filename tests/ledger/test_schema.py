"""Schema identity, versions, migrations and foreign keys."""
from __future__ import annotations

import sqlite3

import pytest

from holokb.core import AsOf, Evidence, SchemaVersionError
from holokb.ledger import APPLICATION_ID, CURRENT_VERSION, Ledger
from holokb.ledger import schema
from holokb.ledger.views import span_hash

from ledger_support import fact, iri


def test_new_file_has_identity_and_current_version(db_path):
    with Ledger.open(db_path) as led:
        assert led.schema_version == CURRENT_VERSION == 6
    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA user_version").fetchone()[0] == 6
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
