"""The evaluator's fast paths compute the same model as the plain paths they shortcut.

Each optimisation has a switch; with every switch off the engine runs the general code (full
joins then filters, bound-position join order, the vector comparison, the vector key set).
Hypothesis holds the two against each other on random stratified programs with negation,
aggregates, arithmetic and expression equalities over random intervals, with and without proofs.
"""
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.core import IRI, Interval, Limits, Literal
from holokb.engine import Database, closure
from holokb.engine import builtins as _builtins
from holokb.engine import kernels as _kernels
from holokb.engine import joins as _joins
from holokb.engine import rowloop as _rowloop
from holokb.engine import rowwise as _rowwise
from holokb.engine import variants as _variants
from holokb.engine.body import BodySolver
from holokb.engine.dictionary import TermDictionary
from holokb.engine.keyset import SMALL, KeySet

from lang import EX, facts, rules
from stratified_programs import IDB, database, programs, temporal_facts

SWITCHES = [(BodySolver, "cardinality"), (BodySolver, "key_steps"), (BodySolver, "skip_validity"),
            (BodySolver, "live_joins"), (BodySolver, "merge_proofs"), (BodySolver, "prune_empty"), (_joins, "SCORES_AT_RECORD"),
            (_joins, "UNIT_VIEWS"), (_joins, "PARTIAL_INDEXES"),
            (_builtins, "INT_COMPARE"), (_joins, "INT_CONST"), (_rowwise, "ROWWISE"), (_rowloop, "FUSED"),
            (_kernels, "JIT"), (_variants, "PARALLEL")]


@pytest.fixture
def plain(monkeypatch):
    """A function that evaluates with every fast path switched off."""
    def run(fn):
        with monkeypatch.context() as m:
            for owner, name in SWITCHES:
                m.setattr(owner, name, False)
            return fn()
    return run


def _model(m):
    """Every derived fact with its maximal intervals (what a caller can observe)."""
    out = {}
    for p in [q for q, _ in IDB] + ["n", "m", "succ", "prev", "ok"]:
        for args in m.relation(EX + p):
            out[(p, args)] = m.validity(EX + p, args)
    return out


ARITH = """
rule succ: ex:succ(?x, ?y) :- ex:e2(?x), ex:e0(?y, ?_), ?y = ?x + 1.
rule prev: ex:prev(?y, ?x) :- ex:q0(?y, ?_), ex:e1(?x, ?_), ?x - 1 = ?y.
rule n: ex:n(?y) :- ex:e2(?x), ?x < 6, ?y = ?x + 2.
rule n2: ex:n(?y) :- ex:n(?x), ?x < 6, ?y = ?x + 1.
rule m: ex:m(?x, ?w) :- ex:n(?x), ex:e0(?w, ?v), ?v = ?x - 3.
"""


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(programs(), temporal_facts(), st.booleans(), st.booleans())
def test_fast_paths_give_the_same_model(plain, text, fs, record, decimals):
    prog = rules(text + "\n" + ARITH)
    db = database(fs)
    if decimals:  # equal values under two ids: a key step must not bind through them
        db.add(EX + "e0", (Literal.of(Decimal("2.5")), Literal.of(Decimal("2"))))
        db.add(EX + "e1", (Literal.of(Decimal("3")), Literal.of(1)))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_kernels, "MIN_N", 0)  # the compiled kernels on every input, however small
        m.setattr(_kernels, "LOAD_AFTER", 0)
        m.setattr(_variants, "MIN_ROWS", 0)  # every vector iteration's variants on worker threads
        m.setattr(_variants, "THREADS", 2)
        fast = closure(prog, db, record_proofs=record)
    slow = plain(lambda: closure(prog, db, record_proofs=record))
    assert not fast.truncated and not slow.truncated
    assert _model(fast) == _model(slow), text
    assert fast.stats.derived == slow.stats.derived


def test_an_expression_equality_keys_the_atom_instead_of_a_full_join(plain):
    """q(x) :- n(x), p(v), v = x - 1: with the key step the join probes p by x - 1 (n rows), without
    it every n row meets every p row (n * p pairs) — the intermediate-row cap tells them apart."""
    prog = rules("rule q: ex:q(?x) :- ex:n(?x), ex:p(?v), ?v = ?x - 1.")
    db = Database()
    for i in range(300):
        db.add(EX + "n", (Literal.of(i),))
        db.add(EX + "p", (Literal.of(2 * i),))
    limits = Limits(max_edges=5_000)
    keyed = closure(prog, db, limits=limits)
    assert not keyed.truncated
    assert {a[0].value for a in keyed.relation(EX + "q")} == {2 * i + 1 for i in range(150)}
    full = plain(lambda: closure(prog, db, limits=limits))
    assert full.truncated and full.limit_hit == "max_edges"


