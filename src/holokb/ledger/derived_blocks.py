"""Stored closures as blocks: one ``derived_blocks`` row per group of derived facts, columns as arrays.

A block holds derived facts sharing predicate, arity, polarity, rule and binding names; its
per-fact columns are little-endian numpy arrays stored as blobs (explicit dtypes, so a file reads
the same on any machine): ``seq`` (positions in the closure), ``args`` (rows × arity term ids),
``valid_from`` / ``valid_to`` (``OPEN`` for an open end), ``depth``, ``score`` (NaN for none),
``premises`` (rows × k codes: an asserted fact's ``facts.fact_id`` > 0, ``-1 - seq`` for a derived
fact of the same closure, 0 for none) and ``bindings`` (rows × len(names) term ids).  One row a block
instead of one a fact: storing LUBM's 86k derived facts was SQLite's per-row insert floor (~4 µs).

:class:`ClosureTable` is a closure read back: every fact's scalar columns concatenated in block
order, with the blocks kept for args / premises / bindings; the readers of
:mod:`holokb.ledger.derived` filter and sort it with numpy.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..core.arrays import distinct
from ..core.time import MAX_TIME, MIN_TIME

#: The ``valid_to`` of an open interval (no closed interval ends at MIN_TIME: it must exceed its start).
OPEN = MIN_TIME
_I8 = np.dtype("<i8")
_F8 = np.dtype("<f8")

#: v8 (schema step in ``schema_v8``): the table, verbatim.
DDL = """
CREATE TABLE derived_blocks (
  closure_id INTEGER NOT NULL REFERENCES closures(closure_id) ON DELETE CASCADE,
  block      INTEGER NOT NULL,                               -- 0, 1, ... per closure
  p          INTEGER NOT NULL,                               -- predicate term id
  arity      INTEGER NOT NULL CHECK (arity >= 0),
  negated    INTEGER NOT NULL CHECK (negated IN (0, 1)),
  rule       TEXT NOT NULL,
  names      TEXT NOT NULL,                                  -- JSON array of the binding names
  n          INTEGER NOT NULL CHECK (n > 0),                 -- facts in the block
  k          INTEGER NOT NULL CHECK (k >= 0),                -- premise columns
  seq        BLOB NOT NULL,                                  -- <i8[n]
  args       BLOB NOT NULL,                                  -- <i8[n, arity], row-major
  valid_from BLOB NOT NULL,                                  -- <i8[n]
  valid_to   BLOB NOT NULL,                                  -- <i8[n], MIN_TIME = open
  depth      BLOB NOT NULL,                                  -- <i8[n]
  score      BLOB NOT NULL,                                  -- <f8[n], NaN = no score
  premises   BLOB NOT NULL,                                  -- <i8[n, k], 0 = none
  bindings   BLOB NOT NULL,                                  -- <i8[n, len(names)]
  PRIMARY KEY (closure_id, block)
) WITHOUT ROWID
"""

_COLS = ("p, arity, negated, rule, names, n, k, seq, args, valid_from, valid_to, depth, score, premises, "
         "bindings")
INSERT_BLOCK = f"INSERT INTO derived_blocks(closure_id, block, {_COLS}) VALUES ({', '.join('?' * 17)})"


@dataclass(frozen=True, slots=True, eq=False)
class Block:
    """Derived facts sharing predicate id, arity, polarity, rule and binding names (see the module)."""

    p: int
    arity: int
    negated: bool
    rule: str
    names: tuple[str, ...]
    seq: np.ndarray
    args: np.ndarray
    valid_from: np.ndarray
    valid_to: np.ndarray
    depth: np.ndarray
    score: np.ndarray
    premises: np.ndarray
    bindings: np.ndarray

    def params(self, closure_id: int, number: int) -> tuple:
        """The block's ``INSERT_BLOCK`` parameters."""
        n = len(self.seq)
        return (closure_id, number, self.p, self.arity, int(self.negated), self.rule, json.dumps(list(self.names)), n,
                self.premises.shape[1], _blob(self.seq, _I8), _blob(self.args, _I8), _blob(self.valid_from, _I8),
                _blob(self.valid_to, _I8), _blob(self.depth, _I8), _blob(self.score, _F8),
                _blob(self.premises, _I8), _blob(self.bindings, _I8))


def _blob(a: np.ndarray, dtype: np.dtype) -> bytes:
    return np.ascontiguousarray(a, dtype=dtype).tobytes()


def _array(blob: bytes, dtype: np.dtype, n: int, width: int | None = None) -> np.ndarray:
    a = np.frombuffer(blob, dtype=dtype)
    want = n if width is None else n * width
    if len(a) != want:
        raise ValueError(f"a derived block's column holds {len(a)} values, expected {want}")
    a = a.astype(dtype.newbyteorder("="), copy=False)
    return a if width is None else a.reshape(n, width)


