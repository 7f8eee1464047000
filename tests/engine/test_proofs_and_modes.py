"""Proofs (premises, scores, DAG sharing, partial cuts), local closure and goal-directed answers."""
import pytest
from hypothesis import given, settings, strategies as st

from holokb.core import AssertedRef, DerivedRef, LimitHit, Limits
from holokb.engine import Database, ask, closure, local_closure, path_score

from lang import EX, chain, facts, iri, names, query, rules, tc_program


def cap_db():
    db = Database()
    db.add(EX + "uses", (iri("ide"), iri("ploinky")), key=AssertedRef("f1"), confidence=0.9)
    db.add(EX + "provides", (iri("ploinky"), iri("sandbox")), key=AssertedRef("f2"), confidence=0.8)
    return db


CAP = rules("rule tool_to_capability [weight 0.95]: ex:cap(?x, ?z) :- ex:uses(?x, ?y), ex:provides(?y, ?z).")


def test_proof_lists_rule_premises_bindings_and_score():
    m = closure(CAP, cap_db(), record_proofs=True)
    p = m.explain(EX + "cap", (iri("ide"), iri("sandbox")))
    assert p.rule == "tool_to_capability"
    assert [n.key for n in p.premises] == [AssertedRef("f1"), AssertedRef("f2")]
    assert dict(p.bindings)["y"] == iri("ploinky")
    expected = 0.9 * 0.8 * 0.95 * (1 / (1 + 0.25 * 1))
    assert p.score == pytest.approx(expected)
    assert m.score(EX + "cap", (iri("ide"), iri("sandbox")), goal_bonus=2.0) == pytest.approx(2 * expected)
    assert m.derived()[0].score == pytest.approx(expected)


def test_proof_steps_name_derived_premises_by_position():
    m = closure(tc_program(), chain(3), record_proofs=True)
    steps = m.proof_steps()
    facts_ = [s.fact for s in steps]
    assert [names([f.args]) for f in facts_][:1] == [{("n0", "n1")}]
    for s in steps:
        for p in s.premises:
            assert p is None or isinstance(p, DerivedRef)
            if isinstance(p, DerivedRef):
                assert steps[p.seq].fact.depth < s.fact.depth  # a premise is shallower than its conclusion
    long = next(s for s in steps if names([s.fact.args]) == {("n0", "n3")})
    assert long.fact.rule == "step" and isinstance(long.premises[0], DerivedRef) and long.premises[1] is None
    assert names([steps[long.premises[0].seq].fact.args]) == {("n0", "n2")}


def test_proof_is_shortest_by_depth_and_cut_proofs_are_partial():
    db = Database()
    for i in range(5):
        db.add(EX + "edge", (iri(f"n{i}"), iri(f"n{i+1}")), key=AssertedRef(str(i)))
    db.add(EX + "edge", (iri("n0"), iri("n5")), key=AssertedRef("shortcut"))
    m = closure(tc_program(), db, record_proofs=True)
    p = m.explain(EX + "path", (iri("n0"), iri("n5")))
    assert p.rule == "base" and [n.key for n in p.inputs()] == [AssertedRef("shortcut")]
    deep = m.explain(EX + "path", (iri("n1"), iri("n5")))
    assert len([n for n in deep.nodes() if n.rule]) == 4
    cut = m.explain(EX + "path", (iri("n1"), iri("n5")), max_depth=2)
    assert cut.partial and any(n.partial and not n.premises for n in cut.nodes())
    assert not deep.partial


def test_shared_subproofs_form_a_dag():
    db = Database()
    db.add(EX + "p", (iri("a"),), key=AssertedRef("pa"))
    r = rules("""
        rule q: ex:q(?x) :- ex:p(?x).
        rule both: ex:both(?x) :- ex:q(?x), ex:q(?x).
    """)
    m = closure(r, db, record_proofs=True)
    p = m.explain(EX + "both", (iri("a"),))
    assert p.premises[0] is p.premises[1] or p.premises[0].id == p.premises[1].id
    assert len(p.nodes()) == 3  # both, q(a), p(a): the shared q(a) appears once


def test_path_score_formula():
    assert path_score(1.0, 0) == 1.0
    assert path_score(0.5, 4, goal_bonus=1.2, seed_bonus=1.1) == pytest.approx(0.5 / 2 * 1.2 * 1.1)


def test_explain_without_recording_says_so():
    m = closure(CAP, cap_db())
    with pytest.raises(ValueError, match="record_proofs"):
        m.explain(EX + "cap", (iri("ide"), iri("sandbox")))
    assert m.explain(EX + "cap", (iri("nobody"), iri("sandbox"))) is None
    assert m.proofs is None and m.proof_steps()[0].premises == ()


def test_local_closure_expands_only_the_seed_neighbourhood():
    db = chain(10)
    db.add(EX + "edge", (iri("x"), iri("y")))
    m = local_closure(tc_program(), db, (iri("n0"),), hops=2)
    got = names(m.relation(EX + "path"))
    assert got == {("n0", "n1"), ("n1", "n2"), ("n0", "n2")}
    wider = names(local_closure(tc_program(), db, (iri("n0"),), hops=4).relation(EX + "path"))
    assert ("n0", "n4") in wider and ("n0", "n5") not in wider and ("x", "y") not in wider


