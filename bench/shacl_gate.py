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


def timed(fn) -> tuple[float, float, object]:
    """(wall seconds, process CPU seconds, result) of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - w0, time.process_time() - c0, result


def median_time(fn, runs: int = 3) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        wall, _cpu, result = timed(fn)
        times.append(wall)
    return statistics.median(times), result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    gate = ShapesGate.load([data_dir("shapes") / "domain.ttl"])
    shapes_graph = Graph().parse(data_dir("shapes") / "domain.ttl", format="turtle")

    kbs = {}
    for n in sizes:
        triples = synthetic_kb(n)
        kbs[n] = (InMemoryContext(triples), new_batch(n // 10))
        assert len(kbs[n][1]) == 1000
        if n == sizes[0]:
            small_kb = triples
        del triples
    quiet = untargeted_batch()

    # round-robin over sizes so load from other processes hits every size alike
    wall: dict[int, list[float]] = {n: [] for n in sizes}
    cpu: dict[int, list[float]] = {n: [] for n in sizes}
    skip: dict[int, list[float]] = {n: [] for n in sizes}
    reports = {}
    for _ in range(args.runs):
        for n in sizes:
            ctx, batch = kbs[n]
            w, c, reports[n] = timed(lambda: gate.check(batch, ctx))
            assert reports[n].conforms, reports[n].diagnostics()[:3]
            wall[n].append(w)
            cpu[n].append(c)
            for _ in range(3):
                w, _c, quiet_report = timed(lambda: gate.check(quiet, ctx))
                assert quiet_report.shapes_run == ()
                skip[n].append(w)

    data = Graph()
    for tr in small_kb:
        data.add(tr)
    for tr in kbs[sizes[0]][1]:
        data.add(tr)
    t_full, (conforms, _, _) = median_time(
        lambda: pyshacl.validate(data, shacl_graph=shapes_graph, ont_graph=shapes_graph), args.runs)
    assert conforms
    t_full_gate, full = median_time(lambda: gate.validate_full(data), args.runs)
    assert full.conforms

    med = statistics.median
    base_w, base_c = med(wall[sizes[0]]), med(cpu[sizes[0]])
    print(f"medians of {args.runs} runs (untargeted: of {3 * args.runs})")
    print(f"{'KB facts':>10} | {'gate wall (s)':>13} | {'gate CPU (s)':>12} | {'CPU vs smallest':>15} | "
          f"{'focus':>5} | {'context triples':>15} | {'untargeted 1k (ms)':>18}")
    for n in sizes:
        print(f"{n:>10} | {med(wall[n]):>13.3f} | {med(cpu[n]):>12.3f} | {med(cpu[n]) / base_c:>14.2f}x | "
              f"{reports[n].focus_count:>5} | {reports[n].context_triples:>15} | {med(skip[n]) * 1000:>18.2f}")
    print()
    print(f"plain pyshacl.validate over the whole {sizes[0]}-fact graph (+batch): {t_full:.3f} s wall "
          f"= {t_full / base_w:.1f}x the gate's wall time")
    print(f"gate.validate_full over the same graph: {t_full_gate:.3f} s wall")
    spread = max(med(cpu[n]) for n in sizes) / min(med(cpu[n]) for n in sizes)
    print(f"gate CPU-time spread across KB sizes: {spread:.2f}x (target <= 1.20x)")


if __name__ == "__main__":
    main()
