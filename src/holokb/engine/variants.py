"""Logical layer: one vectorised semi-naive iteration — a stratum's rule variants, solved on two
threads when the iteration is big.

Iteration 1 solves every rule of the stratum on the full relations; a later one solves, per rule
and per body atom over a stratum predicate, the variant where that atom reads last iteration's
new rows, atoms before it every row and atoms after it the older rows (:func:`variants`).

Threads: a variant's solve only reads the relations (the sorted indexes it builds or extends are
guarded by :data:`.relation.INDEX_LOCK`), and its heavy steps — numpy's gathers and sorts, the
compiled kernels (``nogil``) — release the GIL, so the variants of one iteration run side by side
on :data:`THREADS` worker threads.  The calling thread takes their results in variant order: it
builds the head columns and claims their keys (:meth:`~.evaluator.Evaluation._claim`, the key
set, which no solve reads) while later variants are still being solved; the rows are stored by
the caller after the last solve.  So rows, their order, proofs and statistics are those of the
single-thread path, byte for byte (tests/engine/test_fast_paths.py holds them equal).

Only iterations that could not change what a solve reads go to threads: bodies of atoms,
negations and comparisons of variables and known constants (expressions, assignments and
aggregates may mint terms), head constants already interned (so building a head mints nothing
and no key widens), every atom's relation already there.  A deadline is checked after each variant's result, as before.
"""
from __future__ import annotations

import contextvars
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from ..analysis.program import Atom, Comparison, Const, Negation, Var
from ..core.limits import LimitHit

#: Switch: solve the variants of big iterations on worker threads (off: always the plain loop).
PARALLEL = True
#: Worker threads for the variants of a big iteration (``HOLOKB_THREADS``; 1 = the plain loop).
THREADS = int(os.environ.get("HOLOKB_THREADS") or (2 if (os.cpu_count() or 1) >= 2 else 1))
#: Iterations with fewer delta rows than this run on the calling thread (a hand-off costs ~50 us;
#: measured: RDFS 100k's first iterations have 66k-1.5M rows, its tail a few thousand).
MIN_ROWS = 20_000

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _forget_pool() -> None:
    """In a forked child: the parent's worker threads are not there (a pool that waits for them
    would hang), nor is whoever held the lock."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def variants(shapes, delta: dict, old_end: dict, first: bool):
    """The iteration's rule variants in evaluation order: (rule index, rule, keep, ranges, delta
    atom); ranges and delta atom are None for a rule of no stratum atom (iteration 1 only)."""
    for ri, rule, rec, keep in shapes:
        if not rec:  # no atom of the stratum: all its rows come out of iteration 1
            if first:
                yield ri, rule, keep, None, None
            continue
        for k, rk_k in rec:
            lo_k, hi_k = delta[rk_k]
            if lo_k >= hi_k:  # that atom's relation gained nothing last iteration
                continue
            ranges = {}
            for j, rk in rec:
                lo, hi = delta[rk]
                ranges[j] = (lo, hi) if j == k else ((0, hi) if j < k else (0, old_end[rk]))
            yield ri, rule, keep, ranges, k


def iteration(ev, out: dict, shapes, delta: dict, old_end: dict, first: bool) -> bool:
    """Solve the iteration's variants into ``out`` (:meth:`~.evaluator.Evaluation._collect`);
    False when the deadline passed (the run is marked truncated)."""
    todo = list(variants(shapes, delta, old_end, first))
    if PARALLEL and THREADS > 1 and len(todo) > 1 and _threadable(ev, todo, delta, first):
        return _threaded(ev, out, todo)
    for ri, rule, keep, ranges, k in todo:
        ev._collect(out, ri, rule, ev.solve(rule.body, ranges, k, ev.record, keep))
        if ranges is not None and ev.deadline.expired():
            ev._hit(LimitHit.TIMEOUT)
            return False
    return True


def _threadable(ev, todo, delta: dict, first: bool) -> bool:
    rows = sum(hi - lo for lo, hi in delta.values())
    if rows < MIN_ROWS:
        return False
    rels, terms = ev.relations, ev.terms
    known = lambda t: isinstance(t, Var) or (isinstance(t, Const) and terms.lookup(t.term) is not None)  # noqa: E731
    for _, rule, _, _, _ in todo:
        if not all(known(t) for t in rule.head.args):
            return False
        for item in rule.body:
            if isinstance(item, Atom):
                if (item.predicate, item.negated) not in rels:
                    return False
            elif isinstance(item, Comparison):
                if not (known(item.left) and known(item.right)):
                    return False
            elif not isinstance(item, Negation):
                return False
    return True


def _executor() -> ThreadPoolExecutor:
    """The process's worker pool, made on first use (a new one in a forked child)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="holokb-variants")
        return _pool


def _threaded(ev, out: dict, todo) -> bool:
    for rel in ev.relations.values():
        rel.settle()  # the row path's pending values written out before threads read columns
    ev.terms.values()  # the value columns comparisons read, grown now (no solve mints a term)
    pool = _executor()
    # each in a copy of this context: the deadline of engine.budget reaches the threads
    futures = [pool.submit(contextvars.copy_context().run, ev.solve, rule.body, ranges, k, ev.record, keep)
               for _, rule, keep, ranges, k in todo]
    claim = ev.limits.max_derived is None  # with a budget, rows are claimed in relation order later
    try:
        for (ri, rule, keep, ranges, k), fut in zip(todo, futures):
            b = fut.result()
            rk = (rule.head.predicate, rule.head.negated)
            before = len(out.get(rk, ()))
            ev._collect(out, ri, rule, b)
            if claim and len(out.get(rk, ())) > before:
                ri_, cols, b, depth, _ = out[rk][-1]
                out[rk][-1] = (ri_, cols, b, depth, ev._claim(rk, cols, b))
            if ranges is not None and ev.deadline.expired():
                ev._hit(LimitHit.TIMEOUT)  # keys claimed for rows never stored: the run ends here
                return False
    finally:
        for fut in futures:
            fut.cancel()
        for fut in futures:  # nothing may still read the relations when the caller changes them
            if not fut.cancelled():
                fut.exception()
    return True
