"""The cheaper proof recording computes the very model, proofs and scores of the plain one.

Two switches shortcut the vector path when proofs are recorded: ``BodySolver.merge_proofs``
(rows that coincide once their dead variables are dropped are merged, as without proofs) and
``joins.SCORES_AT_RECORD`` (scores are worked out from the premise rows of the kept rows instead
of riding through every join).  Hypothesis holds each model's stored columns — rows in stored
order, validity, depth, rule, proof number, confidence product (bit for bit), path length —, its
proof table, statistics and budget cuts equal to the run with both switches off, on random
stratified programs with random rule weights and fact confidences.
"""
import itertools
import re

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.core import Limits, Literal
from holokb.engine import closure
from holokb.engine import joins as _joins
from holokb.engine import rowloop as _rowloop
from holokb.engine import rowwise as _rowwise
from holokb.engine import variants as _variants
from holokb.engine.body import BodySolver

from lang import EX, rules
from stratified_programs import database, programs, temporal_facts
from test_fast_paths import ARITH, LOOPS

#: Joins of derived relations in every program (later premises with scores of their own).
JOINS = """
rule ja: ex:ja(?x) :- ex:q0(?x, ?y), ex:q0(?y, ?x).
rule jb: ex:jb(?x, ?z) :- ex:e0(?x, ?y), ex:q0(?y, ?z), ex:ja(?z).
rule jc: ex:jb(?x, ?x) :- ex:jb(?x, ?y), ex:ja(?y), ex:q1(?x).
rule jd: ex:jd(?x, ?y) :- ex:jd(?w, ?x), ?x < 9, ?y = ?x + 1.
"""
COLUMNS = ("valid_from", "valid_to", "depth", "rule", "proof", "prod", "plen")


def _stored(m):
    """Everything the closure stored, as plain values: terms for ids (the paths may mint computed
    integers in another order), row numbers, floats compared by their bits."""
    term = m.terms.term
    rels = {}
    for rk, rel in sorted(m.relations.items()):
        if not rel.size:  # (whether a path made an empty relation is not part of the model)
            continue
        cols = [[term(i) for i in rel.col(c).tolist()] for c in range(rel.arity)]
        meta = [rel.meta(n).view(np.int64).tolist() if n == "prod" else rel.meta(n).tolist()
                for n in COLUMNS if rel.has_meta(n)]
        rels[rk] = (cols, meta)
    table = [None if r is None else ([p.tolist() for p in r.premise_rows],
                                     [(k, [term(i) for i in v.tolist()]) for k, v in r.values])
             for r in m.proofs.rules]
    return rels, table, m.stats, m.truncated, m.limit_hit


def _weighted(text: str, weights: list[float]) -> str:
    """Each rule of ``text`` with the next weight (1.0 leaves it unannotated)."""
    it = itertools.cycle(weights)

    def sub(mt):
        w = next(it)
        return mt.group(0) if w == 1.0 else f"rule {mt.group(1)} [weight {w}]:"
    return re.sub(r"rule (\w+):", sub, text)


@settings(max_examples=50, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(programs(aggregates=False), temporal_facts(), st.lists(st.sampled_from([1.0, 0.9, 0.7, 0.33]), min_size=1, max_size=5),
       st.lists(st.tuples(st.sampled_from(["e0", "e1"]), st.integers(0, 3), st.integers(0, 3),
                          st.sampled_from([0.1, 0.3, 0.77, 1.0])), max_size=4),
       st.sampled_from([None, 3, 12]), st.booleans())
def test_cheap_proof_recording_stores_the_same_model(monkeypatch, text, fs, weights, scored, max_derived, threads):
    prog = rules(_weighted(text + JOINS, weights))
    db = database(fs)
    for p, a, b, conf in scored:
        db.add(EX + p, (Literal.of(a), Literal.of(b)), confidence=conf)
    limits = Limits(max_derived=max_derived)
    models = []
    for on in (True, False):
        with monkeypatch.context() as m:
            m.setattr(_rowwise, "ROWWISE", False)  # every iteration on the vector path
            m.setattr(_variants, "MIN_ROWS", 0)
            m.setattr(_variants, "THREADS", 2 if threads else 1)
            m.setattr(BodySolver, "merge_proofs", on)
            m.setattr(_joins, "SCORES_AT_RECORD", on)
            models.append(closure(prog, db, record_proofs=True, limits=limits))
    assert _stored(models[0]) == _stored(models[1]), text


def test_merged_rows_keep_the_first_proof():
    """d(x) :- a(x, y), b(y): with y dead after b, the three a-rows of x = 1 are merged to the first
    before d is derived — its proof names the first a-row and its score that row's confidence."""
    prog = rules("rule d: ex:d(?x) :- ex:a(?x, ?y), ex:b(?y).")
    db = database([])
    for y, conf in ((1, 0.5), (2, 0.25), (3, 1.0)):
        db.add(EX + "a", (Literal.of(1), Literal.of(y)), confidence=conf)
        db.add(EX + "b", (Literal.of(y),))
    m = closure(prog, db, record_proofs=True)
    (rule,) = m.proofs.rules
    assert [r.tolist() for r in rule.premise_rows] == [[0], [0]]  # a's first row, b's first row
    rel = m.relations[(EX + "d", False)]
    assert rel.meta("prod").tolist() == [0.5] and rel.meta("plen").tolist() == [1]


@settings(max_examples=50, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(programs(), temporal_facts(timeless=True), st.lists(st.sampled_from([1.0, 1.0, 0.9, 0.33]), min_size=1, max_size=6),
       st.lists(st.tuples(st.sampled_from(["e0", "e1"]), st.integers(0, 3), st.integers(0, 3),
                          st.sampled_from([0.3, 0.77, 1.0])), max_size=3),
       st.sampled_from([None, 5]), st.sampled_from([1, 4, 64]))
def test_fused_loop_stores_the_vector_paths_proofs_and_scores(monkeypatch, text, fs, weights, scored, max_derived,
                                                              threshold):
    """The fused small-delta loop (its proof numbers, premise rows, values read back from the new
    rows, scores — left out when all are 1.0) stores what the vector path stores, bit for bit."""
    prog = rules(_weighted(text + "\n" + ARITH + LOOPS + JOINS, weights))
    db = database(fs)
    for p, a, b, conf in scored:
        db.add(EX + p, (Literal.of(a), Literal.of(b)), confidence=conf)
    db.add(EX + "jd", (Literal.of(0), Literal.of(0)), confidence=scored[0][3] if scored else 1.0)  # a counter's start
    limits = Limits(max_derived=max_derived)
    with monkeypatch.context() as m:
        m.setattr(_rowwise, "THRESHOLD", threshold)
        m.setattr(_rowloop, "FUSE_AFTER", 0)
        fused = closure(prog, db, record_proofs=True, limits=limits)
    with monkeypatch.context() as m:
        m.setattr(_rowwise, "ROWWISE", False)
        vec = closure(prog, db, record_proofs=True, limits=limits)
    assert _stored(fused) == _stored(vec), text
