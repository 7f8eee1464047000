"""Vector index at scale: holokb's numpy kernels (exact and sketch-filtered) against faiss, usearch
and hnswlib, on role-filler fact vectors of a synthetic KB, in one run.

    PYTHONPATH=src python3 bench/vsa.py                       # 1M facts, HDC 10048-bit and HRR 1024-d
    PYTHONPATH=src python3 bench/vsa.py --n 200000 --ann-n 50000 --queries 30

For each representation it prints: build time (encode + index), bytes per fact, and per query
kind the median / p95 latency of top-10 and recall@10 against exact search (an approximate hit
counts when its exact score is at least the exact 10th score, so ties are not misses).  HNSW
indexes are built on ``--ann-n`` facts (their build at 1M takes far longer than the 60 s target;
the build time is reported and extrapolated linearly, which flatters them) and compared with exact
search over the same subset.  Needs ``pip install -e '.[bench]'`` for the peers; a missing peer
is reported and skipped.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np

from holokb.core import IRI, Literal
from holokb.vsa import FactRecord, VSAConfig, VectorSpace
from holokb.vsa.index import VectorIndex
from holokb.vsa.space import Query

EX = "http://example.org/"
#: (sketch bits, candidates) settings of the sketch-filtered kernel measured in one run.
SWEEP = ((512, 4096), (1024, 4096), (1024, 8192), (1024, 16384))


def synthetic(n: int, seed: int = 0) -> list[FactRecord]:
    """A KB-shaped fact set: ~n/3 entities with Zipf-like popularity, 60 predicates, 15% literal objects."""
    rng = random.Random(seed)
    n_ent = max(10, n // 3)
    ents = [IRI(f"{EX}e{i}") for i in range(n_ent)]
    preds = [IRI(f"{EX}p{i}") for i in range(60)]
    lits = [Literal.of(i) for i in range(1000)]
    weights = [1.0 / (1 + i) ** 0.8 for i in range(n_ent)]
    cum = np.cumsum(weights)
    cum /= cum[-1]
    picks = np.searchsorted(cum, np.random.default_rng(seed).random(2 * n))
    out = []
    for i in range(n):
        s = ents[rng.randrange(n_ent)]
        o = lits[rng.randrange(1000)] if rng.random() < 0.15 else ents[int(picks[i])]
        out.append(FactRecord(f"{i:016x}", s, preds[int(picks[n + i]) % 60], o, rng.random() < 0.05))
    return out


def queries(space: VectorSpace, recs: list[FactRecord], count: int, seed: int = 1) -> list[tuple[str, Query]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        r = recs[rng.randrange(len(recs))]
        out.append(("entity", space.entity_facts_query(r.subject)))
        out.append(("terms", space.term_query([r.subject, r.predicate])))
    return out


def exact(index: VectorIndex, q: np.ndarray, k: int):
    saved = index.config
    object.__setattr__(index, "config", VSAConfig(saved.representation, saved.dim, saved.seed, saved.sketch_bits,
                                                  saved.candidates, exact_below=1 << 62))
    try:
        return index.search(q, k)
    finally:
        object.__setattr__(index, "config", saved)


def recall(got_scores: list[float], want: list) -> float:
    cutoff = want[-1].score
    return sum(1 for s in got_scores if s >= cutoff - 1e-9) / len(want)


def med(xs):
    return statistics.median(xs) * 1000


def p95(xs):
    return sorted(xs)[max(0, int(round(0.95 * len(xs))) - 1)] * 1000


def run_rep(rep: str, recs: list[FactRecord], args) -> None:
    cfg = VSAConfig.default(rep)
    cfg = VSAConfig(cfg.representation, cfg.dim, cfg.seed, sketch_bits=args.sketch_bits or 1024,
                    candidates=args.candidates or cfg.candidates, exact_below=cfg.exact_below,
                    structural_budget=cfg.structural_budget if args.budget is None else args.budget)
    t0, c0 = time.perf_counter(), time.process_time()
    space = VectorSpace(cfg)
    space.add(recs)
    build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    space.facts.rows_with(0, np.zeros(1, dtype=np.int64))  # the postings (built on first use)
    postings = time.perf_counter() - t0
    idx = space.facts
    width_bytes = idx._vec.shape[1] * idx._vec.itemsize
    sketch_bytes = cfg.sketch_bits // 8
    print(f"\n## {rep.upper()} {cfg.dim}-d, {len(recs):,} facts (sketch {cfg.sketch_bits} bits, "
          f"{cfg.candidates} candidates, structural budget {cfg.structural_budget})   load {os.getloadavg()[0]:.2f}")
    other = 3 * 8 + 4 + 1  # component ids, length (HRR), alive flag
    print(f"build (encode + index): {build:.1f} s wall, {build_cpu:.1f} s CPU, postings {postings:.1f} s (load {os.getloadavg()[0]:.2f}); "
          f"per fact: vector {width_bytes} B + sketch {sketch_bytes} B + ids {other} B + postings 48 B "
          f"= {(width_bytes + sketch_bytes + other + 48) / 1e9 * len(recs):.2f} GB")
    qs = queries(space, recs, args.queries)
    lat: dict[str, dict[str, list[float]]] = {}
    rec: dict[str, dict[str, list[float]]] = {}
    cpu: dict[str, dict[str, list[float]]] = {}
    clock = [0.0]

    def note(name, kind, dt, r):
        lat.setdefault(name, {}).setdefault(kind, []).append(dt)
        rec.setdefault(name, {}).setdefault(kind, []).append(r)
        cpu.setdefault(name, {}).setdefault(kind, []).append(time.process_time() - clock[0])

    def start() -> float:
        clock[0] = time.process_time()
        return time.perf_counter()

    peers = _peers(rep, idx, cfg, len(recs))
    full_sketch = idx._sketch
    floor = space.encoder.noise_floor()
    for kind, query in qs:
        q = query.vector
        t = start()
        want = exact(idx, q, 10)
        note("numpy exact", kind, time.perf_counter() - t, 1.0)
        for name, above in (("structural", None), ("structural >floor", floor)):
            t = start()
            got = idx.search(q, 10, components=query.components, above=above)
            dt = time.perf_counter() - t
            signal = [w for w in want if w.score > floor] if above is not None else want
            # Recall of what the caller keeps: all 10, or (with the floor) the brute-force hits above it.
            ok = [g for g in got if g.score > floor] if above is not None else list(got)
            note(name, kind, dt, 1.0 if ok == signal else recall([h.score for h in got], want))
        # Sketches are prefixes (first bits / signs of the first coordinates), so a shorter sketch is a
        # slice of the stored one: one build serves the whole sweep.
        for bits, cands in SWEEP:
            if bits > cfg.sketch_bits:
                continue
            object.__setattr__(idx, "config", VSAConfig(cfg.representation, cfg.dim, cfg.seed, bits, cands, 0,
                                                              structural_budget=0))
            idx._sketch = full_sketch[: bits // 64]
            t = start()
            got = idx.search(q, 10, components=query.components if rep == "hrr" else None)
            note(f"numpy sketch {bits}/{cands}", kind, time.perf_counter() - t, recall([h.score for h in got], want))
        idx._sketch = full_sketch
        object.__setattr__(idx, "config", cfg)
        for name, search in peers:
            t = start()
            rows = search(q)
            dt = time.perf_counter() - t
            note(name, kind, dt, recall(_exact_scores(idx, q, rows), want))
    for name in lat:
        for kind in ("entity", "terms"):
            xs = lat[name][kind]
            print(f"  {name:<23} {kind:<7} top-10 median {med(xs):8.2f} ms  p95 {p95(xs):8.2f} ms  "
                  f"CPU median {med(cpu[name][kind]):7.2f} ms  recall@10 {statistics.mean(rec[name][kind]):.3f}")
    if args.ann_n:
        _hnsw(rep, recs[: args.ann_n], cfg, args, len(recs))


def _exact_scores(idx: VectorIndex, q: np.ndarray, rows) -> list[float]:
    rows = [int(r) for r in rows if 0 <= int(r) < len(idx._keys)]
    return idx._scores(np.asarray(rows, dtype=np.int64), q).tolist() if rows else []


def _peers(rep: str, idx: VectorIndex, cfg: VSAConfig, n: int):
    """Exact peers over all n facts: faiss's flat indexes (binary Hamming / inner product)."""
    out = []
    try:
        import faiss
    except ImportError:
        print("  (faiss-cpu not installed: skipped)")
        return out
    t = time.perf_counter()
    if rep == "hdc":
        f = faiss.IndexBinaryFlat(cfg.dim)
        f.add(np.ascontiguousarray(idx._vec[:n]).view(np.uint8))
        out.append(("faiss BinaryFlat", lambda q: f.search(np.ascontiguousarray(q[None, :]).view(np.uint8), 10)[1][0]))
    else:
        f = faiss.IndexFlatIP(cfg.dim)
        f.add(np.ascontiguousarray(idx._vec[:n]))
        out.append(("faiss FlatIP", lambda q: f.search(q[None, :].astype(np.float32), 10)[1][0]))
    print(f"  faiss flat index add: {time.perf_counter() - t:.1f} s")
    return out


