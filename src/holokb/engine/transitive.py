"""A plan for linear transitive closure: SCC condensation + bitset reachability.

Semi-naive evaluation of ``path(x,z) :- path(x,y), edge(y,z)`` needs one iteration per hop,
so a chain of n nodes costs n passes.  This plan instead condenses the edge graph into strongly
connected components, propagates reachability bitsets over the condensed DAG in reverse
topological order, and expands component pairs into node pairs.

It is used only when nothing observable depends on semi-naive order: no proofs, no per-rule
depth, no max_depth/max_derived budget, point-in-time identity, every edge valid over the same
interval, the path relation has no input facts, and the graph condenses to ≤ 20,000
components.  Derived rows carry depth −1 (not tracked).
"""
from __future__ import annotations

import numpy as np

from ..analysis.program import Atom, Rule, Var

MAX_COMPONENTS = 20_000


def match(rules: list[tuple[int, Rule]]) -> tuple[int, int, tuple[str, bool], tuple[str, bool], bool] | None:
    """(base index, step index, path key, edge key, left_linear) when the stratum is a linear TC."""
    if len(rules) != 2:
        return None
    for (bi, base), (si, step) in (rules, rules[::-1]):
        h = base.head
        if h.arity != 2 or len(base.body) != 1 or len(step.body) != 2 or base.depth or step.depth:
            continue
        e = base.body[0]
        if not isinstance(e, Atom) or e.arity != 2:
            continue
        x, y = h.args
        if not (isinstance(x, Var) and isinstance(y, Var) and x != y and e.args == (x, y)):
            continue
        pk, ek = (h.predicate, h.negated), (e.predicate, e.negated)
        sh, (b1, b2) = step.head, step.body
        if (sh.predicate, sh.negated) != pk or not all(isinstance(b, Atom) for b in (b1, b2)):
            continue
        if not all(isinstance(t, Var) for t in sh.args + b1.args + b2.args):
            continue
        hx, hz = sh.args
        k1, k2 = (b1.predicate, b1.negated), (b2.predicate, b2.negated)
        if len({hx, hz}) != 2:
            continue
        if k1 == pk and k2 == ek and b1.args[0] == hx and b2.args[1] == hz and b1.args[1] == b2.args[0] \
                and b1.args[1] not in (hx, hz):
            return bi, si, pk, ek, True
        if k1 == ek and k2 == pk and b1.args[0] == hx and b2.args[1] == hz and b1.args[1] == b2.args[0] \
                and b1.args[1] not in (hx, hz):
            return bi, si, pk, ek, False
    return None


#: Node counts up to which "is this pair an edge" is answered from a dense n*n boolean table
#: (64 MB at most) instead of a binary search per pair.
DENSE_EDGES = 8_000


def reachability(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """All pairs (a, b) with a path of length ≥ 1 from a to b, and whether each is an edge itself, or
    None when too many components."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    nodes, inv = np.unique(np.concatenate([src, dst]), return_inverse=True)
    k = len(nodes)
    s, d = inv[: len(src)], inv[len(src):]
    g = csr_matrix((np.ones(len(s), np.int8), (s, d)), shape=(k, k))
    n_comp, comp = connected_components(g, directed=True, connection="strong")
    if n_comp > MAX_COMPONENTS:
        return None
    cs, cd = comp[s], comp[d]
    size = np.bincount(comp, minlength=n_comp)
    cyclic = size > 1
    cyclic[cs[cs == cd]] = True
    dag = np.unique(np.stack([cs[cs != cd], cd[cs != cd]], 1), axis=0) if len(s) else np.zeros((0, 2), np.int64)
    # Kahn's order over the condensed DAG, then propagate in reverse.
    out_start = np.searchsorted(dag[:, 0], np.arange(n_comp + 1))
    indeg = np.bincount(dag[:, 1], minlength=n_comp)
    order, stack = [], list(np.flatnonzero(indeg == 0)[::-1])
    indeg = indeg.tolist()
    succ = dag[:, 1].tolist()
    starts = out_start.tolist()
    while stack:
        c = stack.pop()
        order.append(c)
        for t in succ[starts[c]:starts[c + 1]]:
            indeg[t] -= 1
            if indeg[t] == 0:
                stack.append(t)
    words = (n_comp + 63) // 64
    reach = np.zeros((n_comp, words), np.uint64)
    # Every component reaches its direct successors, and a cyclic one itself (set in bulk); then, in
    # reverse topological order, whatever its successors reach (one row OR per DAG edge).
    for src_c, dst_c in ((dag[:, 0], dag[:, 1]), (np.flatnonzero(cyclic),) * 2):
        dst_c = dst_c.astype(np.int64)
        np.bitwise_or.at(reach, (src_c, dst_c >> 6), np.left_shift(np.uint64(1), (dst_c & 63).astype(np.uint64)))
    for c in reversed(order):
        ts = succ[starts[c]:starts[c + 1]]
        if ts:
            row = reach[c]
            for t in ts:
                row |= reach[t]
    mask = np.unpackbits(reach.view(np.uint8), axis=1, bitorder="little")[:, :n_comp].view(bool)
    pc, pd = np.nonzero(mask)
    # Expand component pairs into node pairs.
    members = np.argsort(comp, kind="stable")
    if (size == 1).all():  # an acyclic graph: a component is its node (the same pairs, in the same order)
        named = nodes[members]  # component -> its node's id
        if k <= DENSE_EDGES:  # edges in component space, read in the pairs' (row-major) order
            adj = np.zeros((k, k), dtype=bool)
            adj[cs, cd] = True
            return named[pc], named[pd], adj[mask]
        a, b = members[pc], members[pd]
    else:
        first = np.concatenate([[0], np.cumsum(size)])
        cnt = size[pc] * size[pd]
        total = int(cnt.sum())
        pair = np.repeat(np.arange(len(pc)), cnt)
        within = np.arange(total) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        sd = size[pd][pair]
        a = members[first[pc][pair] + within // sd]
        b = members[first[pd][pair] + within % sd]
    if k <= DENSE_EDGES:
        dense = np.zeros(k * k, dtype=bool)
        dense[s.astype(np.int64) * k + d] = True
        edge = dense[a.astype(np.int64) * k + b]
    else:
        keys = np.unique(s.astype(np.int64) * k + d)
        probe = a.astype(np.int64) * k + b
        at = np.minimum(np.searchsorted(keys, probe), len(keys) - 1)
        edge = keys[at] == probe
    return nodes[a], nodes[b], edge
