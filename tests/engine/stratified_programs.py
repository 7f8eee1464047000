"""Hypothesis strategies: random stratified programs (recursion, negation, aggregates, comparisons)
written as rule text, and random facts with random validity intervals.

Predicates: input ``e0/2``, ``e1/2``, ``e2/1``; derived ``q0/2``, ``q1/1``, ``q2/2`` in that
order of strata — a rule for ``q<L>`` reads derived predicates up to level L positively (so it
may recurse) and only below L under ``not`` or inside an aggregate, so every program is
stratified.  Values are the integers 0..2 (aggregates may compute others).
"""
from __future__ import annotations

from hypothesis import strategies as st

from holokb.core import IRI, Interval, Literal
from holokb.engine import Database

EX = "http://ex.org/"
EDB = {"e0": 2, "e1": 2, "e2": 1}
IDB = [("q0", 2), ("q1", 1), ("q2", 2)]
VARS = ["?x", "?y", "?z"]
DOMAIN = 3
TIMES = [0, 10, 20, 30, 40]


def _atom(draw, preds, bound: list[str]) -> str:
    p, n = draw(st.sampled_from(preds))
    args = []
    for _ in range(n):
        if draw(st.integers(0, 6)) == 0:
            args.append(str(draw(st.integers(0, DOMAIN - 1))))
        else:
            v = draw(st.sampled_from(VARS))
            args.append(v)
            if v not in bound:
                bound.append(v)
    return f"ex:{p}({', '.join(args)})"


@st.composite
def programs(draw, *, negation: bool = True, aggregates: bool = True) -> str:
    rules = []
    for k in range(draw(st.integers(1, 5))):
        level = draw(st.integers(0, len(IDB) - 1))
        head_p, head_n = IDB[level]
        pos = list(EDB.items()) + IDB[: level + 1]
        lower = list(EDB.items()) + IDB[:level]
        body: list[str] = []
        bound: list[str] = []
        for _ in range(draw(st.integers(1, 3))):
            body.append(_atom(draw, pos, bound))
        if not bound:
            body.append("ex:e2(?x)")
            bound.append("?x")
        if draw(st.booleans()):
            left = draw(st.sampled_from(bound))
            right = draw(st.one_of(st.sampled_from(bound), st.integers(0, DOMAIN - 1).map(str)))
            body.append(f"{left} {draw(st.sampled_from(['=', '!=', '<', '<=', '>', '>=']))} {right}")
        if negation and draw(st.booleans()):
            p, n = draw(st.sampled_from(lower))
            args = [draw(st.sampled_from(bound + ["?_"])) for _ in range(n)]
            body.append(f"not ex:{p}({', '.join(args)})")
        head_vars = [draw(st.sampled_from(bound)) for _ in range(head_n)]
        if aggregates and draw(st.integers(0, 2)) == 0:
            # ?n = f(?w : p(g, ?w)) grouped by a bound variable g; ?n goes into the head.
            p, n = draw(st.sampled_from([(q, m) for q, m in lower if m == 2]))
            g = draw(st.sampled_from(bound))
            func = draw(st.sampled_from(["count", "sum", "min", "max"]))
            body.append(f"?n = {func}(?w : ex:{p}({g}, ?w))")
            head_vars[-1] = "?n"
        rules.append(f"rule r{k}: ex:{head_p}({', '.join(head_vars)}) :- {', '.join(body)}.")
    return "\n".join(rules)


@st.composite
def intervals(draw) -> Interval:
    start = draw(st.sampled_from([None] + TIMES[:-1]))
    later = [t for t in TIMES if start is None or t > start]
    end = draw(st.sampled_from([None] + later))
    return Interval(start if start is not None else Interval().start, end)


@st.composite
def temporal_facts(draw, *, timeless: bool = False) -> list[tuple[str, tuple[int, ...], Interval]]:
    out = []
    for p, n in EDB.items():
        rows = draw(st.lists(st.tuples(*[st.integers(0, DOMAIN - 1)] * n), min_size=1, max_size=6))
        for r in rows:
            out.append((p, r, Interval() if timeless else draw(intervals())))
    return out


def value(v: int, iris: bool = False):
    return IRI(f"{EX}c{v}") if iris else Literal.of(v)


def database(facts, *, at: int | None = None, iris: bool = False) -> Database:
    """The facts as engine input; with ``at``, only those valid then (as if valid always); with
    ``iris``, values are the IRIs ex:c0.. instead of integers (so that neighbourhoods connect)."""
    db = Database()
    for p, row, valid in facts:
        if at is None:
            db.add(EX + p, tuple(value(v, iris) for v in row), valid=valid)
        elif valid.contains(at):
            db.add(EX + p, tuple(value(v, iris) for v in row))
    return db


def instants(facts) -> list[int]:
    """One instant inside every elementary segment of the facts' endpoints, and every endpoint."""
    lowest = Interval().start
    ends = sorted({t for _, _, v in facts for t in (v.start, v.end) if t is not None and t != lowest} | set(TIMES))
    probe = {ends[0] - 1}
    for a, b in zip(ends, ends[1:]):
        probe.update((a, (a + b) // 2))
    probe.add(ends[-1])
    return sorted(probe)