def test_a_key_step_does_not_bind_through_values_with_several_ids():
    """2 = 2.0 by value, but the integer 2 and the decimal 2.0 have different ids: the atom over
    decimals must be joined by value (the key step stands aside), so q(3) is derived."""
    prog = rules("rule q: ex:q(?x) :- ex:n(?x), ex:p(?v), ?v = ?x - 1.")
    db = facts("ex:n(3). ex:n(5).")
    db.add(EX + "p", (Literal.of(Decimal("2.0")),))
    m = closure(prog, db)
    assert [a[0].value for a in m.relation(EX + "q")] == [3]


def test_join_order_follows_relation_sizes(plain):
    """big(x, y), small(y), tiny(x): with sizes the planner joins tiny before big's unkeyed scan."""
    from holokb.engine.planning import plan_body

    prog = rules("rule r: ex:r(?x, ?y) :- ex:big(?x, ?y), ex:tiny(?x), ex:mid(?y).")
    body = prog.rules[0].body
    by_bound = [s.item.predicate[len(EX):] for s in plan_body(body) if s.kind == "atom"]
    by_size = [s.item.predicate[len(EX):] for s in plan_body(body, None, (20, 1, 10)) if s.kind == "atom"]
    assert by_bound == ["big", "tiny", "mid"]
    assert by_size == ["tiny", "big", "mid"]


def test_a_long_linear_recursion_counts_every_step(plain):
    prog = rules("rule s: ex:b(?y) :- ex:b(?x), ?x < 500, ?y = ?x + 1.")
    db = Database()
    db.add(EX + "b", (Literal.of(0),))
    fast = closure(prog, db, record_proofs=True)
    slow = plain(lambda: closure(prog, db, record_proofs=True))
    assert sorted(a[0].value for a in fast.relation(EX + "b")) == list(range(501))
    assert fast.stats.iterations == slow.stats.iterations >= 500
    steps = {s.fact.args[0].value: s for s in fast.proof_steps()}
    assert dict(steps[500].bindings)["x"].value == 499
    assert [s.bindings for s in fast.proof_steps()] == [s.bindings for s in slow.proof_steps()]


@given(st.lists(st.lists(st.integers(0, 60), max_size=2 * SMALL), max_size=30), st.data())
@settings(max_examples=100, deadline=None)
def test_small_keyset_inserts_match_a_python_set(batches, data):
    s, ref = KeySet(), set()
    for batch in batches:
        got = s.add_new(np.array(batch, dtype=np.int64)).tolist()
        seen, want = set(), []
        for k in batch:
            want.append(k not in ref and k not in seen)
            seen.add(k)
        ref |= seen
        assert got == want
        assert len(s) == len(ref)
        if ref and data.draw(st.booleans()):
            gone = data.draw(st.lists(st.sampled_from(sorted(ref)), max_size=3))
            s.discard(np.array(gone, dtype=np.int64))
            ref -= set(gone)
        probe = np.arange(62, dtype=np.int64)
        assert s.contains(probe).tolist() == [k in ref for k in range(62)]


def test_small_integer_interning_matches_the_vector_path():
    a, b = TermDictionary(), TermDictionary()
    vals = np.array([5, -3, 5, 7, 0, -3], dtype=np.int64)
    small = a.intern_ints(vals)  # six values: the Python loop
    big = b.intern_ints(np.concatenate([vals, vals]))[:6]  # twelve: np.unique
    assert [a.term(i) for i in small] == [b.term(i) for i in big]
    assert small[0] == small[2] and small[1] == small[5]


@given(st.lists(st.one_of(st.integers(-5, 5), st.sampled_from([2**40, 2**62 - 1, 2**62, -(2**63), 2**70]),
                          st.sampled_from(["s", Decimal("2.5"), True])), max_size=12),
       st.lists(st.integers(0, 3), max_size=12))
