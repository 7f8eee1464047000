"""Stored closures from columns: derived facts as term-id arrays, written without a Python object per fact.

:class:`DerivedColumns` is what a closure computed over this ledger's own term ids looks like
(the engine's proof steps grouped by relation and rule): every group's rows share a predicate,
polarity, rule and proof layout, so that each is stored as one block of arrays
(:mod:`holokb.ledger.derived_blocks`).  What reads back, and the terms table, are the same as storing
the same facts as :class:`~holokb.ledger.derived.DerivedRecord` (terms the closure minted are
interned at their first use in row order, as the record path does).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from ..core.errors import InvalidValueError, LedgerError
from ..core.fact_columns import FactColumns
from ..core.terms import IRI, Term
from ..core.time import MAX_TIME

if TYPE_CHECKING:  # numpy loads where arrays are read: a ledger opened for a count stays light
    import sqlite3

    import numpy as np

    from .derived import _ClosureWriter


@dataclass(frozen=True, slots=True)
class DerivedGroup:
    """Derived facts sharing predicate, polarity, rule and proof layout (one row per fact): ``facts``
    (positions in the closure, term-id args, intervals with int64 max = MAX_TIME for an open end,
    depths, scores); ``premises``: (rows × k) premise codes in body order — an asserted fact's
    ledger row id (``> 0``), ``-1 - seq`` for the derived fact at position ``seq``, 0 for none (left
    out); ``bindings``: (rows × len(names)) term ids of the variables ``binding_names`` (sorted)."""

    facts: FactColumns
    premises: np.ndarray
    binding_names: tuple[str, ...]
    bindings: np.ndarray


@dataclass(frozen=True, slots=True)
class DerivedColumns:
    """A closure as :class:`DerivedGroup` s covering positions ``0 .. count-1`` once each.  Term ids
    are this ledger's except the keys of ``minted`` (terms the ledger may lack, interned on the way)."""

    groups: tuple[DerivedGroup, ...]
    count: int
    minted: Mapping[int, Term]


def write_columns(writer: "_ClosureWriter", closure: DerivedColumns) -> None:
    """Every fact of ``closure`` through ``writer`` (its terms and counters), one block per group."""
    import numpy as np

    from .derived_blocks import OPEN, Block, write_blocks

    _check(writer, closure)
    remap, _ = _intern_minted(writer, closure)
    blocks = []
    max_ref = -1
    for g in closure.groups:
        f = g.facts
        m = len(f)
        if not m:
            continue
        args = remap(f.args)
        arity = args.shape[1]
        if arity == 2 and not f.negated:
            writer.binary += m
        codes = np.asarray(g.premises, dtype=np.int64).reshape(m, -1)
        derived = codes[codes < 0]
        if len(derived):
            max_ref = max(max_ref, int(-derived.min()) - 1)
        vt = np.asarray(f.valid_to, dtype=np.int64)
        blocks.append(Block(
            writer.term(IRI(f.predicate)), arity, bool(f.negated), f.rule, tuple(g.binding_names),
            np.asarray(f.seq, dtype=np.int64), args, np.asarray(f.valid_from, dtype=np.int64),
            np.where(vt == MAX_TIME, OPEN, vt), np.asarray(f.depth, dtype=np.int64),
            np.full(m, np.nan) if f.score is None else np.asarray(f.score, dtype=np.float64), codes,
            remap(g.bindings).reshape(m, len(g.binding_names))))
        writer.rule_counts[f.rule] += m
    writer.n = closure.count
    writer.max_ref = max(writer.max_ref, max_ref)
    pending = writer.terms.take_pending()
    if pending:
        from .sql import INSERT_TERM

        writer.db.executemany(INSERT_TERM, pending)
    writer.block = write_blocks(writer.db, writer.cid, writer.block, blocks)


