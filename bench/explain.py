"""explain latency on the LUBM(1,0) ledger: the full closure (what explain did before) vs a goal-directed
closure vs reading a fresh stored closure's proof rows — in one run, medians of --runs (default 5).

The goal is an OWL 2 RL entailment of the data: the first graduate student (by IRI) is a ub:Person
(rdf:type through rdfs:subClassOf chains), explained as ``hk:triple(s, rdf:type, ub:Person)``.  All
three paths must give the same proof DAG (checked here too).  No peer: rdflib + owlrl has no proofs.

    cd /work/main && PYTHONPATH=src HOLOKB_CORPORA=../shared/corpora python3 bench/explain.py [--runs 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

LOADED_AT = 1_700_000_000_000
UB = "http://www.lehigh.edu/~zhp2/2004/0401/univ-bench.owl#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def timed(fn, runs: int) -> tuple[float, float, object]:
    out, times = None, []
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    from _corpora import corpora_root

    from holokb.core import AsOf, IRI, Limits
    from holokb.kb import KnowledgeBase, ProofSource
    from holokb.reasoning import load_program

    root = corpora_root()
    if root is None or not (root / "lubm" / "lubm_1_0_seed0.nt.gz").exists():
        sys.exit("LUBM corpus not found: set HOLOKB_CORPORA")
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    with tempfile.TemporaryDirectory() as d:
        kb = KnowledgeBase.open(Path(d) / "lubm.db")
        kb.load([root / "lubm" / "lubm_1_0_seed0.nt.gz", root / "lubm" / "univ-bench.owl"], at=LOADED_AT)
        program = load_program([REPO / "rules" / "owl2rl.hkr"])
        now = AsOf.latest()
        students = sorted(v.fact.subject.value for v in kb.ledger.facts(
            now, predicate=IRI(RDF_TYPE), obj=IRI(UB + "GraduateStudent"), limits=Limits(max_results=None)))
        goal = f"hk:triple(<{students[0]}>, rdf:type, <{UB}Person>)"
        print(f"goal: {goal}")

        def full():
            model = kb.derive(program, as_of=now)
            return model.explain("https://w3id.org/holokb/triple",
                                 (IRI(students[0]), IRI(RDF_TYPE), IRI(UB + "Person")))

        f_med, f_min, f_proof = timed(full, args.runs)
        g_med, g_min, g_expl = timed(lambda: kb.explain(program, goal, as_of=now), args.runs)
        assert g_expl.source is ProofSource.COMPUTED and g_expl.proof == f_proof
        t = time.perf_counter()
        kb.derive_and_store(program, as_of=now, computed_at=LOADED_AT + 1)
        store_s = time.perf_counter() - t
        s_med, s_min, s_expl = timed(lambda: kb.explain(program, goal, as_of=now), args.runs)
        assert s_expl.source is ProofSource.STORED and s_expl.proof == f_proof
        kb.close()
    print(f"{'path':<34}{'median s':>10}{'min s':>10}{'vs full':>10}")
    for name, med, mn in (("full closure + explain (before)", f_med, f_min),
                          ("goal-directed closure (no store)", g_med, g_min),
                          ("stored closure's proof rows", s_med, s_min)):
        print(f"{name:<34}{med:>10.3f}{mn:>10.3f}{f_med / med:>9.1f}x")
    print(f"(derive_and_store once: {store_s:.1f} s; proof nodes: {len(f_proof.nodes())}; runs: {args.runs}; "
          f"load average after: {open('/proc/loadavg').read().split()[:3]}; pid {os.getpid()})")


if __name__ == "__main__":
    main()
