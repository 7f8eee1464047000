"""SHACL gate: time to gate a batch of 1,000 new facts as the KB grows, vs plain pySHACL.

Run: ``cd /work/main && PYTHONPATH=src python3 bench/shacl_gate.py [--sizes 10000,100000,1000000]``

The KB is synthetic data shaped like the example domain (people in places, tools using
libraries, policies) held in an :class:`InMemoryContext` (dict indexes).  Each batch adds
1,000 facts: new people with a name and a place, plus new ``ex:uses`` edges on existing tools
(so the gate must pull those tools' existing values and types from the KB).  Reported:
medians of 3 runs; the gate's growth ratio vs the smallest KB (should stay within 1.2x);
plain ``pyshacl.validate`` (shapes file as ``ont_graph`` for the hierarchy) over the whole
10k-fact data graph in the same run; and a
1,000-triple batch that no shape targets.
"""
from __future__ import annotations

import argparse
import statistics
import time

import pyshacl
from rdflib import RDF, Graph, Literal, Namespace

from holokb.resources import data_dir
from holokb.shapes import InMemoryContext, ShapesGate

EX = Namespace("http://example.org/")
XSD = Namespace("http://www.w3.org/2001/XMLSchema#")


def synthetic_kb(n_facts: int) -> list[tuple]:
    """About ``n_facts`` valid triples: 10 facts per block of people, places, tools, libraries, policies."""
    out: list[tuple] = []
    i = 0
    while len(out) < n_facts:
        person, place, tool, lib, policy = (EX[f"person{i}"], EX[f"place{i}"], EX[f"tool{i}"],
                                            EX[f"lib{i}"], EX[f"policy{i}"])
        out += [
            (person, RDF.type, EX.Person), (person, EX.name, Literal(f"Person {i}")),
            (person, EX.locatedIn, place), (place, RDF.type, EX.City),
            (tool, RDF.type, EX.Tool), (tool, EX.uses, lib), (lib, RDF.type, EX.Library),
            (policy, RDF.type, EX.Policy),
            (policy, EX.sessionTimeout, Literal(f"PT{i % 60 + 1}M", datatype=XSD.duration)),
            (person, EX.knows, EX[f"person{max(0, i - 1)}"]),
        ]
        i += 1
    return out[:n_facts]


def new_batch(n_blocks: int, seed: int = 0) -> Graph:
    """1,000 new facts: 200 new people (type, name, place, knows) and 200 new uses edges on old tools."""
    g = Graph()
    for j in range(200):
        person = EX[f"new{seed}_{j}"]
        g.add((person, RDF.type, EX.Person))
        g.add((person, EX.name, Literal(f"New {j}")))
        g.add((person, EX.locatedIn, EX[f"place{(j * 7) % n_blocks}"]))
        g.add((person, EX.knows, EX[f"person{(j * 13) % n_blocks}"]))
        g.add((EX[f"tool{(j * 11) % n_blocks}"], EX.uses, EX[f"lib{(j * 17) % n_blocks}"]))
    return g


def untargeted_batch() -> Graph:
    g = Graph()
    for j in range(1000):
        g.add((EX[f"doc{j}"], EX.mentions, EX[f"term{j}"]))
    return g


def median_time(fn, runs: int = 3) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000,1000000")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    gate = ShapesGate.load([data_dir("shapes") / "domain.ttl"])
    shapes_graph = Graph().parse(data_dir("shapes") / "domain.ttl", format="turtle")

    rows = []
    for n in sizes:
        triples = synthetic_kb(n)
        ctx = InMemoryContext(triples)
        blocks = n // 10
        batch = new_batch(blocks)
        assert len(batch) == 1000
        t, report = median_time(lambda: gate.check(batch, ctx))
        assert report.conforms, report.diagnostics()[:3]
        quiet = untargeted_batch()
        t_skip, skip = median_time(lambda: gate.check(quiet, ctx), runs=7)
        assert skip.shapes_run == ()
        rows.append((n, t, report.focus_count, report.context_triples, t_skip))
        if n == sizes[0]:
            data = Graph()
            for tr in triples:
                data.add(tr)
            for tr in batch:
                data.add(tr)
            t_full, (conforms, _, _) = median_time(lambda: pyshacl.validate(data, shacl_graph=shapes_graph,
                                                                           ont_graph=shapes_graph))
            assert conforms
            t_full_gate, full = median_time(lambda: gate.validate_full(data))
            assert full.conforms
        del ctx, triples

    base = rows[0][1]
    print(f"{'KB facts':>10} | {'gate 1k batch (s)':>17} | {'vs smallest':>11} | {'focus':>6} | "
          f"{'context triples':>15} | {'untargeted 1k (ms)':>18}")
    for n, t, focus, ctx_n, t_skip in rows:
        print(f"{n:>10} | {t:>17.3f} | {t / base:>10.2f}x | {focus:>6} | {ctx_n:>15} | {t_skip * 1000:>18.2f}")
    print()
    print(f"plain pyshacl.validate over the whole {sizes[0]}-fact graph (+batch): {t_full:.3f} s "
          f"= {t_full / base:.1f}x the gate")
    print(f"gate.validate_full over the same graph: {t_full_gate:.3f} s")
    growth = max(t for _, t, *_ in rows) / min(t for _, t, *_ in rows)
    print(f"gate time spread across KB sizes: {growth:.2f}x (target <= 1.20x)")


if __name__ == "__main__":
    main()