def _check(writer: "_ClosureWriter", closure: DerivedColumns) -> None:
    """Positions cover 0..count-1 once; scores are finite; asserted premises are facts of this ledger."""
    import numpy as np
    from ..core.arrays import distinct

    n = closure.count
    seqs, asserted = [], []
    for g in closure.groups:
        seq, score = np.asarray(g.facts.seq, dtype=np.int64), g.facts.score
        if len(seq) and (seq.min() < 0 or seq.max() >= n):
            raise InvalidValueError(f"derived positions must lie in [0, {n}), got {int(seq.min())}..{int(seq.max())}")
        seqs.append(seq)
        if score is not None and not np.isfinite(score).all():
            bad = np.flatnonzero(~np.isfinite(score))[0]
            raise InvalidValueError(f"derived fact d:{int(seq[bad])} has a non-finite score {float(score[bad])!r}")
        if g.premises.size:
            asserted.append(g.premises[g.premises > 0])
    seen = np.bincount(np.concatenate(seqs), minlength=n) if seqs else np.zeros(n, dtype=np.int64)
    if n and (seen != 1).any():
        raise InvalidValueError(f"derived position d:{int(np.flatnonzero(seen != 1)[0])} is not given exactly once")
    ids = distinct(np.concatenate(asserted)) if asserted else np.zeros(0, np.int64)
    if len(ids) and not _all_facts(writer.db, int(ids[0]), int(ids[-1])):
        found = writer.db.execute("SELECT count(*) FROM facts WHERE fact_id IN (SELECT value FROM json_each(?))",
                                  (json.dumps(ids.tolist()),)).fetchone()[0]
        if found != len(ids):
            have = {r[0] for r in writer.db.execute(
                "SELECT fact_id FROM facts WHERE fact_id IN (SELECT value FROM json_each(?))",
                (json.dumps(ids.tolist()),))}
            missing = next(i for i in ids.tolist() if i not in have)
            raise LedgerError(f"a derived fact names premise fact #{missing}, which is not an asserted fact of this "
                              "ledger")


def _all_facts(db: sqlite3.Connection, low: int, high: int) -> bool:
    """Whether every id in ``[low, high]`` is a fact row: the fact rows have no gap (their count spans
    their smallest to largest id; each of the three is one lookup, where probing 45k ids costs ~25 ms)
    and cover the range."""
    first = db.execute("SELECT min(fact_id) FROM facts").fetchone()[0]
    last = db.execute("SELECT max(fact_id) FROM facts").fetchone()[0]
    if first is None or not first <= low <= high <= last:
        return False
    return db.execute("SELECT count(*) FROM facts").fetchone()[0] == last - first + 1


def _intern_minted(writer: "_ClosureWriter", closure: DerivedColumns):
    """Intern the minted terms and the predicates in the order the record path meets them (row by row:
    args, predicate, bindings); (the function mapping id arrays to ledger ids, minted terms by ledger id)."""
    import numpy as np

    terms = writer.terms
    resolved: dict[int, int] = {}
    pending: dict[int, Term] = {}
    for i, t in closure.minted.items():
        if terms.new.get(t) is None and terms.cache.lookup(writer.db, t) is None:
            pending[i] = t
        else:
            resolved[i] = writer.term(t)  # checks it is an IRI or a Literal; mints nothing
    preds = sorted({g.facts.predicate for g in closure.groups})
    pend = np.array(sorted(pending), dtype=np.int64)
    seqs, cols, keys = [], [], []  # keys: a minted id (>= 0) or -1 - predicate index
    for g in closure.groups:
        f = g.facts
        if not len(f):
            continue
        arity = f.args.shape[1]
        for c, col in enumerate((*f.args.T, *g.bindings.T)):
            hit = np.isin(col, pend)
            if hit.any():
                seqs.append(f.seq[hit])
                cols.append(np.full(int(hit.sum()), c if c < arity else c + 1))
                keys.append(col[hit])
        first = int(np.argmin(f.seq))
        seqs.append(f.seq[first:first + 1])
        cols.append(np.array([arity]))
        keys.append(np.array([-1 - preds.index(f.predicate)]))
    if seqs:
        seq, col, key = (np.concatenate(a).astype(np.int64) for a in (seqs, cols, keys))
        for k in key[np.lexsort((col, seq))].tolist():
            if k < 0:
                writer.term(IRI(preds[-1 - k]))
            elif k in pending:
                resolved[k] = writer.term(pending.pop(k))
    minted_terms = {tid: closure.minted[i] for i, tid in resolved.items()}
    if not resolved:
        return (lambda a: np.asarray(a, dtype=np.int64)), minted_terms
    src = np.array(sorted(resolved), dtype=np.int64)
    dst = np.array([resolved[i] for i in src.tolist()], dtype=np.int64)

    def remap(a: np.ndarray) -> np.ndarray:
        a = np.asarray(a, dtype=np.int64)
        if not a.size:
            return a
        pos = np.minimum(np.searchsorted(src, a), len(src) - 1)
        hit = src[pos] == a
        return np.where(hit, dst[pos], a)

    return remap, minted_terms