def test_ask_binds_constants_through_recursion():
    ans = ask(tc_program(), chain(30), query("ex:path(ex:n25, ?y)"))
    assert ans.strategy == "magic"
    assert names(ans.rows) == {(f"n{j}",) for j in range(26, 31)}


def test_ask_with_negation_answers_like_the_closure():
    db = facts("ex:node(ex:a). ex:node(ex:b). ex:node(ex:c). ex:edge(ex:a, ex:b).")
    p = rules("""
        rule has: ex:hasOut(?x) :- ex:edge(?x, ?_).
        rule sink: ex:sink(?x) :- ex:node(?x), not ex:hasOut(?x).
    """)
    ans = ask(p, db, query("ex:sink(?x)", p))
    assert names(ans.rows) == {("b",), ("c",)}
    assert ans.rows == closure(p, db).query(query("ex:sink(?x)", p))


# -- goal-directed == full closure, on random programs ----------------------------------
PREDS = ["p", "q", "r"]


@st.composite
def random_case(draw):
    n = draw(st.integers(3, 5))
    nodes = [f"c{i}" for i in range(n)]
    edb = draw(st.lists(st.tuples(st.sampled_from(["e", "f"]), st.sampled_from(nodes), st.sampled_from(nodes)),
                        min_size=1, max_size=12))
    text = []
    for k in range(draw(st.integers(1, 4))):
        head = draw(st.sampled_from(PREDS))
        body_preds = draw(st.lists(st.sampled_from(PREDS + ["e", "f"]), min_size=1, max_size=2))
        vs = ["?x", "?y", "?z"]
        chain_vars = ["?x"] + [vs[(j + 1) % 3] for j in range(len(body_preds))]
        body = [f"ex:{bp}({chain_vars[j]}, {chain_vars[j + 1]})" for j, bp in enumerate(body_preds)]
        if draw(st.booleans()):
            body.append(f"?x != {chain_vars[-1]}")
        text.append(f"rule r{k}: ex:{head}(?x, {chain_vars[-1]}) :- {', '.join(body)}.")
    goal_pred = draw(st.sampled_from(PREDS))
    const = draw(st.sampled_from(nodes))
    return edb, "\n".join(text), goal_pred, const


@settings(max_examples=40, deadline=None)
@given(random_case())
def test_ask_equals_full_closure(case):
    edb, text, goal_pred, const = case
    db = Database()
    for p, s, o in edb:
        db.add(EX + p, (iri(s), iri(o)))
    prog = rules(text)
    for q in (query(f"ex:{goal_pred}(ex:{const}, ?y)"), query(f"ex:{goal_pred}(?x, ?y)")):
        full = closure(prog, db).query(q)
        goal = ask(prog, db, q)
        assert goal.rows == full


def test_ask_respects_limits():
    ans = ask(tc_program(), chain(50), query("ex:path(ex:n0, ?y)"), limits=Limits(max_derived=10))
    assert ans.truncated and ans.limit_hit is LimitHit.MAX_DERIVED


# -- with negation and aggregates: goal-directed == full, local ⊆ full -------------------
from hypothesis import HealthCheck  # noqa: E402

from stratified_programs import DOMAIN, IDB, database, programs, temporal_facts, value  # noqa: E402


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), temporal_facts(), st.integers(0, DOMAIN - 1), st.sampled_from([None, 5, 25]))
def test_ask_equals_full_closure_with_negation_aggregates_and_time(text, edb, const, at):
    prog = rules(text)
    db = database(edb)
    for p, n in IDB:
        args = ["?a", "?b"][:n]
        for q in (query(f"ex:{p}({', '.join(args)})", prog), query(f"ex:{p}({', '.join([str(const)] + args[1:])})", prog)):
            full = closure(prog, db, valid_at=at).query(q)
            goal = ask(prog, db, q, valid_at=at)
            assert goal.rows == full, (text, q)


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), temporal_facts(), st.integers(0, DOMAIN - 1), st.integers(1, 3))
def test_local_closure_never_derives_what_the_full_closure_does_not(text, edb, seed, hops):
    prog = rules(text)
    db = database(edb, iris=True)
    full = closure(prog, db)
    local = local_closure(prog, db, (value(seed, True),), hops=hops)
    everything = local_closure(prog, db, tuple(value(v, True) for v in range(DOMAIN)), hops=1)
    for p, _ in IDB:
        assert set(local.rows(EX + p)) <= set(full.rows(EX + p)) or _covered(local, full, p), text
        assert everything.rows(EX + p) == full.rows(EX + p), text
    assert {d.predicate for d in local.derived()} <= {EX + p for p, _ in IDB}


def _covered(local, full, p) -> bool:
    """Every (args, interval) of ``local`` lies inside an interval of the same args in ``full``."""
    got = {}
    for args, iv in full.rows(EX + p):
        got.setdefault(args, []).append(iv)
    for args, iv in local.rows(EX + p):
        end = iv.end if iv.end is not None else float("inf")
        if not any(f.start <= iv.start and (f.end is None or end <= f.end) for f in got.get(args, [])):
            return False
    return True