def write_blocks(db: sqlite3.Connection, closure_id: int, first: int, blocks: Iterable[Block]) -> int:
    """Insert ``blocks`` numbered from ``first``; the next free number."""
    rows = [b.params(closure_id, first + i) for i, b in enumerate(blocks)]
    db.executemany(INSERT_BLOCK, rows)
    return first + len(rows)


def read_blocks(db: sqlite3.Connection, closure_id: int) -> list[Block]:
    """The blocks of a closure in block order."""
    out = []
    for (p, arity, negated, rule, names, n, k, seq, args, vf, vt, depth, score, premises,
         bindings) in db.execute(f"SELECT {_COLS} FROM derived_blocks WHERE closure_id = ? ORDER BY block",
                                 (closure_id,)):
        names = tuple(json.loads(names))
        out.append(Block(p, arity, bool(negated), rule, names, _array(seq, _I8, n), _array(args, _I8, n, arity),
                         _array(vf, _I8, n), _array(vt, _I8, n), _array(depth, _I8, n), _array(score, _F8, n),
                         _array(premises, _I8, n, k), _array(bindings, _I8, n, len(names))))
    return out


def blocks_of_rows(rows: list[tuple]) -> list[Block]:
    """Blocks for rows ``(seq, p, arity, negated, rule, names, args, valid_from, valid_to, depth, score,
    premise codes, binding ids)`` (``valid_to`` None = open, ``score`` None = none): one block per
    (p, arity, negated, rule, names) in the order first met; premise codes padded with 0."""
    groups: dict[tuple, list[tuple]] = {}
    for r in rows:
        key = tuple(r[1:6])
        g = groups.get(key)
        if g is None:
            g = groups[key] = []
        g.append(r)
    out = []
    for (p, arity, negated, rule, names), g in groups.items():
        m = len(g)
        k = max(len(r[11]) for r in g)
        premises = np.zeros((m, k), dtype=np.int64)
        if k:
            for i, r in enumerate(g):
                if r[11]:
                    premises[i, :len(r[11])] = r[11]
        out.append(Block(
            p, arity, negated, rule, names, np.array([r[0] for r in g], dtype=np.int64),
            np.array([r[6] for r in g], dtype=np.int64).reshape(m, arity),
            np.array([r[7] for r in g], dtype=np.int64),
            np.array([OPEN if r[8] is None else r[8] for r in g], dtype=np.int64),
            np.array([r[9] for r in g], dtype=np.int64),
            np.array([np.nan if r[10] is None else r[10] for r in g], dtype=np.float64),
            premises, np.array([r[12] for r in g], dtype=np.int64).reshape(m, len(names))))
    return out


@dataclass(eq=False)
class ClosureTable:
    """A stored closure's facts: per fact (in block order) its block, row in the block and scalar
    columns (``s`` / ``o`` = -1 when the fact has no such argument); ``where[seq]`` = its index."""

    blocks: list[Block]
    block: np.ndarray
    row: np.ndarray
    seq: np.ndarray
    p: np.ndarray
    arity: np.ndarray
    negated: np.ndarray
    s: np.ndarray
    o: np.ndarray
    valid_from: np.ndarray
    valid_to: np.ndarray
    where: np.ndarray

    @staticmethod
    def of(blocks: list[Block]) -> "ClosureTable":
        def cat(parts: list[np.ndarray]) -> np.ndarray:
            return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

        sizes = [len(b.seq) for b in blocks]
        n = sum(sizes)
        none = np.full(n, -1, dtype=np.int64)
        seq = cat([b.seq for b in blocks])
        where = np.full(n, -1, dtype=np.int64)
        if n:
            if seq.min() < 0 or seq.max() >= n:
                raise ValueError("a derived block names a position outside its closure")
            where[seq] = np.arange(n)
            if (where < 0).any():
                raise ValueError("a closure's derived blocks repeat a position")
        s = cat([b.args[:, 0] if b.arity else none[:len(b.seq)] for b in blocks])
        o = cat([b.args[:, 1] if b.arity > 1 else none[:len(b.seq)] for b in blocks])
        return ClosureTable(
            blocks, np.repeat(np.arange(len(blocks)), sizes), cat([np.arange(m) for m in sizes]), seq,
            np.repeat(np.array([b.p for b in blocks], dtype=np.int64), sizes),
            np.repeat(np.array([b.arity for b in blocks], dtype=np.int64), sizes),
            np.repeat(np.array([b.negated for b in blocks], dtype=bool), sizes), s, o,
            cat([b.valid_from for b in blocks]), cat([b.valid_to for b in blocks]), where)

    def __len__(self) -> int:
        return len(self.seq)

    def rest_first(self) -> np.ndarray:
        """Per fact its third argument's term id (-1 without one)."""
        parts = [b.args[:, 2] if b.arity > 2 else np.full(len(b.seq), -1, dtype=np.int64) for b in self.blocks]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def sort_order(db: sqlite3.Connection, table: ClosureTable, idx: np.ndarray, predicate_text: dict[int, str]) -> np.ndarray:
    """``idx`` (fact indexes of ``table``) sorted as ``derived_facts`` lists them: predicate IRI,
    negated, per argument the object key (kind, datatype, lexical, canonical bytes) of args[0],
    args[1], the concatenated canonical bytes of args[2:] (none first), valid_from, valid_to (open
    last), position."""
    if not len(idx):
        return idx
    p = table.p[idx]
    p_ids = distinct(p)
    p_rank = _rank(p_ids, [predicate_text[i] for i in p_ids.tolist()])[np.searchsorted(p_ids, p)]
    s, o = table.s[idx], table.o[idx]
    ids = distinct(np.concatenate([s, o]))
    ids = ids[ids >= 0]
    keys, canon = _term_keys(db, ids)
    rank = _rank(ids, keys)

    def term_rank(col: np.ndarray) -> np.ndarray:
        out = np.full(len(col), -1, dtype=np.int64)
        has = col >= 0
        out[has] = rank[np.searchsorted(ids, col[has])]
        return out

    rest = _rest_ranks(db, table, idx, canon)
    vt = table.valid_to[idx]
    vt = np.where(vt == OPEN, MAX_TIME, vt)
    order = np.lexsort((table.seq[idx], vt, table.valid_from[idx], rest, term_rank(o), term_rank(s),
                        table.negated[idx], p_rank))
    return idx[order]


