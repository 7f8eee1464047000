"""Consistency checking at 1k and 10k ground facts with a functional predicate.

Compares, per backend (z3, cvc5), the end-to-end check and re-checks after adding one fact:
incremental with assumption literals (ConsistencySession.check_with), incremental with
push/pop, and a fresh solver (re-encode + parse + check).  Medians of >= 3 runs; ratios are
against the fresh solver measured in the same run.

    cd /work/main && PYTHONPATH=src python3 bench/solver.py [--sizes 1000,10000] [--runs 3]
"""
from __future__ import annotations

import argparse
import statistics
import time

from holokb.core.terms import IRI
from holokb.solver import ActiveSet, GroundFact, check_consistency, encode, get_backend, installed_backends
from holokb.solver.encode import extend
from holokb.solver.session import ConsistencySession

EX = "http://ex.org/"
LOC = EX + "locatedIn"


def facts(n: int, start: int = 0) -> tuple[GroundFact, ...]:
    return tuple(GroundFact(LOC, (IRI(f"{EX}e{i}"), IRI(f"{EX}city{i % 50}")), key=f"k{i}")
                 for i in range(start, start + n))


def median_ms(fn, runs: int) -> float:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out)


def bench(n: int, backend: str, runs: int) -> list[tuple[str, float]]:
    base = ActiveSet(facts(n), functional=(LOC,))
    rows = []
    enc = encode(base)
    rows.append(("encode (ground + emit text)", median_ms(lambda: encode(base), runs)))
    be = get_backend(backend)

    def load():
        c = be.context(timeout_ms=60_000)
        c.load(enc.text)
        return c

    rows.append(("parse text into solver", median_ms(load, runs)))
    ctx = load()
    fast = enc.fast_assumptions()
    rows.append(("full check (loaded, group literal)", median_ms(lambda: ctx.check(fast, model_for=()), runs)))
    names = enc.assumptions_at(None)
    rows.append(("full check (loaded, one literal per fact)", median_ms(lambda: ctx.check(names, model_for=()), runs)))
    e2e = median_ms(lambda: check_consistency(base, backend=backend), runs)
    rows.append(("check_consistency end to end", e2e))
    counter = iter(range(10**9))

    def fresh():
        i = next(counter)
        r = check_consistency(base.with_facts(facts(1, 10**7 + i)), backend=backend)
        assert r.status == "consistent"

    fresh_ms = median_ms(fresh, runs)
    rows.append(("re-check +1 fact: fresh solver", fresh_ms))
    session = ConsistencySession(base, backend=backend)
    session.check()

    def assumptions():
        i = next(counter)
        assert session.check_with(facts(1, 2 * 10**7 + i)).status == "consistent"

    inc_ms = median_ms(assumptions, max(runs, 5))
    rows.append(("re-check +1 fact: assumptions (session)", inc_ms))
    state = {"enc": encode(base)}
    pctx = be.context(timeout_ms=60_000)
    pctx.load(state["enc"].text)
    base_names = state["enc"].fast_assumptions()

    def pushpop():
        i = next(counter)
        new_enc, delta = extend(state["enc"], facts(1, 3 * 10**7 + i))
        state["enc"] = new_enc
        pctx.push()
        pctx.load(delta)
        r = pctx.check(base_names + (new_enc.fact_names[-1],), model_for=())
        pctx.pop()
        assert r.status == "sat"

    pp_ms = median_ms(pushpop, max(runs, 5))
    rows.append(("re-check +1 fact: push/pop", pp_ms))
    rows.append(("ratio fresh / assumptions", fresh_ms / inc_ms))
    rows.append(("ratio fresh / push-pop", fresh_ms / pp_ms))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"{'facts':>6}  {'backend':<6}  {'measure':<42} {'value':>10}")
    for n in (int(x) for x in args.sizes.split(",")):
        for backend in installed_backends():
            for label, v in bench(n, backend, args.runs):
                unit = "x" if label.startswith("ratio") else "ms"
                print(f"{n:>6}  {backend:<6}  {label:<42} {v:>9.1f}{unit}")


if __name__ == "__main__":
    main()
