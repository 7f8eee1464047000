"""The lookup indexes a columnar load into an empty file defers (schema.DEFERRED_INDEXES, v9).

Every reader that looks a term or a fact up builds them first and answers exactly as on a file
that has them; a reader that only scans leaves them deferred; a reader that cannot take the write
lock answers the same without them; every write builds them; a v8 file migrates to v9.
"""
from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from holokb.core import AsOf, Evidence, Fact, IRI, Limits, Literal, RDF_TYPE, SpanRecord
from holokb.ledger import CURRENT_VERSION, Ledger
from holokb.ledger.schema import DEFERRED_INDEXES

from ledger_support import fact, iri

AT = 1_000
TYPE = IRI(RDF_TYPE)
LABEL = IRI("http://www.w3.org/2000/01/rdf-schema#label")


def _triples() -> list[tuple]:
    out = []
    for i in range(40):
        s = iri(f"s{i}")
        out += [(s, TYPE, iri(f"C{i % 3}")), (s, iri("knows"), iri(f"s{(i * 7) % 40}")),
                (s, iri("age"), Literal.of(20 + i % 5)), (s, LABEL, Literal.of(f"Name {i % 9}"))]
    return out


def _load(path) -> Ledger:
    led = Ledger.open(path)
    always = SpanRecord(Fact(iri("x"), iri("p"), iri("y"))).valid
    led.bulk_assert([SpanRecord(Fact(*t), always, always) for t in _triples()], at=AT)
    return led


