"""Stored closures from columns: derived facts as term-id arrays, written without a Python object per fact.

:class:`DerivedColumns` is what a closure computed over this ledger's own term ids looks like
(the engine's proof steps grouped by relation and rule): every group's rows share a predicate,
polarity, rule and proof layout, so that a row's ``premises`` / ``bindings`` / ``rest`` texts are
one ``%`` format of a tuple of ints.  The rows and the terms table are byte-identical to storing
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
    """Every row of ``closure`` through ``writer`` (its terms, counters and chunked inserts)."""
    groups = closure.groups
    n = closure.count
    _check(writer, closure)
    remap, minted_terms = _intern_minted(writer, closure)
    rows: list = [None] * n
    cid = writer.cid
    max_ref = -1
    for g in groups:
        f = g.facts
        m = len(f)
        if not m:
            continue
        args = remap(f.args)
        arity = args.shape[1]
        cols = args.T.tolist()
        s = cols[0] if arity else [None] * m
        o = cols[1] if arity > 1 else [None] * m
        if arity > 2:
            rest = _formatted("[" + ", ".join(["%d"] * (arity - 2)) + "]", cols[2:])  # what json.dumps writes
            keys = [_encodings(writer, c, minted_terms) for c in cols[2:]]
            rest_key = keys[0] if len(keys) == 1 else [b"".join(t) for t in zip(*keys)]
        else:
            rest = rest_key = [None] * m
            if arity == 2 and not f.negated:
                writer.binary += m
        p = writer.term(IRI(f.predicate))
        vt = f.valid_to.tolist()
        valid_to = [None if t == MAX_TIME else t for t in vt] if MAX_TIME in vt else vt
        score = [None] * m if f.score is None else f.score.tolist()
        codes = g.premises
        if codes.size:
            derived = codes[codes < 0]
            if len(derived):
                max_ref = max(max_ref, int(-derived.min()) - 1)
        names = writer.names
        parts = []
        for name in g.binding_names:
            nj = names.get(name)
            if nj is None:
                nj = names[name] = json.dumps(name)
            parts.append(nj.replace("%", "%%") + ",%d")
        bindings = _formatted("[" + ",".join(parts) + "]", remap(g.bindings).T.tolist()) if parts else ["[]"] * m
        seq = f.seq.tolist()
        for k, row in zip(seq, zip([cid] * m, seq, [p] * m, [arity] * m, s, o, rest, rest_key,
                                   [1 if f.negated else 0] * m, f.valid_from.tolist(), valid_to, [f.rule] * m,
                                   f.depth.tolist(), score, _premise_texts(codes), bindings)):
            rows[k] = row
        writer.rule_counts[f.rule] += m
    writer.n = n
    writer.max_ref = max(writer.max_ref, max_ref)
    pending = writer.terms.take_pending()
    if pending:
        from .sql import INSERT_TERM

        writer.db.executemany(INSERT_TERM, pending)
    writer.indexes.maybe_drop(n)
    from .derived import _INS_DERIVED

    writer.db.executemany(_INS_DERIVED, rows)


def _check(writer: "_ClosureWriter", closure: DerivedColumns) -> None:
    """Positions cover 0..count-1 once; scores are finite; asserted premises are facts of this ledger."""
    import numpy as np

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
    ids = np.unique(np.concatenate(asserted)) if asserted else np.zeros(0, np.int64)
    if len(ids):
        found = writer.db.execute("SELECT count(*) FROM facts WHERE fact_id IN (SELECT value FROM json_each(?))",
                                  (json.dumps(ids.tolist()),)).fetchone()[0]
        if found != len(ids):
            have = {r[0] for r in writer.db.execute(
                "SELECT fact_id FROM facts WHERE fact_id IN (SELECT value FROM json_each(?))",
                (json.dumps(ids.tolist()),))}
            missing = next(i for i in ids.tolist() if i not in have)
            raise LedgerError(f"a derived fact names premise fact #{missing}, which is not an asserted fact of this "
                              "ledger")


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


def _formatted(fmt: str, cols: list[list[int]]) -> list[str]:
    """``fmt % row`` for the rows of ``cols`` (int columns)."""
    return [fmt % t for t in zip(*cols)]


def _premise_texts(codes: np.ndarray) -> list[str]:
    """The stored premises text per row: the nonzero codes joined by commas (rows with the same
    columns left out share one format)."""
    import numpy as np

    m, k = codes.shape
    if not k:
        return [""] * m
    present = codes != 0
    if present.all():
        return _formatted(",".join(["%d"] * k), codes.T.tolist())
    if k > 62:  # too many atoms for a bit pattern
        return [",".join(map(str, (c for c in row if c))) for row in codes.tolist()]
    pattern = (present * (1 << np.arange(k, dtype=np.int64))).sum(axis=1)
    out = np.empty(m, dtype=object)
    for pat in np.unique(pattern).tolist():
        rows = np.flatnonzero(pattern == pat)
        kept = [c for c in range(k) if pat >> c & 1]
        out[rows] = _formatted(",".join(["%d"] * len(kept)), codes[rows][:, kept].T.tolist()) if kept \
            else [""] * len(rows)
    return out.tolist()


def _encodings(writer: "_ClosureWriter", ids: list[int], minted: dict[int, Term]) -> list[bytes]:
    """The canonical encoding of each term id (for ``rest_key``), each distinct id decoded once;
    ``minted``: the terms by ledger id that the closure minted (not in the cache before commit)."""
    cache = writer.terms.cache
    memo: dict[int, bytes] = {}
    distinct = set(ids)
    missing = [i for i in distinct if i not in cache.terms and i not in minted]
    if missing:
        cache.terms_of(writer.db, missing)
    for i in distinct:
        t = minted.get(i) or cache.terms[i]
        memo[i] = cache.encoding(t)
    return [memo[i] for i in ids]

