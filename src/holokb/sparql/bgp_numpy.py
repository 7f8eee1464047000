""":func:`.bgp.solve` with numpy: the same solutions in the same order, as sort-and-search joins.

Why two: numpy joins LUBM q08 (7,790 rows through five patterns) in ~10 ms against ~50 ms in plain
Python, but importing numpy costs a fresh ``holokb query`` process ~0.1 s.  :func:`.bgp.solve` uses
this module when numpy is loaded already (a server, a notebook, the command that built the snapshot)
or the patterns match many triples; tests/sparql/test_bgp.py holds both to pyoxigraph.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.limits import Deadline, LimitHit
from .idtable import as_numpy

if TYPE_CHECKING:
    from .bgp import BGPQuery, Term
    from .idtable import IdTable

Relation = tuple[int, dict[str, Any]]  # (rows, variable -> id column)


def solve(table: IdTable, q: BGPQuery, deadline: Deadline | None, max_rows: int) -> np.ndarray | None | LimitHit:
    """As :func:`.bgp.solve`, the rows as one id array (one row per solution)."""
    scans: list[Relation] = []
    for pat in q.patterns:
        rel = _scan(table, pat)
        if rel[0] == 0:
            return np.zeros((0, len(q.variables)), dtype=np.int64)
        scans.append(rel)
    n, cols = 1, {}
    left = list(range(len(scans)))
    while left:  # greedy: the smallest pattern linked to those joined (any, when none is)
        linked = [k for k in left if any(v in cols for v in scans[k][1])] or left
        best = min(linked, key=lambda k: (scans[k][0], k))
        left.remove(best)
        joined = _join((n, cols), scans[best], max_rows)
        if joined is None:
            return None
        n, cols = joined
        if n == 0:
            return np.zeros((0, len(q.variables)), dtype=np.int64)
        if deadline is not None and deadline.expired():
            return LimitHit.TIMEOUT
    rows = np.stack([cols[v] for v in q.variables], axis=1)
    if q.distinct:
        rows = np.unique(rows, axis=0)
    ranks = as_numpy(table.rank)[rows]
    return rows[np.lexsort(ranks.T[::-1])]


def decode(table: IdTable, rows: np.ndarray) -> list[tuple]:
    """:func:`.bgp.decode` for an id array: each distinct id made a term once, the rows by one gather."""
    if not rows.size:
        return []
    uniq, inverse = np.unique(rows, return_inverse=True)
    objs = np.empty(len(uniq), dtype=object)
    objs[:] = [table.term(i) for i in uniq.tolist()]
    return list(map(tuple, objs[inverse.reshape(rows.shape)].tolist()))


def _scan(table: IdTable, pat: tuple[Term, Term, Term]) -> Relation:
    """The triples matching one triple pattern, as variable columns."""
    ids = table.pattern_ids(pat)
    if ids is None:
        return 0, {}
    (sv, _), (pv, _), (ov, _) = pat
    s, p, o = ids
    if not pv:
        lo, hi = table.predicate_range(p)
        if not ov and sv:  # (p, o) bound: a range of the (p, o, s) order
            o2 = as_numpy(table.o2)[lo:hi]
            a, b = int(np.searchsorted(o2, o, "left")), int(np.searchsorted(o2, o, "right"))
            cols = [as_numpy(table.s2)[lo + a:lo + b], None, None]
        else:
            subjects, objects = as_numpy(table.s)[lo:hi], as_numpy(table.o)[lo:hi]
            if not sv:  # (p, s) bound: a range of the (p, s, o) order
                a, b = int(np.searchsorted(subjects, s, "left")), int(np.searchsorted(subjects, s, "right"))
                subjects, objects = subjects[a:b], objects[a:b]
            if not ov:
                keep = objects == o
                subjects, objects = subjects[keep], objects[keep]
            cols = [subjects, None, objects]
        size = len(cols[0])
        cols[1] = np.full(size, p, dtype=np.int32)
        if cols[2] is None:
            cols[2] = np.full(size, o, dtype=np.int32)
    else:
        cols = [as_numpy(table.s), as_numpy(table.p), as_numpy(table.o)]
        for k in (0, 2):
            if ids[k] >= 0:
                keep = cols[k] == ids[k]
                cols = [c[keep] for c in cols]
    seen: dict[str, int] = {}
    for k, (v, name) in enumerate(pat):
        if v:
            if name in seen:
                keep = cols[k] == cols[seen[name]]
                cols = [c[keep] for c in cols]
            else:
                seen[name] = k
    return len(cols[0]), {name: cols[k] for name, k in seen.items()}


def _join(r: Relation, p: Relation, max_rows: int) -> Relation | None:
    """The natural join of two relations (sort one side's keys, search the other's)."""
    (nr, rc), (np_, pc) = r, p
    shared = [v for v in pc if v in rc]
    if not shared:
        total = nr * np_
        if total > max_rows:
            return None
        ir = np.repeat(np.arange(nr), np_)
        ip = np.tile(np.arange(np_), nr)
    else:
        kr, kp = _keys([rc[v] for v in shared], [pc[v] for v in shared])
        order = np.argsort(kp, kind="stable")
        sk = kp[order]
        lo = np.searchsorted(sk, kr, "left")
        cnt = np.searchsorted(sk, kr, "right") - lo
        total = int(cnt.sum())
        if total > max_rows:
            return None
        ir = np.repeat(np.arange(nr), cnt)
        starts = np.cumsum(cnt) - cnt
        ip = order[np.arange(total) - np.repeat(starts - lo, cnt)]
    out = {v: c[ir] for v, c in rc.items()}
    out.update({v: c[ip] for v, c in pc.items() if v not in rc})
    return total, out


def _keys(a: list[np.ndarray], b: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """One int64 key per row for the columns ``a`` and ``b`` (the same key for the same values)."""
    ka, kb = a[0].astype(np.int64), b[0].astype(np.int64)
    for x, y in zip(a[1:], b[1:]):
        span = int(max(x.max(initial=0), y.max(initial=0))) + 1
        top = int(max(ka.max(initial=0), kb.max(initial=0))) + 1
        if top * span >= 2**62:  # re-number the keys so far densely before they overflow
            _, inv = np.unique(np.concatenate([ka, kb]), return_inverse=True)
            ka, kb = inv[:len(ka)].astype(np.int64), inv[len(ka):].astype(np.int64)
        ka, kb = ka * span + x, kb * span + y
    return ka, kb