def test_lazy_integer_interning_matches_the_eager_one(values, readers):
    """Integers interned lazily (the fused loop's minting: no Literal built until read) get the same
    ids, value columns, terms and lookups as eager interning, read in any order, mixed with others;
    reader 3 follows lazy_int_parts' protocol (the generated code's inline minting)."""
    eager, lazy = TermDictionary(), TermDictionary()
    cache: dict = {}
    mint = lazy.lazy_int_minter(cache)
    parts = lazy.lazy_int_parts()

    def inline(v):
        if not -(2**62) < v < 2**62:
            return lazy.intern_int(v)
        i = parts["IDS"].get(v)
        if i is None:
            i = lazy._bound
            lazy._bound = i + 1
            parts["IDS"][v] = i
            parts["LAZY"][i] = v
        return i

    got_e, got_l = [], []
    for k, v in enumerate(values):
        reader = readers[k] if k < len(readers) else 0
        if isinstance(v, int) and not isinstance(v, bool):
            got_e.append(eager.intern_int(v))
            got_l.append(mint(v) if reader == 0 else lazy.intern_int_lazy(v) if reader == 1
                         else inline(v) if reader == 3 else lazy.intern_int(v))
        else:
            got_e.append(eager.intern(Literal.of(v)))
            got_l.append(lazy.intern(Literal.of(v)))
        if reader == 2:  # read the value columns in between (pending lazy ids are written then)
            lazy.values()
    assert got_e == got_l and len(eager) == len(lazy)
    for (e_col, l_col) in zip(eager.values() + eager.integers(), lazy.values() + lazy.integers()):
        assert e_col[:eager.id_bound].tolist() == l_col[:lazy.id_bound].tolist()
    assert [eager.term(i) for i in got_e] == [lazy.term(i) for i in got_l]
    assert all(lazy.lookup(Literal.of(v)) == i for v, i in zip(values, got_l))
    assert all(lazy.term(i).value == v and abs(v) < 2**62 for i, v in cache.items())
    assert len(eager) == len(lazy)  # (terms built on read are not counted twice)


@given(st.lists(st.sampled_from([0, 1, -2, 7, Decimal("1"), Decimal("0.5"), 1.0, True, "a"]), min_size=1, max_size=12),
       st.lists(st.sampled_from([0, 1, -2, 7, Decimal("1"), 2.5, False, "a"]), min_size=1, max_size=12),
       st.sampled_from(["=", "!=", "<", "<=", ">", ">="]))
def test_integer_comparison_fast_path_matches_the_general_one(xs, ys, op):
    n = min(len(xs), len(ys))
    d = TermDictionary()
    a = np.array([d.intern(Literal.of(v)) for v in xs[:n]], dtype=np.int64)
    b = np.array([d.intern(Literal.of(v)) for v in ys[:n]], dtype=np.int64)
    fast = _builtins.compare(op, a, b, d)
    old, _builtins.INT_COMPARE = _builtins.INT_COMPARE, False
    try:
        slow = _builtins.compare(op, a, b, d)
    finally:
        _builtins.INT_COMPARE = old
    assert fast.tolist() == slow.tolist()


def test_an_empty_relation_is_joined_first(plain):
    """r(x) :- a(x, y), b(y, z), none(z): written order joins a with b (every pair shares y) before
    finding none empty; with sizes the empty relation comes first and the body ends at once."""
    prog = rules("rule r: ex:r(?x) :- ex:a(?x, ?y), ex:b(?y, ?z), ex:none(?z), not ex:d(?x).\n"
                 "rule d: ex:d(?x) :- ex:none(?x).\n"  # through not: none is done before r's stratum
                 "rule n: ex:none(?z) :- ex:c(?z), ?z < 0.")
    db = Database()
    for i in range(200):
        db.add(EX + "a", (Literal.of(i), Literal.of(0)))
        db.add(EX + "b", (Literal.of(0), Literal.of(i)))
    db.add(EX + "c", (Literal.of(1),))
    limits = Limits(max_edges=10_000)
    sized = closure(prog, db, limits=limits)
    assert not sized.truncated and sized.relation(EX + "r") == ()
    written = plain(lambda: closure(prog, db, limits=limits))
    assert written.truncated and written.limit_hit == "max_edges"


