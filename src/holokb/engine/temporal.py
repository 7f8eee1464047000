"""Valid time over the whole axis: interval arithmetic on columns (logical layer).

Semantics (design.md §3, pointwise): a fact holds at instant t iff it is in the closure of the
input facts valid at t.  Rows carry half-open ``[valid_from, valid_to)`` intervals; a fact's
validity is the union of its rows' intervals, and every operation is pointwise:

- a join intersects intervals (empty ⇒ no row);
- ``not q(..)`` keeps, of each binding's interval, the parts where no matching q row holds
  (:func:`subtract`): zero, one or several pieces;
- an aggregate is computed per elementary segment of its solutions' endpoints and holds where its
  value is constant (:func:`segments`);
- output coalesces each fact's rows into maximal intervals (:func:`coalesce`).

Every endpoint a computation produces is an endpoint of some input row, so interval bounds can
be ranked in one sorted array (``endpoints``).
"""
from __future__ import annotations

import numpy as np

MAX_T = np.iinfo(np.int64).max
MIN_T = np.iinfo(np.int64).min


def holds_at(vf: np.ndarray, vt: np.ndarray, t: int) -> np.ndarray:
    """Row mask: does ``[vf, vt)`` contain instant ``t``?  An open end (``MAX_T``) contains every
    instant, ``MAX_T`` itself included (that is how ``AsOf.latest()`` sees open facts)."""
    return (vf <= t) & ((vt > t) | (vt == MAX_T))


def _group_running_max(group: np.ndarray, values: np.ndarray, endpoints: np.ndarray) -> np.ndarray:
    """Running max of ``values`` (endpoint values) within runs of equal ``group`` (sorted ascending)."""
    if len(values) == 0:
        return values
    ranks = np.searchsorted(endpoints, values)
    width = len(endpoints) + 1
    # Offsetting every group by its id makes one global cumulative max respect group bounds.
    key = group.astype(np.int64) * width + ranks
    run = np.maximum.accumulate(key)
    return endpoints[run - group.astype(np.int64) * width]


def subtract(vf: np.ndarray, vt: np.ndarray, pos: np.ndarray, rs: np.ndarray, re: np.ndarray,
             endpoints: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of each interval ``[vf[i], vt[i])`` remove the union of the intervals ``[rs[k], re[k])`` with
    ``pos[k] == i``.  Returns the pieces left as (index i, from, to), in order of i then time.

    >>> ep = np.array([MIN_T, 0, 5, 10, 20, MAX_T])
    >>> i, f, t = subtract(np.array([0]), np.array([20]), np.array([0, 0]), np.array([5, 8]), np.array([10, 10]), ep)
    >>> list(zip(i.tolist(), f.tolist(), t.tolist()))
    [(0, 0, 5), (0, 10, 20)]
    """
    n = len(vf)
    a, z = vf[pos], vt[pos]
    cs, ce = np.maximum(rs, a), np.minimum(re, z)
    hit = cs < ce
    pos, cs, ce = pos[hit], cs[hit], ce[hit]
    touched = np.zeros(n, dtype=bool)
    touched[pos] = True
    keep = np.flatnonzero(~touched)  # bindings no matching row overlaps: whole
    out_i, out_f, out_t = [keep], [vf[keep]], [vt[keep]]
    if len(pos):
        order = np.lexsort((cs, pos))
        pos, cs, ce = pos[order], cs[order], ce[order]
        run = _group_running_max(pos, ce, endpoints)
        first = np.ones(len(pos), dtype=bool)
        first[1:] = pos[1:] != pos[:-1]
        prev = np.empty_like(run)
        prev[1:] = run[:-1]
        prev[first] = vf[pos[first]]
        gap = cs > prev
        out_i.append(pos[gap])
        out_f.append(prev[gap])
        out_t.append(cs[gap])
        last = np.ones(len(pos), dtype=bool)
        last[:-1] = pos[1:] != pos[:-1]
        tail = last & (run < vt[pos])
        out_i.append(pos[tail])
        out_f.append(run[tail])
        out_t.append(vt[pos[tail]])
    i = np.concatenate(out_i)
    f = np.concatenate(out_f)
    t = np.concatenate(out_t)
    order = np.lexsort((f, i))
    return i[order], f[order], t[order]


def coalesce(group: np.ndarray, vf: np.ndarray, vt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximal intervals of the union of ``[vf, vt)`` per ``group`` id: (group, from, to), sorted.
    Touching intervals merge (``[0, 5)`` and ``[5, 9)`` are ``[0, 9)``).

    >>> g, f, t = coalesce(np.array([0, 0, 0, 1]), np.array([0, 3, 12, 0]), np.array([5, 9, 20, 1]))
    >>> list(zip(g.tolist(), f.tolist(), t.tolist()))
    [(0, 0, 9), (0, 12, 20), (1, 0, 1)]
    """
    if len(group) == 0:
        return group, vf, vt
    order = np.lexsort((vf, group))
    g, f, t = group[order], vf[order], vt[order]
    endpoints = np.unique(np.concatenate([f, t]))
    run = _group_running_max(g, t, endpoints)
    start = np.ones(len(g), dtype=bool)
    start[1:] = (g[1:] != g[:-1]) | (f[1:] > run[:-1])
    idx = np.flatnonzero(start)
    ends = np.empty(len(idx), dtype=run.dtype)
    ends[:-1] = run[idx[1:] - 1]
    ends[-1] = run[-1]
    return g[idx], f[idx], ends


def segments(vf: np.ndarray, vt: np.ndarray) -> list[tuple[int, int, np.ndarray]]:
    """The elementary segments of some rows' intervals, each with the rows holding throughout it
    (segments no row covers are left out), in time order."""
    bounds = np.unique(np.concatenate([vf, vt]))
    out = []
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        rows = np.flatnonzero((vf <= lo) & (vt >= hi))
        if len(rows):
            out.append((lo, hi, rows))
    return out


__all__ = ["MAX_T", "MIN_T", "coalesce", "holds_at", "segments", "subtract"]
