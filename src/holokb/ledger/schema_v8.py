"""Ledger schema step v7 -> v8: derived facts move from one ``derived`` row each to ``derived_blocks``.

Every stored closure's rows are folded into blocks (:mod:`holokb.ledger.derived_blocks`) with the
same content: a v7 row's ``rest`` (JSON ids of args[2:]), ``premises`` (comma-separated codes) and
``bindings`` (flat JSON ``[name, id, ...]``) become array columns; ``rest_key`` is dropped (readers
sort by the terms' canonical bytes, which it concatenated).  Then ``derived`` and its indexes go.
In its own module so that another step added meanwhile only renumbers the list in ``schema``.
"""
from __future__ import annotations

import json
import sqlite3

_V7_COLS = "seq, p, arity, s, o, rest, negated, valid_from, valid_to, rule, depth, score, premises, bindings"


def step_v7_to_v8(db: sqlite3.Connection) -> None:
    from .derived_blocks import DDL, blocks_of_rows, write_blocks

    db.execute(DDL)
    for (cid,) in db.execute("SELECT closure_id FROM closures ORDER BY closure_id").fetchall():
        rows = []
        for seq, p, arity, s, o, rest, negated, vf, vt, rule, depth, score, premises, bindings in db.execute(
                f"SELECT {_V7_COLS} FROM derived WHERE closure_id = ? ORDER BY seq", (cid,)):
            args = [i for i in (s, o) if i is not None] + (json.loads(rest) if rest else [])
            if len(args) != arity:
                raise sqlite3.DatabaseError(f"derived row {cid}:{seq} has {len(args)} args, arity {arity}")
            flat = json.loads(bindings)
            rows.append((seq, p, arity, bool(negated), rule, tuple(flat[0::2]), args, vf, vt, depth, score,
                         [int(x) for x in premises.split(",")] if premises else [], flat[1::2]))
        write_blocks(db, cid, 0, blocks_of_rows(rows))
    db.execute("DROP TABLE derived")  # its indexes go with it
