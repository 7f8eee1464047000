"""SPARQL benchmark: point and scan queries on the warm latest snapshot of LUBM(1,0) (100,543
triples), against rdflib's SPARQL engine on the same triples, measured in the same run.

Run:  cd /work/main && PYTHONPATH=src python3 bench/sparql.py [--runs N] [--rdflib-budget S]
      (default 5 runs; every latency is the median over the runs, after one warm-up run)

Columns: ``holokb`` is ``run_query`` end to end (ledger change-marker check, cache lookup,
syntax check, evaluation, conversion, canonical sort); ``pyoxigraph`` is a bare
``Store.query`` on the same snapshot store with the rows materialised (the floor holokb adds
to); ``rdflib`` is ``Graph.query`` over the same triples parsed into an rdflib Graph, each run in
a forked child so that a query past the budget (default 60 s; rdflib's planner builds a cartesian
product on LUBM q2 and took 707 s here) is stopped and reported as "> budget".  Also reported:
ledger import, cold snapshot build, warm reopen from the disk cache (a fresh process's view),
and the rebuild after one write.
"""
from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from holokb.core import AsOf, Fact, IRI, Limits  # noqa: E402
from holokb.kb import KnowledgeBase  # noqa: E402
from holokb.rdf.load import import_file  # noqa: E402
from holokb.sparql import SnapshotCache, run_query  # noqa: E402

PRE = ("PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> "
       "PREFIX ub: <http://www.lehigh.edu/~zhp2/2004/0401/univ-bench.owl#> ")
QUERIES = [
    ("point: one subject", "point",
     PRE + "SELECT ?p ?o WHERE { <http://www.Department0.University0.edu/GraduateStudent1> ?p ?o }"),
    ("point: LUBM q1", "point", None),
    ("point: LUBM q3", "point", None),
    ("scan: LUBM q14 (type)", "scan", None),
    ("scan: COUNT(*)", "scan", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"),
    ("scan: group by predicate", "scan",
     "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY DESC(?n) ?p"),
    ("join: LUBM q2 (triangle)", "scan", None),
]


def corpora() -> Path:
    env = os.environ.get("HOLOKB_CORPORA")
    return Path(env) if env else ROOT.parent / "shared" / "corpora"


def median_ms(fn, runs: int) -> tuple[float, object]:
    out = fn()  # warm-up (and the result)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), out


def _rdflib_child(g, text: str, conn) -> None:
    t = time.perf_counter()
    n = len(list(g.query(text)))
    conn.send((n, (time.perf_counter() - t) * 1000))


def rdflib_ms(g, text: str, budget_s: float) -> tuple[int | None, float | None]:
    """(rows, ms) of one rdflib run in a forked child; (None, None) past the budget."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")  # the child shares the parsed Graph copy-on-write
    recv, send = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_rdflib_child, args=(g, text, send))
    p.start()
    if recv.poll(budget_s):
        n, ms = recv.recv()
        p.join()
        return n, ms
    p.terminate()
    p.join()
    return None, None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rdflib-budget", type=float, default=60.0)
    args = ap.parse_args()
    runs = max(3, args.runs)
    lubm = corpora() / "lubm"
    data = lubm / "lubm_1_0_seed0.nt.gz"
    if not data.exists():
        sys.exit(f"LUBM not found at {data} (set HOLOKB_CORPORA)")
    queries = []
    for label, kind, text in QUERIES:
        if text is None:
            n = label.split("q")[-1].split()[0]
            text = (lubm / "queries" / f"q{int(n):02d}.rq").read_text()
        queries.append((label, kind, text))

    with tempfile.TemporaryDirectory() as tmp:
        kb = KnowledgeBase.open(Path(tmp) / "kb.db")
        t = time.perf_counter()
        n = import_file(kb.ledger, data, at=1_700_000_000_000)
        t_import = time.perf_counter() - t

        cache = SnapshotCache()
        t = time.perf_counter()
        r = run_query(kb, "ASK { ?s ?p ?o }", as_of=AsOf.latest(), cache=cache)
        t_build = time.perf_counter() - t
        assert r.snapshot_built
        reopen = []
        for _ in range(runs):
            t = time.perf_counter()
            r = run_query(kb, "ASK { ?s ?p ?o }", as_of=AsOf.latest(), cache=SnapshotCache())
            reopen.append(time.perf_counter() - t)
            assert not r.snapshot_built
        store = cache.get(kb.ledger, "snapshot", AsOf.latest()).store

        import rdflib

        g = rdflib.Graph()
        t = time.perf_counter()
        g.parse(data=gzip.decompress(data.read_bytes()).decode("utf-8"), format="nt")
        t_rdflib_parse = time.perf_counter() - t

        # Warm rdflib's lazy imports in the parent, so forked children do not pay them per run.
        list(g.query(queries[0][2]))
        rows = []
        unbounded = Limits.unbounded()
        for label, kind, text in queries:
            hk_ms, res = median_ms(lambda: run_query(kb, text, as_of=AsOf.latest(), cache=cache, limits=unbounded), runs)
            ox_ms, _ = median_ms(lambda: [tuple(s) for s in store.query(text)], runs)
            if label.startswith("join") and args.rdflib_budget <= 0:
                rows.append((label, len(res.rows), hk_ms, ox_ms, None, "not run"))
                continue
            runs_rl = []
            for _ in range(runs):
                runs_rl.append(rdflib_ms(g, text, args.rdflib_budget))
                if runs_rl[-1][0] is None:
                    break
            if runs_rl[-1][0] is None:
                rl_ms, rl_note = None, f"> {args.rdflib_budget:.0f} s (stopped)"
            else:
                assert all(n == len(res.rows) for n, _ in runs_rl), (label, runs_rl, len(res.rows))
                rl_ms, rl_note = statistics.median(ms for _, ms in runs_rl), ""
            rows.append((label, len(res.rows), hk_ms, ox_ms, rl_ms, rl_note))

        kb.assert_fact(Fact(IRI("http://example.org/x"), IRI("http://example.org/p"), IRI("http://example.org/y")),
                       at=1_700_000_000_001)
        t = time.perf_counter()
        r = run_query(kb, "ASK { ?s ?p ?o }", as_of=AsOf.latest(), cache=cache)
        t_rebuild = time.perf_counter() - t
        assert r.snapshot_built
        kb.close()

    print(f"LUBM(1,0): {n} triples; {runs} runs per figure (medians)\n")
    print(f"{'setup':44} {'seconds':>9}")
    print(f"{'ledger import (import_file)':44} {t_import:9.2f}")
    print(f"{'snapshot build, cold (ledger -> RocksDB dir)':44} {t_build:9.2f}")
    print(f"{'warm reopen from disk cache (new process view)':44} {statistics.median(reopen):9.3f}")
    print(f"{'rebuild after one write':44} {t_rebuild:9.2f}")
    print(f"{'rdflib: parse N-Triples into a Graph':44} {t_rdflib_parse:9.2f}\n")
    print(f"{'query':28} {'rows':>6} {'holokb ms':>10} {'pyoxigraph':>11} {'rdflib ms':>11} {'rdflib/holokb':>14}")
    for label, nrows, hk, ox_, rl, note in rows:
        if rl is None:
            print(f"{label:28} {nrows:6d} {hk:10.2f} {ox_:11.2f} {note:>26}")
        else:
            print(f"{label:28} {nrows:6d} {hk:10.2f} {ox_:11.2f} {rl:11.1f} {rl / hk:13.0f}x")


if __name__ == "__main__":
    main()
