"""LUBM(1,0) end to end: load, close under OWL 2 RL, answer the 14 queries — holokb vs rdflib + owlrl.

holokb: KnowledgeBase.load (ledger) → closure of rules/owl2rl.hkr over the triple view → SPARQL
snapshot (holokb.sparql, pyoxigraph) → 14 queries.  Medians of --runs runs (default 3), each in a
fresh ledger file.  Per-query latency is the median of --query-runs runs on the warm snapshot, both
through ``run_query`` (parse, evaluate, convert and sort rows) and on the snapshot's store directly.

Peer, measured in the same run: rdflib 7 + owlrl (``owlrl.DeductiveClosure(owlrl.OWLRL_Semantics)
.expand(g)``, then the same SPARQL text in rdflib).  It is slow, so it runs once in a child process
capped at --peer-timeout seconds; the table shows how far it got.  Nemo is not measured: there is no
installable Python distribution of it here (no nmo-python wheel), and Soufflé/RDFox are not installed.

    cd /work/main && PYTHONPATH=src python3 bench/lubm.py [--runs 3] [--peer-timeout 900] [--no-peer]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The triple view (every triple as hk:triple(s, p, o), which rules/owl2rl.hkr reads) lives beside
# the tests until holokb.reasoning.database_at provides it.
sys.path.insert(0, str(REPO / "tests" / "entailment"))
sys.path.insert(0, str(REPO / "tests"))

LOADED_AT = 1_700_000_000_000


def corpus() -> Path:
    from _corpora import corpora_root

    root = corpora_root()
    if root is None or not (root / "lubm" / "lubm_1_0_seed0.nt.gz").exists():
        sys.exit("LUBM corpus not found: set HOLOKB_CORPORA")
    return root / "lubm"


def expected_counts(root: Path) -> dict[str, int]:
    lines = (root / "expected" / "counts.tsv").read_text().splitlines()[1:]
    return {a: int(b) for a, b in (ln.split("\t") for ln in lines if ln.strip())}


def queries(root: Path) -> dict[str, str]:
    return {p.stem: p.read_text() for p in sorted((root / "queries").glob("q*.rq"))}


# -- holokb ---------------------------------------------------------------------------------------
def holokb_run(root: Path, qs: dict[str, str], workdir: Path) -> dict:
    """One end-to-end run in a fresh ledger; returns stage times (s), counts and the warm handles."""
    from holokb.core import AsOf, Limits
    from holokb.kb import KnowledgeBase
    from holokb.reasoning import load_program
    from holokb.sparql import SnapshotCache, run_query
    from triple_view import TripleViewKB, rule_file

    out: dict = {}
    t0 = time.perf_counter()
    kb = KnowledgeBase.open(workdir / "lubm.db")
    kb.load([root / "lubm_1_0_seed0.nt.gz", root / "univ-bench.owl"], at=LOADED_AT)
    t1 = time.perf_counter()
    program = load_program([rule_file("owl2rl.hkr")])
    view = TripleViewKB(kb)
    model = view.derive(program, as_of=AsOf.latest())
    t2 = time.perf_counter()
    cache = SnapshotCache(1, disk=False)
    # The snapshot layer derives again (it owns its closure); give it this run's model instead.
    view.derive = lambda *a, **k: model  # type: ignore[method-assign]
    counts = {}
    first = True
    for name, text in qs.items():
        r = run_query(view, text, as_of=AsOf.latest(), rules_program=program, limits=Limits(max_results=None),
                      cache=cache)
        counts[name] = len(set(r.rows))
        if first:
            t3 = time.perf_counter()
            first = False
    t4 = time.perf_counter()
    out.update(load=t1 - t0, closure=t2 - t1, snapshot=t3 - t2, queries=t4 - t3, total=t4 - t0,
               derived=model.stats.derived, iterations=model.stats.iterations, counts=counts)
    out["_warm"] = (view, program, cache, kb)
    return out


def closure_only(root: Path, workdir: Path, runs: int) -> tuple[float, int]:
    """Median closure time on one loaded ledger (engine input built from the ledger each time)."""
    from holokb.core import AsOf
    from holokb.engine import closure
    from holokb.kb import KnowledgeBase
    from holokb.reasoning import load_program
    from triple_view import ledger_database, rule_file

    kb = KnowledgeBase.open(workdir / "lubm.db")
    program = load_program([rule_file("owl2rl.hkr")])
    times, derived = [], 0
    for _ in range(runs):
        t = time.perf_counter()
        m = closure(program, ledger_database(kb.ledger, AsOf.latest(), program))
        times.append(time.perf_counter() - t)
        derived = m.stats.derived
    kb.close()
    return statistics.median(times), derived


def warm_latencies(warm, qs: dict[str, str], runs: int) -> dict[str, tuple[float, float]]:
    """Per query: (median ms through run_query, median ms on the snapshot store, rows counted)."""
    from holokb.core import AsOf, Limits
    from holokb.sparql import run_query

    view, program, cache, _ = warm
    snap = cache.get(view.ledger, "snapshot", AsOf.latest(), program, None, view.derive)
    out = {}
    for name, text in qs.items():
        a, b = [], []
        for _ in range(runs):
            t = time.perf_counter()
            run_query(view, text, as_of=AsOf.latest(), rules_program=program, limits=Limits(max_results=None),
                      cache=cache)
            a.append(time.perf_counter() - t)
            t = time.perf_counter()
            sum(1 for _ in snap.store.query(text))
            b.append(time.perf_counter() - t)
        out[name] = (statistics.median(a) * 1000, statistics.median(b) * 1000)
    return out


# -- rdflib + owlrl (child process) ---------------------------------------------------------------
def peer_main(root: Path) -> None:
    """Child: report each stage as one JSON line as soon as it ends."""
    import gzip

    import owlrl
    from rdflib import Graph

    def say(**kv):
        sys.stdout.write(json.dumps(kv) + "\n")
        sys.stdout.flush()

    t0 = time.perf_counter()
    g = Graph()
    with gzip.open(root / "lubm_1_0_seed0.nt.gz", "rb") as f:
        g.parse(f, format="nt")
    g.parse(root / "univ-bench.owl", format="xml")
    say(stage="load", s=time.perf_counter() - t0, triples=len(g))
    t1 = time.perf_counter()
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(g)
    say(stage="closure", s=time.perf_counter() - t1, triples=len(g))
    for name, text in queries(root).items():
        t = time.perf_counter()
        n = len({tuple(r) for r in g.query(text)})
        say(stage="query", name=name, s=time.perf_counter() - t, count=n)
    say(stage="done", s=time.perf_counter() - t0)


def run_peer(timeout: float) -> dict:
    """Run the peer child under a cap; whatever stages finished are returned."""
    proc = subprocess.Popen([sys.executable, __file__, "--peer-child"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=os.environ.copy())
    got: dict = {"queries": {}, "capped": False}
    start = time.monotonic()
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    while True:
        left = timeout - (time.monotonic() - start)
        if left <= 0:
            got["capped"] = True
            proc.kill()
            break
        if not sel.select(timeout=min(left, 5.0)):
            if proc.poll() is not None:
                break
            continue
        line = proc.stdout.readline()
        if not line:
            break
        ev = json.loads(line)
        if ev["stage"] == "query":
            got["queries"][ev["name"]] = (ev["s"], ev["count"])
        else:
            got[ev["stage"]] = ev
    proc.wait()
    got["elapsed"] = time.monotonic() - start
    return got


# -- report ---------------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--query-runs", type=int, default=5)
    ap.add_argument("--peer-timeout", type=float, default=900.0)
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--peer-child", action="store_true")
    args = ap.parse_args()
    root = corpus()
    if args.peer_child:
        peer_main(root)
        return
    qs, expected = queries(root), expected_counts(root)
    print(f"LUBM(1,0): {root}  (python {sys.version.split()[0]}, {os.cpu_count()} CPUs)")
    runs, warm = [], None
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            d = Path(tmp) / f"run{i}"
            d.mkdir()
            r = holokb_run(root, qs, d)
            if warm is not None:
                warm[3].close()
            warm = r.pop("_warm")
            runs.append(r)
        lat = warm_latencies(warm, qs, args.query_runs)
        closure_s, derived = closure_only(root, Path(tmp) / "run0", args.runs)
        warm[3].close()
    med = {k: statistics.median(r[k] for r in runs) for k in ("load", "closure", "snapshot", "queries", "total")}
    counts = runs[-1]["counts"]
    ok = counts == expected
    print(f"\nholokb, median of {args.runs} end-to-end runs (fresh ledger each):")
    for k in ("load", "closure", "snapshot", "queries", "total"):
        print(f"  {k:<9} {med[k]:8.2f} s")
    print(f"  closure alone (median of {args.runs}, engine input from the ledger): {closure_s:.2f} s, "
          f"{derived} facts derived (incl. rl:* helper facts), {runs[-1]['iterations']} iterations")
    print(f"  14 query counts equal the reference: {ok}")

    peer = None if args.no_peer else run_peer(args.peer_timeout)
    print("\nper query: count (expected) | holokb warm ms via run_query / on the store (median of "
          f"{args.query_runs}) | rdflib+owlrl s")
    for name in qs:
        pq = peer["queries"].get(name) if peer else None
        ps = f"{pq[0]:8.2f} s ({pq[1]})" if pq else "      —"
        a, b = lat[name]
        print(f"  {name}  {counts[name]:6d} ({expected[name]:6d}) | {a:8.2f} / {b:8.2f} ms | {ps}")
    worst = max(b for _, b in lat.values())
    worst_rq = max(a for a, _ in lat.values())
    print(f"  slowest warm query: {worst:.1f} ms on the store, {worst_rq:.1f} ms through run_query (target < 50 ms)")
    if peer is not None:
        print(f"\nrdflib + owlrl (one run, cap {args.peer_timeout:.0f} s{', CAPPED' if peer['capped'] else ''}):")
        if "load" in peer:
            print(f"  load     {peer['load']['s']:8.2f} s  ({peer['load']['triples']} triples)")
        if "closure" in peer:
            print(f"  closure  {peer['closure']['s']:8.2f} s  ({peer['closure']['triples']} triples)")
        done = "done" in peer
        total = peer["done"]["s"] if done else peer["elapsed"]
        print(f"  queries  {len(peer['queries'])}/14 answered; end to end {'' if done else '> '}{total:.1f} s")
        print("\nratios (rdflib+owlrl / holokb):")
        print(f"  end to end: {'' if done else '> '}{total / med['total']:.1f}x   (target >= 20x)")
        if "closure" in peer:
            print(f"  closure:    {peer['closure']['s'] / closure_s:.1f}x")
        if "load" in peer:
            print(f"  load:       {peer['load']['s'] / med['load']:.1f}x")


if __name__ == "__main__":
    main()
