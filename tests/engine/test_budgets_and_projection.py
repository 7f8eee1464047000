"""Budgets never crash, and dead variables never blow a join up.

Regression: Soufflé's ``existential`` case (an 11-atom body of ``_`` arguments) was joined as a
cartesian product and died with MemoryError; variables no later step needs are now projected out.
"""

from holokb.core import AssertedRef, LimitHit, Limits
from holokb.engine import Database, ask, body, closure
from holokb.engine import rowloop as _rowloop
from holokb.engine.rowloop import FusedLoop
from holokb.engine.rowwise import RowIteration

from lang import EX, facts, iri, query, rules


def _unary_db(names, n):
    db = Database()
    for name in names:
        for i in range(n):
            db.add(EX + name, (iri(f"{name}{i}"),))
    return db


def test_wildcard_atoms_are_projected_not_multiplied():
    # Without projection this body is 300^7 ≈ 2·10^17 rows; with it, each wildcard atom is a
    # semi-join that leaves one row per ?x.
    names = [f"r{k}" for k in range(6)]
    db = _unary_db(["i"] + names, 300)
    text = ", ".join(["ex:i(?x)"] + [f"ex:{n}(?_)" for n in names])
    m = closure(rules(f"rule q: ex:q(?x) :- {text}."), db)
    assert not m.truncated
    assert m.relation(EX + "q") == tuple((iri(f"i{i}"),) for i in sorted(range(300), key=str))


def test_named_dead_variables_are_projected_too():
    names = [f"r{k}" for k in range(6)]
    db = _unary_db(["i"] + names, 300)
    text = ", ".join(["ex:i(?x)"] + [f"ex:{n}(?y{k})" for k, n in enumerate(names)])
    m = closure(rules(f"rule q: ex:q(?x) :- {text}."), db)
    assert not m.truncated and len(m.relation(EX + "q")) == 300


def test_wildcards_with_proofs_are_semi_joins_too(monkeypatch):
    # With proofs the rows a wildcard leaves equal are merged as well (the first kept, with its
    # premise rows): the 100^4 product is never built, and each proof names the first match.
    monkeypatch.setattr(body, "MAX_INTERMEDIATE_ROWS", 50_000)
    db = _unary_db(["i", "r0", "r1", "r2"], 100)
    prog = rules("rule q: ex:q(?x) :- ex:i(?x), ex:r0(?_), ex:r1(?_), ex:r2(?_).")
    m = closure(prog, db, record_proofs=True)
    assert not m.truncated and len(m.relation(EX + "q")) == 100
    assert {tuple(r.tolist()) for r in m.proofs.rules[0].premise_rows[1:]} == {(0,) * 100}


def test_wildcards_with_proofs_unmerged_truncate_instead_of_crashing(monkeypatch):
    # Without the merge every premise row is kept, so the product is real: the cap must stop it.
    monkeypatch.setattr(body, "MAX_INTERMEDIATE_ROWS", 50_000)
    monkeypatch.setattr(body.BodySolver, "merge_proofs", False)
    db = _unary_db(["i", "r0", "r1", "r2"], 100)
    m = closure(rules("rule q: ex:q(?x) :- ex:i(?x), ex:r0(?_), ex:r1(?_), ex:r2(?_)."), db, record_proofs=True)
    assert m.truncated and m.limit_hit is LimitHit.MAX_INTERMEDIATE
    assert m.relation(EX + "q") == ()


def test_intermediate_cap_from_max_edges():
    db = _unary_db(["r"], 300)  # r×r×r would be 27M rows
    prog = rules("""
        rule small: ex:s(?x) :- ex:r(?x).
        rule cube: ex:c(?x, ?y, ?z) :- ex:s(?x), ex:s(?y), ex:s(?z).
    """)
    m = closure(prog, db, limits=Limits(max_edges=10_000))
    assert m.truncated and m.limit_hit is LimitHit.MAX_EDGES
    assert len(m.relation(EX + "s")) == 300  # the stratum before the blow-up is complete
    assert m.relation(EX + "c") == ()
    assert len(m.derived()) == 300


def test_safety_cap_without_limits(monkeypatch):
    monkeypatch.setattr(body, "MAX_INTERMEDIATE_ROWS", 10_000)
    db = _unary_db(["r"], 300)
    prog = rules("rule cube: ex:c(?x, ?y) :- ex:r(?x), ex:r(?y).")
    m = closure(prog, db)
    assert m.truncated and m.limit_hit is LimitHit.MAX_INTERMEDIATE
    small = closure(prog, _unary_db(["r"], 90))  # 8,100 pairs fit under the same cap
    assert not small.truncated and len(small.relation(EX + "c")) == 8100


def test_memory_error_becomes_truncated(monkeypatch):
    real = body.join
    calls = {"n": 0}

    def failing(*args, **kw):
        calls["n"] += 1
        if calls["n"] > 3:
            raise MemoryError("simulated")
        return real(*args, **kw)

    monkeypatch.setattr(body, "join", failing)
    real_rows = RowIteration._join

    def failing_rows(*args, **kw):  # the row-at-a-time path's join (small deltas) fails the same way
        calls["n"] += 1
        if calls["n"] > 3:
            raise MemoryError("simulated")
        return real_rows(*args, **kw)

    monkeypatch.setattr(RowIteration, "_join", failing_rows)
    real_loop = FusedLoop._loop

    def failing_loop(*args, **kw):  # the fused loop fails after storing its rows in its lists
        loop = real_loop(*args, **kw)

        def run(*a):
            loop(*a)  # (the chain's fused part runs in one call: it fails at its end)
            raise MemoryError("simulated")
        return run

    monkeypatch.setattr(FusedLoop, "_loop", failing_loop)
    monkeypatch.setattr(_rowloop, "FUSE_AFTER", 0)  # a 10-step chain: fused from its first small delta
    db = Database()
    for i in range(10):
        db.add(EX + "e", (iri(f"n{i}"), iri(f"n{i + 1}")))
    prog = rules("""
        rule base: ex:p(?x, ?y) :- ex:e(?x, ?y).
        rule step: ex:p(?x, ?z) :- ex:p(?x, ?y), ex:e(?y, ?z).
    """)
    m = closure(prog, db, record_proofs=True)
    assert m.truncated and m.limit_hit is LimitHit.MEMORY
    derived = m.derived()  # what was appended before the failure is whole and readable
    assert 10 <= len(derived) < 55
    assert all(len(d.args) == 2 for d in derived)
    fact = derived[-1]
    assert m.explain(fact.predicate, fact.args) is not None