def _rest_ranks(db: sqlite3.Connection, table: ClosureTable, idx: np.ndarray, canon: dict[int, bytes]) -> np.ndarray:
    """Per fact of ``idx`` the rank of its args[2:] canonical bytes, concatenated (-1 without them).
    A ternary fact's key is one term's bytes: ranked per distinct term, not per row."""
    rest = np.full(len(idx), -1, dtype=np.int64)
    arity = table.arity[idx]
    three = np.flatnonzero(arity == 3)
    more = np.flatnonzero(arity > 3)
    third = table.rest_first()[idx[three]]
    ids3 = distinct(third)
    wide = [table.blocks[b].args[r, 2:].tolist() for b, r in zip(table.block[idx[more]].tolist(),
                                                                  table.row[idx[more]].tolist())]
    missing = ({*ids3.tolist()} | {t for w in wide for t in w}) - canon.keys()
    canon.update(_term_keys(db, np.array(sorted(missing), dtype=np.int64))[1])
    keys3 = [canon[t] for t in ids3.tolist()]
    keys_wide = [b"".join([canon[t] for t in w]) for w in wide]
    pos = {k: i for i, k in enumerate(sorted({*keys3, *keys_wide}))}
    if len(three):
        rest[three] = np.array([pos[k] for k in keys3], dtype=np.int64)[np.searchsorted(ids3, third)]
    if len(more):
        rest[more] = [pos[k] for k in keys_wide]
    return rest


def _rank(ids: np.ndarray, keys: list) -> np.ndarray:
    """Per id (sorted ``ids``) the rank of its key among ``keys`` (equal keys, equal rank)."""
    ranks = np.zeros(len(ids), dtype=np.int64)
    prev, r = object(), -1
    for i in sorted(range(len(keys)), key=keys.__getitem__):
        if keys[i] != prev:
            r += 1
            prev = keys[i]
        ranks[i] = r
    return ranks


def _term_keys(db: sqlite3.Connection, ids: np.ndarray) -> tuple[list[tuple], dict[int, bytes]]:
    """The object keys (kind, datatype, lexical, canon) of sorted ``ids`` and their canon by id."""
    if not len(ids):
        return [], {}
    found = {r[0]: r[1:] for r in db.execute(
        "SELECT term_id, kind, datatype, lexical, canon FROM terms WHERE term_id IN (SELECT value FROM json_each(?))",
        (json.dumps(ids.tolist()),))}
    keys = [found[i] for i in ids.tolist()]
    return keys, {i: k[3] for i, k in zip(ids.tolist(), keys)}


def literal_ids(db: sqlite3.Connection, ids: np.ndarray) -> np.ndarray:
    """The literals (kind 1) among term ``ids``, sorted."""
    ids = distinct(ids[ids >= 0])
    if not len(ids):
        return ids
    rows = db.execute("SELECT term_id FROM terms WHERE kind = 1 AND term_id IN (SELECT value FROM json_each(?))",
                      (json.dumps(ids.tolist()),)).fetchall()
    return np.array(sorted(r[0] for r in rows), dtype=np.int64)
