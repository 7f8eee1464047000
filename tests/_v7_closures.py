"""v7 stored closures for migration tests: a builder that rewrites a current ledger file's closures
as v7 ``derived`` rows (one row a fact, the text format of ``schema._V3``), and the v7 readers' SQL
(what ``ledger/derived.py`` ran on v7 files) to compare the v8 readers against.

Not a binary fixture: the rows are made from today's closures, so every case a test can store
(random programs, minted literals, ternary heads, open and closed intervals) has a v7 twin.
"""
from __future__ import annotations

import json
import sqlite3

from holokb.core import AssertedRef, DerivedRef
from holokb.core.time import MAX_TIME
from holokb.ledger import Ledger
from holokb.ledger.schema import DERIVED_INDEXES, _V3, _statements

_INS = ("INSERT INTO derived(closure_id, seq, p, arity, s, o, rest, rest_key, negated, valid_from, valid_to, rule, "
        "depth, score, premises, bindings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def make_v7(path) -> None:
    """Rewrite the closures of the (closed) ledger file at ``path`` as a v7 file: ``derived`` rows
    instead of ``derived_blocks``, ``user_version`` 7."""
    rows = []
    with Ledger.open(path) as led:
        db = led._db
        for info in led.closures():
            for seq, r in enumerate(led.stored_closure(info).derived):
                args = led.term_ids(r.args)
                p = led.term_ids([r.predicate])[0]
                assert None not in args and p is not None
                rest = rest_key = None
                if len(args) > 2:
                    rest = json.dumps(args[2:])
                    rest_key = b"".join(db.execute("SELECT canon FROM terms WHERE term_id = ?", (i,)).fetchone()[0]
                                        for i in args[2:])
                codes = []
                for ref in r.premises:
                    if isinstance(ref, DerivedRef):
                        codes.append(-ref.seq - 1)
                    else:
                        assert isinstance(ref, AssertedRef)
                        codes.append(db.execute("SELECT fact_id FROM facts WHERE hash = ?",
                                                (bytes.fromhex(ref.fact_id),)).fetchone()[0])
                flat = []
                for name, value in r.bindings:
                    flat += [name, led.term_ids([value])[0]]
                rows.append((info.id, seq, p, len(args), args[0] if args else None,
                             args[1] if len(args) > 1 else None, rest, rest_key, int(r.negated), r.valid.start,
                             r.valid.end, r.rule, r.depth, r.score, ",".join(map(str, codes)),
                             json.dumps(flat, separators=(",", ":"))))
    db = sqlite3.connect(path)
    try:
        ddl = next(s for s in _statements(_V3) if s.startswith("CREATE TABLE derived"))
        db.execute(ddl)
        for _, sql in DERIVED_INDEXES:
            db.execute(sql)
        db.executemany(_INS, rows)
        db.execute("DROP TABLE derived_blocks")
        db.execute("PRAGMA user_version = 7")
        db.commit()
    finally:
        db.close()


def v7_fact_order(path, closure_id: int, s: int | None = None, p: int | None = None,
                  o: int | None = None) -> list[int]:
    """Positions in the order v7's ``derived_facts`` listed them (filters by term id)."""
    where, args = ["d.closure_id = ?"], [closure_id]
    for col, tid in (("d.s", s), ("d.p", p), ("d.o", o)):
        if tid is not None:
            where.append(f"{col} = ?")
            args.append(tid)
    with sqlite3.connect(path) as db:
        return [r[0] for r in db.execute(
            "SELECT d.seq FROM derived d JOIN terms tp ON tp.term_id = d.p "
            "LEFT JOIN terms ts ON ts.term_id = d.s LEFT JOIN terms tob ON tob.term_id = d.o "
            f"WHERE {' AND '.join(where)} ORDER BY tp.lexical, d.negated, ts.kind, ts.datatype, ts.lexical, "
            "ts.canon, tob.kind, tob.datatype, tob.lexical, tob.canon, d.rest_key, d.valid_from, "
            "coalesce(d.valid_to, ?), d.seq", (*args, MAX_TIME))]


def v7_triple_ids(path, closure_id: int, valid: int, triple_id: int | None) -> list[tuple[int, int, int]]:
    """v7's ``derived_triple_ids``."""
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT d.s, CASE WHEN d.rest IS NULL THEN d.p ELSE d.o END, "
            "CASE WHEN d.rest IS NULL THEN d.o ELSE json_extract(d.rest, '$[0]') END "
            "FROM derived d JOIN terms ts ON ts.term_id = d.s LEFT JOIN terms tq ON tq.term_id = d.o "
            "WHERE d.closure_id = ? AND d.negated = 0 AND ts.kind = 0 AND d.valid_from <= ? "
            "AND (d.valid_to IS NULL OR d.valid_to > ?) AND (d.arity = 2 OR (d.arity = 3 AND d.p = ?)) "
            "AND (d.rest IS NULL OR tq.kind = 0) ORDER BY d.seq",
            (closure_id, valid, valid, -1 if triple_id is None else triple_id)).fetchall()


def v7_encoded_derived(path, closure_id: int) -> list[tuple[int, ...]]:
    """v7's ``encoded_derived`` rows (s, p, o, valid_from, valid_to) in its order."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT s, p, o, valid_from, coalesce(valid_to, ?), seq FROM derived "
                          "WHERE closure_id = ? AND arity = 2 AND negated = 0", (MAX_TIME, closure_id)).fetchall()
    return [r[:5] for r in sorted(rows)]