def _indexes(path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    finally:
        db.close()


def _views(page) -> list:
    return [(v.fact.id, v.valid, v.system) for v in page] if not isinstance(page, (list, dict, tuple)) else page


NOW = AsOf.latest()
#: (name, reader, whether it looks a fact up (True: then it builds the deferred indexes) or only a
#: term ("terms": then terms_canon alone))
READERS = [
    ("facts about", lambda led: _views(led.facts(NOW, about=iri("s3"), limits=Limits.unbounded())), True),
    ("facts predicate", lambda led: _views(led.facts(NOW, predicate=iri("age"), limits=Limits.unbounded())), True),
    ("facts object", lambda led: _views(led.facts(NOW, obj=iri("s21"), limits=Limits.unbounded())), True),
    ("neighbors out", lambda led: _views(led.neighbors(iri("s5"), NOW, limits=Limits.unbounded())), True),
    ("neighbors in", lambda led: _views(led.neighbors(iri("s5"), NOW, direction="in")), True),
    ("neighbors both by predicate", lambda led: _views(led.neighbors(iri("s5"), NOW, direction="both",
                                                                     predicates=[iri("knows")])), True),
    ("history of a fact", lambda led: [(v.valid, v.system) for v in led.history(fact("s4", "knows", "s28"))], True),
    ("history of subject and predicate", lambda led: [(v.fact.id, v.system) for v in led.history((iri("s4"), iri("age")))],
     True),
    ("types_of", lambda led: led.types_of([iri("s1"), iri("s2"), iri("nobody")], NOW), True),
    ("open_values", lambda led: led.open_values(iri("s6"), LABEL, NOW), True),
    ("predicate", lambda led: led.predicate(iri("knows")), "terms"),
    ("relations", lambda led: led.relations(), True),
    ("term_ids", lambda led: led.term_ids([iri("s9"), Literal.of(21), iri("nobody")]), "terms"),
    ("confidences", lambda led: led.confidences([fact("s4", "knows", "s28").id]).tolist(), False),  # no evidence
    ("facts unfiltered", lambda led: _views(led.facts(NOW, limits=Limits.unbounded())), False),
    ("visible", lambda led: sorted(map(str, led.visible(NOW))), False),
    ("spans", lambda led: [(r.fact.id, r.system) for r in led.spans()], False),
    ("encoded_visible", lambda led: len(led.encoded_visible(NOW)), False),
    ("recorded_facts", lambda led: len(led.recorded_facts(AT)), False),
    ("stats", lambda led: led.stats(), False),
    ("predicates", lambda led: led.predicates(), False),
    ("terms", lambda led: led.terms([1, 2, 3]), False),
]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """A file loaded columnar (the lookup indexes deferred) and its indexed twin's answers."""
    d = tmp_path_factory.mktemp("deferred")
    led = _load(d / "deferred.db")
    led.close()
    assert not set(DEFERRED_INDEXES) & _indexes(d / "deferred.db")
    shutil.copy(d / "deferred.db", d / "indexed.db")
    with Ledger.open(d / "indexed.db") as led:
        led._ensure_indexes()
        want = {name: read(led) for name, read, _ in READERS}
    assert set(DEFERRED_INDEXES) <= _indexes(d / "indexed.db")
    return d, want


@pytest.mark.parametrize("name,read,builds", READERS, ids=[r[0] for r in READERS])
def test_each_reader_answers_as_with_the_indexes_and_builds_them_when_it_looks_up(loaded, tmp_path, name, read, builds):
    d, want = loaded
    path = tmp_path / "kb.db"
    shutil.copy(d / "deferred.db", path)
    with Ledger.open(path) as led:
        assert read(led) == want[name]
        assert read(led) == want[name]  # and again, from whatever it built or cached
    built = set(DEFERRED_INDEXES) & _indexes(path)
    assert built == ({"terms_canon"} if builds == "terms" else set(DEFERRED_INDEXES) if builds else set())
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()


def test_a_reader_that_cannot_take_the_write_lock_answers_without_the_indexes(loaded, tmp_path):
    d, want = loaded
    path = tmp_path / "kb.db"
    shutil.copy(d / "deferred.db", path)
    other = sqlite3.connect(path, isolation_level=None)
    led = Ledger.open(path, timeout_s=0.05)
    try:
        other.execute("BEGIN IMMEDIATE")  # another writer holds the lock
        assert _views(led.facts(NOW, about=iri("s3"), limits=Limits.unbounded())) == want["facts about"]
        assert led.types_of([iri("s1"), iri("s2"), iri("nobody")], NOW) == want["types_of"]
        assert not set(DEFERRED_INDEXES) & _indexes(path)
        other.execute("ROLLBACK")
        other.execute("UPDATE meta SET change_marker = change_marker + 1")  # a commit: the next read tries again
        assert _views(led.neighbors(iri("s5"), NOW, limits=Limits.unbounded())) == want["neighbors out"]
        assert set(DEFERRED_INDEXES) <= _indexes(path)
    finally:
        led.close()
        other.close()


def test_a_reader_inside_a_read_transaction_builds_them_in_it(loaded, tmp_path):
    d, want = loaded
    path = tmp_path / "kb.db"
    shutil.copy(d / "deferred.db", path)
    with Ledger.open(path) as led:
        with led.read_transaction():
            assert led.open_values(iri("s6"), LABEL, NOW) == want["open_values"]
        assert set(DEFERRED_INDEXES) <= _indexes(path)
        assert led.stats() == want["stats"]


def test_a_write_after_the_load_builds_them_and_finds_what_the_load_wrote(loaded, tmp_path):
    d, want = loaded
    path = tmp_path / "kb.db"
    shutil.copy(d / "deferred.db", path)
    ev = Evidence("doc", extractor="x", extractor_version="1", confidence=0.5)
    with Ledger.open(path) as led:
        with led.batch(at=AT + 1) as b:
            inside = {r[0] for r in led._db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
            assert set(DEFERRED_INDEXES) <= inside  # built inside the batch, before its first write
            b.assert_fact(fact("s4", "knows", "s28"))  # loaded already: unchanged
            b.assert_fact(fact("s4", "knows", "s99"), evidence=[ev])
        assert led.last_counts.unchanged == 1 and led.last_counts.new == 1
        assert led.stats()["facts"] == want["stats"]["facts"] + 1
        assert led.confidences([fact("s4", "knows", "s99").id]).tolist() == [0.5]
        db = led._db
        assert db.execute("SELECT count(*) FROM terms").fetchone()[0] == db.execute(
            "SELECT count(DISTINCT canon) FROM terms").fetchone()[0]


def test_a_stored_closure_builds_only_the_term_index_and_the_next_read_the_rest(loaded, tmp_path):
    """A closure stored as id columns (what ``holokb derive`` stores) interns terms (terms_canon's
    uniqueness) but looks no fact up: it builds terms_canon alone, and a reader of facts the rest.
    Stored as records, it finds asserted premises by hash: every deferred index first."""
    from holokb.analysis import analyze
    from holokb.kb import KnowledgeBase, derived_records
    from holokb.syntax import parse_rules

    d, want = loaded
    prog = analyze(parse_rules(
        "@prefix ex: <http://example.org/> .\n"
        "rule r: ex:q(?x, ?n) :- ex:age(?x, ?a), ?n = ?a + 100.\n"))
    path = tmp_path / "kb.db"
    shutil.copy(d / "deferred.db", path)
    with KnowledgeBase.open(path) as kb:
        kb.ledger.store_rule_set("h", "rule text")
        assert not set(DEFERRED_INDEXES) & _indexes(path)
        _, info = kb.derive_and_store(prog, as_of=NOW, computed_at=AT + 1)
        assert info.derived == 40  # ?a + 100 mints five new integer terms
        assert set(DEFERRED_INDEXES) & _indexes(path) == {"terms_canon"}
        led = kb.ledger
        db = led._db
        assert db.execute("SELECT count(*) FROM terms").fetchone()[0] == db.execute(
            "SELECT count(DISTINCT canon) FROM terms").fetchone()[0]
        assert led.term_ids([iri("s9"), Literal.of(21), iri("nobody")]) == want["term_ids"]
        assert set(DEFERRED_INDEXES) & _indexes(path) == {"terms_canon"}
        assert _views(led.facts(NOW, about=iri("s3"), limits=Limits.unbounded())) == want["facts about"]
        assert set(DEFERRED_INDEXES) <= _indexes(path)
    shutil.copy(d / "deferred.db", path)
    with KnowledgeBase.open(path) as kb:
        model = kb.derive(prog, as_of=NOW, record_proofs=True)
        kb.ledger.store_closure(rule_set_hash="h", as_of=NOW, computed_at=AT + 1, derived=derived_records(model))
        assert set(DEFERRED_INDEXES) <= _indexes(path)


def test_a_rolled_back_batch_leaves_them_deferred_and_the_next_read_builds_them(loaded, tmp_path):
    d, want = loaded
    path = tmp_path / "kb.db"
    shutil.copy(d / "deferred.db", path)
    with Ledger.open(path) as led:
        with pytest.raises(RuntimeError):
            with led.batch(at=AT + 1) as b:
                b.assert_fact(fact("s4", "knows", "s99"))
                raise RuntimeError("abandon")
        assert not set(DEFERRED_INDEXES) & _indexes(path)
        assert led.term_ids([iri("s9"), Literal.of(21), iri("nobody")]) == want["term_ids"]
        assert set(DEFERRED_INDEXES) & _indexes(path) == {"terms_canon"}
        assert [(v.fact.id, v.system) for v in led.history((iri("s4"), iri("age")))] == \
            want["history of subject and predicate"]
        assert set(DEFERRED_INDEXES) <= _indexes(path)


def test_a_v8_file_migrates_to_v9_unchanged(tmp_path):
    """A file made with v8's schema (v9 changes no table or index: only what a load may defer)."""
    path = tmp_path / "kb.db"
    with Ledger.open(path) as led:
        with led.batch(at=AT) as b:
            b.assert_fact(fact("alice", "knows", "bob"))
            b.assert_fact(fact("alice", "age", 41))
        before = _indexes(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 8")
    db.commit()
    schema = db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    rows = db.execute("SELECT * FROM facts ORDER BY fact_id").fetchall()
    db.close()
    with Ledger.open(path) as led:
        assert led.schema_version == CURRENT_VERSION == 9
        assert [v.fact.object.value for v in led.facts(NOW, about=iri("alice"), predicate=iri("age"))] == [41]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 9
    assert db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall() == schema
    assert db.execute("SELECT * FROM facts ORDER BY fact_id").fetchall() == rows
    db.close()
    assert _indexes(path) == before and set(DEFERRED_INDEXES) <= before


def test_a_v9_file_is_refused_by_a_v8_holokb(loaded, tmp_path, monkeypatch):
    """What the version is for: an older holokb must not write terms where terms_canon is deferred."""
    from holokb.core.errors import LedgerTooNewError
    from holokb.ledger import schema

    d, _ = loaded
    monkeypatch.setattr(schema, "CURRENT_VERSION", 8)
    db = sqlite3.connect(d / "deferred.db")
    try:
        with pytest.raises(LedgerTooNewError):
            schema.check_identity(db)
    finally:
        db.close()


_CHILD = textwrap.dedent("""
    import sys
    from holokb.core import AsOf, IRI, Fact, Literal, SpanRecord
    from holokb.ledger import Ledger
    path, n = sys.argv[1], int(sys.argv[2])
    EX = "http://example.org/"
    recs = [SpanRecord(Fact(IRI(EX + "s" + str(i % 4999)), IRI(EX + "p" + str(i % 7)), Literal.of(i))) for i in range(n)]
    with Ledger.open(path) as led:
        print("started", flush=True)
        led.bulk_assert(recs, at=1000)       # columnar into an empty file: the lookup indexes deferred
        print("loaded", flush=True)
        led.facts(AsOf.latest(), about=IRI(EX + "s1"))  # builds them
    print("done", flush=True)
""")


def test_kill_9_during_the_load_or_the_index_build_leaves_all_or_nothing(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    n = 40_000
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    seen = set()
    for round_, (wait_for, delay) in enumerate((("started", 0.3), ("loaded", 0.0), ("loaded", 0.05), ("loaded", 0.15))):
        path = tmp_path / f"crash{round_}.db"
        proc = subprocess.Popen([sys.executable, str(script), str(path), str(n)], stdout=subprocess.PIPE, env=env, text=True)
        line = proc.stdout.readline().strip()
        while line != wait_for and line:
            line = proc.stdout.readline().strip()
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        facts = db.execute("SELECT count(*) FROM facts").fetchone()[0] if db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'facts'").fetchone() else 0
        built = set(DEFERRED_INDEXES) & {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        db.close()
        assert facts in (0, n), f"round {round_}: partial load of {facts} facts"
        assert built in (set(), set(DEFERRED_INDEXES)) or facts == 0, f"round {round_}: some indexes only: {built}"
        seen.add((facts, len(built)))
        with Ledger.open(path) as led:  # whatever the kill left reads right (and builds what is missing)
            got = led.facts(AsOf.latest(), about=IRI("http://example.org/s1"), limits=Limits.unbounded())
            assert sorted(v.fact.object.value for v in got) == (list(range(1, n, 4999)) if facts else [])
    assert any(f == n for f, _ in seen)  # the later kills found the load committed


def test_an_in_memory_ledger_defers_and_builds_them_too():
    with Ledger.open(":memory:") as led:
        led.bulk_assert([SpanRecord(Fact(*t)) for t in _triples()], at=AT)
        have = lambda: {r[0] for r in led._db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert not set(DEFERRED_INDEXES) & have()
        with led.batch(at=AT + 1) as b:
            b.assert_fact(fact("s4", "knows", "s99"))
        assert set(DEFERRED_INDEXES) <= have()
        assert [v.fact.object.value for v in led.facts(NOW, about=iri("s4"), predicate=iri("age"))] == [24]