def test_query_past_the_cap_is_truncated_not_raised():
    db = _unary_db(["r"], 300)
    q = query("ex:r(?x), ex:r(?y), ex:r(?z)")
    copy = rules("rule copy: ex:s(?x) :- ex:r(?x).")
    m = closure(copy, db, limits=Limits(max_edges=1000))
    page = m.query_page(q)
    assert page.truncated and page.limit_hit is LimitHit.MAX_EDGES and page.items == ()
    ans = ask(copy, db, q, limits=Limits(max_edges=1000))
    assert ans.truncated and ans.limit_hit is LimitHit.MAX_EDGES


def test_query_keeps_its_variables_and_drops_the_rest():
    db = Database()
    for i in range(50):
        db.add(EX + "p", (iri(f"a{i % 5}"), iri(f"b{i}")))
    q = query("ex:p(?x, ?_)")
    m = closure(rules(""), db)
    assert m.query(q) == tuple((iri(f"a{i}"),) for i in range(5))


def test_proof_bindings_name_variables_whose_columns_were_dropped():
    db = Database()
    db.add(EX + "uses", (iri("ide"), iri("ploinky")), key=AssertedRef("f1"))
    db.add(EX + "provides", (iri("ploinky"), iri("sandbox")), key=AssertedRef("f2"))
    facts("ex:size(ex:ploinky, 3).", db)
    prog = rules("rule cap: ex:cap(?x, ?z) :- ex:uses(?x, ?y), ex:provides(?y, ?z), ex:size(?y, ?n), "
                 "?m = ?n + 1, ?m > 2.")
    m = closure(prog, db, record_proofs=True)
    node = m.explain(EX + "cap", (iri("ide"), iri("sandbox")))
    names = dict(node.bindings)
    assert set(names) == {"x", "y", "z", "n", "m"}
    assert names["y"] == iri("ploinky") and names["m"].value == 4
    step = m.proof_steps()[0]
    assert dict(step.bindings) == names
    assert step.premises == (AssertedRef("f1"), AssertedRef("f2"), None)


def test_violation_bindings_keep_every_named_variable():
    db = facts("ex:locatedIn(ex:a, ex:p). ex:locatedIn(ex:a, ex:q). ex:region(ex:p, ex:eu).")
    c = rules("constraint two: false :- ex:locatedIn(?x, ?l), ex:locatedIn(?x, ?k), ex:region(?l, ?r), ?l != ?k.")
    m = closure(c, db)
    assert [dict(v.bindings) for v in m.violations] == [
        {"x": iri("a"), "l": iri("p"), "k": iri("q"), "r": iri("eu")}]


def test_projection_merges_duplicates_but_keeps_depth_and_validity():
    # Many ?y lead to the same ?x: the merged rows must still carry the least depth and every
    # distinct validity interval (the fact holds from 0, not only from 100).
    from holokb.core.time import Interval

    db = Database()
    for i in range(20):
        db.add(EX + "e", (iri("x"), iri(f"y{i}")), valid=Interval(0 if i % 2 else 100, None))
    prog = rules("rule any: ex:has(?x) :- ex:e(?x, ?y), ex:e(?x, ?_).")
    m = closure(prog, db)
    assert m.rows(EX + "has") == (((iri("x"),), Interval(0, None)),)
    assert {d.depth for d in m.derived()} == {1}
    assert closure(prog, db, valid_at=50).contains(EX + "has", (iri("x"),))
    assert not closure(prog, db, valid_at=-1).contains(EX + "has", (iri("x"),))


def test_a_started_deadline_is_shared_by_every_stage():
    import time

    from holokb.core import Deadline

    limits = Limits(timeout_s=0.4).started()
    time.sleep(0.25)  # a stage before the closure used most of the budget...
    succ = rules("rule succ: ex:num(?y) :- ex:num(?x), ?y = ?x + 1.")
    t0 = time.monotonic()
    m = closure(succ, facts("ex:num(0)."), limits=limits)
    assert m.truncated and m.limit_hit is LimitHit.TIMEOUT
    assert time.monotonic() - t0 < 0.35  # ...so the closure stops at the shared end, not 0.4 s later
    assert Deadline.at(time.monotonic() - 1).expired() and Limits(timeout_s=None).started().ends_at is None


def test_decoding_stops_at_the_deadline_and_says_how_far_it_got():
    from holokb.core import Deadline

    m = closure(rules("rule copy: ex:q(?x) :- ex:r(?x)."), _unary_db(["r"], 3000), record_proofs=True)
    assert m.derived_count() == 3000 and len(m.derived(limit=5)) == 5
    expired = Deadline.at(0.0)
    assert m.derived(deadline=expired) == () and m.proof_steps(deadline=expired) == ()
    assert len(m.derived()) == 3000
