"""``ledger.marker.read_marker`` (what a warm ``holokb query`` checks its disk snapshot against,
without importing the Ledger class) reads the same markers as an open Ledger, after every kind of
write, and declines (None) every file ``Ledger.open`` would create, migrate or refuse."""
from __future__ import annotations

import sqlite3

from holokb.core import Evidence, Fact, Interval, IRI, Literal
from holokb.ledger import CURRENT_VERSION, Ledger
from holokb.ledger.marker import read_marker

T = 1_700_000_000_000


def both(path) -> tuple:
    with Ledger.open(path) as led:
        want = (led.change_marker(), led.content_marker())
    got = read_marker(path)
    assert got is not None and got.path == str(path)
    return want, (got.change_marker(), got.content_marker())


def test_read_marker_equals_the_ledgers_markers_after_each_write(db_path):
    Ledger.open(db_path).close()
    seen = []
    want, got = both(db_path)
    assert got == want
    seen.append(got)
    fact = Fact(IRI("http://e/a"), IRI("http://e/p"), Literal.of(1))
    steps = [
        lambda b: b.assert_fact(fact),
        lambda b: b.assert_fact(Fact(IRI("http://e/a"), IRI("http://e/q"), IRI("http://e/b")),
                                valid=Interval(T, T + 10), evidence=[Evidence("doc", confidence=0.5)]),
        lambda b: b.retract(fact),
    ]
    for k, step in enumerate(steps):
        with Ledger.open(db_path) as led, led.batch(at=T + 1000 * (k + 1)) as b:
            step(b)
        want, got = both(db_path)
        assert got == want
        seen.append(got)
    assert len(set(seen)) == len(seen)  # every write moved it


def test_read_marker_declines_what_ledger_open_would_create_migrate_or_refuse(tmp_path):
    assert read_marker(tmp_path / "missing.db") is None
    assert read_marker(":memory:") is None
    (tmp_path / "text.db").write_text("not a database at all, " * 100)
    assert read_marker(tmp_path / "text.db") is None
    sqlite3.connect(tmp_path / "other.db").execute("CREATE TABLE t(x)").connection.close()
    assert read_marker(tmp_path / "other.db") is None
    older = tmp_path / "older.db"
    Ledger.open(older).close()
    assert read_marker(older) is not None
    db = sqlite3.connect(older)
    db.execute(f"PRAGMA user_version = {CURRENT_VERSION - 1}")
    db.close()
    assert read_marker(older) is None