def _hnsw(rep: str, recs: list[FactRecord], cfg: VSAConfig, args, full_n: int) -> None:
    n = len(recs)
    sub = VectorSpace(VSAConfig(cfg.representation, cfg.dim, cfg.seed, cfg.sketch_bits, cfg.candidates, 1 << 62))
    sub.add(recs)
    vec = sub.facts._vec[:n]
    qs = queries(sub, recs, args.queries, seed=2)
    print(f"  HNSW peers on {n:,} facts (build extrapolated x{full_n / n:.0f} to {full_n:,}):")
    builders = []
    try:
        import faiss
        if rep == "hdc":
            def faiss_bin():
                ix = faiss.IndexBinaryHNSW(cfg.dim, args.ann_m)
                ix.hnsw.efConstruction = args.ann_ef_add
                ix.add(np.ascontiguousarray(vec).view(np.uint8))
                ix.hnsw.efSearch = 128
                return lambda q: ix.search(np.ascontiguousarray(q[None, :]).view(np.uint8), 10)[1][0]
            builders.append((f"faiss BinaryHNSW M{args.ann_m}", faiss_bin))
        else:
            def faiss_hnsw():
                ix = faiss.IndexHNSWFlat(cfg.dim, args.ann_m, faiss.METRIC_INNER_PRODUCT)
                ix.hnsw.efConstruction = args.ann_ef_add
                ix.add(np.ascontiguousarray(vec))
                ix.hnsw.efSearch = 128
                return lambda q: ix.search(q[None, :].astype(np.float32), 10)[1][0]
            builders.append((f"faiss HNSWFlat M{args.ann_m}", faiss_hnsw))
    except ImportError:
        print("  (faiss-cpu not installed)")
    try:
        from usearch.index import Index
        if rep == "hdc":
            def us():
                ix = Index(ndim=cfg.dim, metric="hamming", dtype="b1", connectivity=args.ann_m,
                           expansion_add=args.ann_ef_add)
                ix.add(np.arange(n), np.ascontiguousarray(vec).view(np.uint8), threads=2)
                return lambda q: ix.search(np.ascontiguousarray(q).view(np.uint8), 10).keys
        else:
            def us():
                ix = Index(ndim=cfg.dim, metric="ip", dtype="f32", connectivity=args.ann_m,
                           expansion_add=args.ann_ef_add)
                ix.add(np.arange(n), np.ascontiguousarray(vec), threads=2)
                return lambda q: ix.search(q.astype(np.float32), 10).keys
        builders.append((f"usearch HNSW M{args.ann_m}", us))
    except ImportError:
        print("  (usearch not installed)")
    if rep == "hrr":
        try:
            import hnswlib

            def hl():
                ix = hnswlib.Index(space="ip", dim=cfg.dim)
                ix.init_index(max_elements=n, ef_construction=args.ann_ef_add, M=args.ann_m)
                ix.set_num_threads(2)
                ix.add_items(np.ascontiguousarray(vec), np.arange(n))
                ix.set_ef(128)
                return lambda q: ix.knn_query(q[None, :], k=10)[0][0]
            builders.append((f"hnswlib M{args.ann_m}", hl))
        except ImportError:
            print("  (hnswlib not installed)")
    for name, build in builders:
        t = time.perf_counter()
        search = build()
        bt = time.perf_counter() - t
        lat, rc = [], []
        for _kind, query in qs:
            q = query.vector
            want = exact(sub.facts, q, 10)
            t = time.perf_counter()
            rows = search(q)
            lat.append(time.perf_counter() - t)
            rc.append(recall(_exact_scores(sub.facts, q, rows), want))
        print(f"    {name:<22} build {bt:7.1f} s (~{bt * full_n / n:7.0f} s at {full_n:,})  "
              f"top-10 median {med(lat):7.2f} ms  p95 {p95(lat):7.2f} ms  recall@10 {statistics.mean(rc):.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=25, help="query facts (each gives an entity and a terms query)")
    ap.add_argument("--ann-n", type=int, default=50_000, help="facts for the HNSW peers (0: skip them)")
    ap.add_argument("--rep", choices=["hdc", "hrr", "both"], default="both")
    ap.add_argument("--ann-m", type=int, default=16, help="HNSW connectivity (M) of the peers")
    ap.add_argument("--ann-ef-add", type=int, default=40, help="HNSW expansion at build (efConstruction)")
    ap.add_argument("--budget", type=int, default=None, help="structural_budget (default: the representation's)")
    ap.add_argument("--sketch-bits", type=int, default=None)
    ap.add_argument("--candidates", type=int, default=None)
    args = ap.parse_args()
    t = time.perf_counter()
    recs = synthetic(args.n)
    print(f"# bench/vsa.py: {args.n:,} synthetic facts generated in {time.perf_counter() - t:.1f} s; "
          f"loadavg {open('/proc/loadavg').read().split()[:3]}")
    for rep in (["hdc", "hrr"] if args.rep == "both" else [args.rep]):
        run_rep(rep, recs, args)


if __name__ == "__main__":
    main()