def _observed(m):
    """Everything a caller can read of a model, rows in stored order: each relation's rows with
    their intervals, every proof step (fact, premises, bindings, absences), the statistics."""
    rels = {}
    for p in [q for q, _ in IDB] + ["n", "m", "succ", "prev", "ok"]:
        rels[p] = m.rows(EX + p)
    steps = [(s.fact, s.premises, s.bindings, s.absent) for s in m.proof_steps()]
    return rels, steps, m.stats, m.truncated, m.limit_hit


@settings(max_examples=80, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(programs(aggregates=False), temporal_facts(), st.booleans(), st.sampled_from([None, 3, 12]),
       st.sampled_from([1, 4, 64]), st.booleans())
def test_row_at_a_time_iterations_give_the_same_model(monkeypatch, text, fs, record, max_derived, threshold,
                                                      decimals):
    """Small deltas solved row at a time == the vector path: the same rows in the same order, the
    same intervals, proofs (premises, bindings, absent premises), statistics and budget cuts."""
    rows, vec = _small_deltas_and_vector(monkeypatch, text + "\n" + ARITH, fs, decimals, record,
                                         Limits(max_derived=max_derived), threshold)
    assert _observed(rows) == _observed(vec), text


def _small_deltas_and_vector(monkeypatch, text, fs, decimals, record, limits, threshold):
    """The models of ``text`` over ``fs`` with the small-delta paths on (at ``threshold``) and off."""
    prog = rules(text)
    db = database(fs)
    if decimals:  # values equal to integers under other ids: key steps and comparisons by value
        db.add(EX + "e0", (Literal.of(Decimal("2.5")), Literal.of(Decimal("2"))))
        db.add(EX + "e1", (Literal.of(Decimal("3")), Literal.of(1)))
    with monkeypatch.context() as m:
        m.setattr(_rowwise, "THRESHOLD", threshold)
        m.setattr(_rowloop, "FUSE_AFTER", 0)  # fuse from the first small delta: short programs exercise it
        small = closure(prog, db, record_proofs=record, limits=limits)
    with monkeypatch.context() as m:
        m.setattr(_rowwise, "ROWWISE", False)
        vec = closure(prog, db, record_proofs=record, limits=limits)
    return small, vec


def test_row_at_a_time_falls_back_past_its_binding_cap(monkeypatch):
    """A one-row delta that joins into more bindings than the row path holds runs vectorised and
    still derives everything (and the path is really taken for the small steps)."""
    prog = rules("rule s: ex:b(?y) :- ex:b(?x), ex:wide(?z), ?x < 50, ?y = ?x + 1.\n"
                 "rule c: ex:b(?y) :- ex:b(?x), ex:c(?x), ?y = ?x + 100.")
    db = Database()
    db.add(EX + "b", (Literal.of(0),))
    for i in range(_rowwise.MAX_BINDINGS + 10):
        db.add(EX + "wide", (Literal.of(i),))
    calls = {"fallback": 0, "solve": 0}
    real = _rowwise.RowIteration.solve

    def counting(self, *a, **k):
        calls["solve"] += 1
        try:
            return real(self, *a, **k)
        except _rowwise.Fallback:
            calls["fallback"] += 1
            raise

    monkeypatch.setattr(_rowwise.RowIteration, "solve", counting)
    monkeypatch.setattr(_rowloop, "FUSED", False)  # the row path's own fallback (the fused one: below)
    db.add(EX + "c", (Literal.of(7),))
    m = closure(prog, db, record_proofs=True)
    assert sorted(a[0].value for a in m.relation(EX + "b")) == list(range(51)) + [107]
    assert calls["fallback"] > 40  # tried on every small delta, given up while x < 50 joins wide
    monkeypatch.setattr(_rowwise, "ROWWISE", False)
    assert _observed(m) == _observed(closure(prog, db, record_proofs=True))


def test_row_at_a_time_functions_and_division_match_the_vector_path(monkeypatch):
    """Built-in functions, integer div/mod (truncating, negative operands, by zero), decimals and
    string functions in recursive rules with one-row deltas: the row path's scalar builtins give the
    vector path's model, proofs included."""
    prog = rules("""
        rule n: ex:n(?y) :- ex:n(?x), ?x > -40, ?y = div(?x * 3, 2) - 7.
        rule m: ex:m(?x, ?r, ?q) :- ex:n(?x), ex:d(?d), ?r = mod(?x, ?d), ?q = ?x % 4, ?x != 0.
        rule w: ex:w(?t) :- ex:w(?s), strlen(?s) < 6, ?t = concat(?s, to_string(strlen(?s))).
        rule h: ex:h(?z) :- ex:h(?x), ?x < 3, ?z = ?x + 0.5.
    """)
    db = facts('ex:n(5). ex:w("a"). ex:h(0). ex:d(3). ex:d(-2). ex:d(0).')
    rows = closure(prog, db, record_proofs=True)
    monkeypatch.setattr(_rowwise, "ROWWISE", False)
    vec = closure(prog, db, record_proofs=True)
    assert _observed(rows) == _observed(vec)
    for p in ("n", "m", "w", "h"):
        assert rows.rows(EX + p) == vec.rows(EX + p) and rows.rows(EX + p)
    assert [s.bindings for s in rows.proof_steps()] == [s.bindings for s in vec.proof_steps()]


LOOPS = """
rule l1: ex:l(?x, ?y) :- ex:e0(?x, ?y).
rule l2: ex:l(?x, ?z) :- ex:l(?x, ?y), ex:e1(?y, ?z), not ex:e2(?z).
rule l3: ex:l(?x, ?w) :- ex:l(?x, ?y), ?y < 9, ?w = ?y + 2, ?x != ?w.
rule k1: ex:k(?y) :- ex:n(?x), ex:l(?x, ?y), ?y > 1.
rule k2: ex:k(?y) :- ex:k(?x), ex:l(?_, ?x), ?x < 14, ?y = ?x * 2 - 1.
rule k3: ex:k(?y) :- ex:k(?x), ex:e1(?x, ?_), ?y = ?x - 1, ?y >= -3.
rule k4: ex:k(?z) :- ex:k(?x), ?x < 12, ?y = ?x + 1, ex:e1(?y, ?z).
"""


def _observed_loops(m):
    rels, steps, stats, truncated, hit = _observed(m)
    rels.update({p: m.rows(EX + p) for p in ("l", "k")})
    return rels, steps, stats, truncated, hit


@settings(max_examples=80, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(programs(), temporal_facts(timeless=True), st.booleans(), st.sampled_from([None, 5, 20]),
       st.sampled_from([1, 4, 64]), st.booleans(), st.sampled_from([None, 3]))
def test_fused_small_delta_loop_gives_the_same_model(monkeypatch, text, fs, record, max_derived, threshold,
                                                     decimals, max_depth):
    """The fused loop (generated code per rule variant, many iterations per call) == the vector
    path on programs whose rows hold always: rows in stored order, proofs, statistics, budget cuts."""
    fused, vec = _small_deltas_and_vector(monkeypatch, text + "\n" + ARITH + LOOPS, fs, decimals, record,
                                          Limits(max_derived=max_derived, max_depth=max_depth), threshold)
    assert _observed_loops(fused) == _observed_loops(vec), text


def _fused_states(monkeypatch) -> list[str]:
    """The states FusedLoop.run returns from now on, in order (a spy)."""
    states: list[str] = []
    real = _rowloop.FusedLoop.run

    def spy(self, *a):
        got = real(self, *a)
        states.append(got[0])
        return got

    monkeypatch.setattr(_rowloop.FusedLoop, "run", spy)
    return states


@pytest.mark.parametrize("record", [True, False])
def test_the_fused_loop_runs_and_hands_back_past_its_binding_cap(monkeypatch, record):
    """A counter runs fused (one call, many iterations); where a one-row delta joins into more
    bindings than the loop holds the iteration goes back to the other paths, nothing lost (without
    proofs the generated loop has stored the counter's row of that iteration: it is taken back)."""
    states = _fused_states(monkeypatch)
    monkeypatch.setattr(_rowloop, "FUSE_AFTER", 0)
    prog = rules("rule s: ex:b(?y) :- ex:b(?x), ?x < 300, ?y = ?x + 1.\n"
                 "rule u: ex:b(?y) :- ex:b(?x), ex:wide(?z), ?x < 20, ?z < ?x + 5000, ?y = ?x + 100000.\n"
                 "rule w: ex:v(?y) :- ex:v(?x), ex:wide(?z), ?x < 30, ?z < ?x + 5000, ?y = ?x + 1.")
    db = Database()
    db.add(EX + "b", (Literal.of(0),))
    db.add(EX + "v", (Literal.of(0),))
    for i in range(_rowloop.MAX_BINDINGS + 10):
        db.add(EX + "wide", (Literal.of(i),))
    m = closure(prog, db, record_proofs=record)
    assert sorted(a[0].value for a in m.relation(EX + "b")) == list(range(301)) + list(range(100000, 100020))
    assert sorted(a[0].value for a in m.relation(EX + "v")) == list(range(31))
    assert "done" in states and m.stats.iterations >= 301  # the counter: one call
    assert states.count("back") >= 25  # ex:v: each step joins all of ex:wide, then goes back
    monkeypatch.setattr(_rowwise, "ROWWISE", False)
    vec = closure(prog, db, record_proofs=record)
    assert m.rows(EX + "b") == vec.rows(EX + "b") and m.rows(EX + "v") == vec.rows(EX + "v")
    assert [s.bindings for s in m.proof_steps()] == [s.bindings for s in vec.proof_steps()]
    assert m.stats == vec.stats


def test_the_fused_loop_probes_an_earlier_relation_by_a_computed_integer(monkeypatch):
    """``?k = ?x + 1, ex:succ(?k, ?y)``: the fused loop binds ?k to the id of x + 1 and probes succ by it
    (joined unkeyed, every step would pass MAX_BINDINGS over succ's rows and go back); a decimal in the
    probed column turns the probe off (2 = 2.0 under two ids), and both give the vector path's model."""
    states = _fused_states(monkeypatch)
    n = _rowloop.MAX_BINDINGS + 200
    prog = rules(f"rule s: ex:reach(?y) :- ex:reach(?x), ?x < {n}, ?k = ?x + 1, ex:succ(?k, ?y).")
    for decimal in (False, True):
        states.clear()
        db = Database()
        db.add(EX + "reach", (Literal.of(0),))
        for i in range(1, n + 1):
            db.add(EX + "succ", (Literal.of(i), Literal.of(i)))
        if decimal:
            db.add(EX + "succ", (Literal.of(Decimal("7")), Literal.of(-1)))
        for record in (False, True):
            m = closure(prog, db, record_proofs=record)
            assert len(m.rows(EX + "reach")) == n + 1 + decimal
            assert ("back" in states) is decimal and "done" in states
            states.clear()
            with monkeypatch.context() as off:
                off.setattr(_rowwise, "ROWWISE", False)
                vec = closure(prog, db, record_proofs=record)
            assert _observed(m) == _observed(vec) and m.rows(EX + "reach") == vec.rows(EX + "reach")
            assert [s.bindings for s in m.proof_steps()] == [s.bindings for s in vec.proof_steps()]


def test_short_recursions_stay_on_the_row_path_and_long_ones_fuse(monkeypatch):
    """The fused loop is built only after FUSE_AFTER small iterations (its compile costs more than a
    short closure); a long counter still fuses, and both give the vector path's model."""
    built = []
    real = _rowloop.FusedLoop.__init__

    def spy(self, *a):
        built.append(True)
        real(self, *a)

    monkeypatch.setattr(_rowloop.FusedLoop, "__init__", spy)
    for n, fuses in ((_rowloop.FUSE_AFTER - 2, False), (200, True)):
        built.clear()
        prog = rules(f"rule s: ex:b(?y) :- ex:b(?x), ?x < {n}, ?y = ?x + 1.")
        db = Database()
        db.add(EX + "b", (Literal.of(0),))
        m = closure(prog, db, record_proofs=True)
        assert bool(built) is fuses
        with monkeypatch.context() as off:
            off.setattr(_rowwise, "ROWWISE", False)
            vec = closure(prog, db, record_proofs=True)
        assert m.rows(EX + "b") == vec.rows(EX + "b") and len(m.rows(EX + "b")) == n + 1
        assert [s.bindings for s in m.proof_steps()] == [s.bindings for s in vec.proof_steps()]


def _threads_and_one(monkeypatch, text, fs, record, limits):
    """The models of ``text`` over ``fs`` with every vector iteration's variants solved on two
    threads and on the calling thread (row-at-a-time paths off: every iteration is a vector one)."""
    prog, db = rules(text), database(fs)
    models = []
    for threads in (2, 1):
        with monkeypatch.context() as m:
            m.setattr(_rowwise, "ROWWISE", False)
            m.setattr(_variants, "MIN_ROWS", 0)
            m.setattr(_variants, "THREADS", threads)
            models.append(closure(prog, db, record_proofs=record, limits=limits))
    return models


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(programs(aggregates=False), temporal_facts(), st.booleans(), st.sampled_from([None, 3, 12]),
       st.sampled_from([None, 2, 40]))
def test_variants_on_two_threads_give_the_same_model(monkeypatch, text, fs, record, max_derived, max_edges):
    """Two threads == one: the same rows in the same order, intervals, proofs, statistics and
    budget cuts (max_derived claims in relation order; a join past max_edges stops the run)."""
    two, one = _threads_and_one(monkeypatch, text, fs, record, Limits(max_derived=max_derived, max_edges=max_edges))
    assert _observed(two) == _observed(one), text


def test_a_recursive_stratum_runs_its_variants_on_threads(monkeypatch):
    """The threaded path is taken (a spy counts it) on a recursive stratum with a comparison and
    a negation, and gives the one-thread model; a stratum with an assignment stays on the caller."""
    threaded = """
rule a: ex:q0(?x, ?y) :- ex:e0(?x, ?y), not ex:e2(?y).
rule b: ex:q0(?x, ?z) :- ex:q0(?x, ?y), ex:q0(?y, ?z), ?x != ?z.
"""
    minting = """
rule c: ex:q2(?x, ?z) :- ex:e0(?x, ?y), ?z = ?y + 1.
rule d: ex:q2(?x, ?z) :- ex:q2(?x, ?y), ex:e0(?y, ?z).
"""
    fs = [("e0", (i, (i + 1) % 9), Interval()) for i in range(9)] + [("e2", (4,), Interval())]
    seen = []
    real = _variants._threaded
    monkeypatch.setattr(_variants, "_threaded", lambda ev, out, todo: seen.append(len(todo)) or real(ev, out, todo))
    for record in (False, True):
        seen.clear()
        two, one = _threads_and_one(monkeypatch, threaded, fs, record, None)
        assert _observed(two) == _observed(one)
        assert len(two.rows(EX + "q0")) == 36  # the path 4 -> 5 -> .. -> 3 (e0(3, 4) is cut): 9 * 8 / 2 pairs
        assert len(seen) >= 3 and all(n == 2 for n in seen)  # each later iteration: b's two variants
        seen.clear()
        two, one = _threads_and_one(monkeypatch, minting, fs, record, None)
        assert _observed(two) == _observed(one) and len(two.rows(EX + "q2")) > 9
        assert not seen


_FORK_TEXT = """
rule a: ex:q0(?x, ?y) :- ex:e0(?x, ?y).
rule b: ex:q0(?x, ?z) :- ex:q0(?x, ?y), ex:q0(?y, ?z).
"""


def _threaded_rows():
    fs = [("e0", (i, (i + 1) % 7), Interval()) for i in range(7)]
    return closure(rules(_FORK_TEXT), database(fs)).rows(EX + "q0")


def test_a_forked_child_runs_threaded_iterations(monkeypatch):
    """A child forked after the parent's worker pool started makes its own (the parent's threads
    are not in it): the same rows, no hang."""
    import multiprocessing

    monkeypatch.setattr(_rowwise, "ROWWISE", False)
    monkeypatch.setattr(_variants, "MIN_ROWS", 0)
    monkeypatch.setattr(_variants, "THREADS", 2)
    parent = _threaded_rows()
    assert _variants._pool is not None and len(parent) == 49
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_threaded_rows).get(timeout=120) == parent


def test_a_variant_with_an_atom_no_row_matches_is_answered_without_joining(plain):
    """t(x, z) :- t(x, y), t(y, ex:none): ex:none is a known term but no row has it second.  The
    semi-naive variant starting from t(x, y) joins all 300 rows before the other atom finds
    nothing; answered empty up front, no join reaches the intermediate-row cap."""
    prog = rules("rule t: ex:t(?x, ?z) :- ex:t(?x, ?y), ex:t(?y, ex:none), ex:u(?z).")
    db = Database()
    for i in range(300):
        db.add(EX + "t", (Literal.of(i), Literal.of(i + 1)))
    db.add(EX + "t", (IRI(EX + "none"), Literal.of(0)))  # ex:none known, but only in the first column
    db.add(EX + "u", (Literal.of(7),))
    limits = Limits(max_edges=100)
    pruned = closure(prog, db, limits=limits)
    assert not pruned.truncated
    assert len(list(pruned.relation(EX + "t"))) == 301
    full = plain(lambda: closure(prog, db, limits=limits))
    assert full.truncated and full.limit_hit == "max_edges"
