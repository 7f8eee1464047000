"""Proofs (premises, scores, DAG sharing, partial cuts), local closure and goal-directed answers."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from holokb.core import Limits
from holokb.engine import Database, ask, closure, local_closure, path_score

from ir import EX, a, cmp, iri, names, neg, program, query, rule, tc_program


def cap_db():
    db = Database()
    db.add(EX + "uses", (iri("ide"), iri("ploinky")), key="f1", confidence=0.9)
    db.add(EX + "provides", (iri("ploinky"), iri("sandbox")), key="f2", confidence=0.8)
    return db


CAP = program(rule("tool_to_capability", a("cap", "?x", "?z"), a("uses", "?x", "?y"), a("provides", "?y", "?z"),
                   weight=0.95))


def test_proof_lists_rule_premises_bindings_and_score():
    m = closure(CAP, cap_db(), record_proofs=True)
    p = m.explain(EX + "cap", (iri("ide"), iri("sandbox")))
    assert p.rule == "tool_to_capability"
    assert [n.key for n in p.premises] == ["f1", "f2"]
    assert dict(p.bindings)["y"] == iri("ploinky")
    expected = 0.9 * 0.8 * 0.95 * (1 / (1 + 0.25 * 1))
    assert p.score == pytest.approx(expected)
    assert m.score(EX + "cap", (iri("ide"), iri("sandbox")), goal_bonus=2.0) == pytest.approx(2 * expected)
    assert m.derived()[0].score == pytest.approx(expected)


def test_proof_is_shortest_by_depth_and_cut_proofs_are_partial():
    db = Database()
    for i in range(5):
        db.add(EX + "edge", (iri(f"n{i}"), iri(f"n{i+1}")), key=i)
    db.add(EX + "edge", (iri("n0"), iri("n5")), key="shortcut")
    m = closure(tc_program(), db, record_proofs=True)
    p = m.explain(EX + "path", (iri("n0"), iri("n5")))
    assert p.rule == "base" and [n.key for n in p.inputs()] == ["shortcut"]
    deep = m.explain(EX + "path", (iri("n1"), iri("n5")))
    assert len([n for n in deep.nodes() if n.rule]) == 4
    cut = m.explain(EX + "path", (iri("n1"), iri("n5")), max_depth=2)
    assert cut.partial and any(n.partial and not n.premises for n in cut.nodes())
    assert not deep.partial


def test_shared_subproofs_form_a_dag():
    db = Database()
    db.add(EX + "p", (iri("a"),), key="pa")
    r = program(
        rule("q", a("q", "?x"), a("p", "?x")),
        rule("both", a("both", "?x"), a("q", "?x"), a("q", "?x")),
    )
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


def test_local_closure_expands_only_the_seed_neighbourhood():
    db = Database()
    for i in range(10):
        db.add(EX + "edge", (iri(f"n{i}"), iri(f"n{i+1}")))
    db.add(EX + "edge", (iri("x"), iri("y")))
    m = local_closure(tc_program(), db, (iri("n0"),), hops=2)
    got = names(m.relation(EX + "path"))
    assert got == {("n0", "n1"), ("n1", "n2"), ("n0", "n2")}
    wider = names(local_closure(tc_program(), db, (iri("n0"),), hops=4).relation(EX + "path"))
    assert ("n0", "n4") in wider and ("n0", "n5") not in wider and ("x", "y") not in wider


def test_ask_binds_constants_through_recursion():
    db = Database()
    for i in range(30):
        db.add(EX + "edge", (iri(f"n{i}"), iri(f"n{i+1}")))
    ans = ask(tc_program(), db, query(a("path", "n25", "?y")))
    assert ans.strategy == "magic"
    assert names(ans.rows) == {(f"n{j}",) for j in range(26, 31)}


def test_ask_falls_back_to_the_cone_with_negation():
    db = Database()
    for n in "abc":
        db.add(EX + "node", (iri(n),))
    db.add(EX + "edge", (iri("a"), iri("b")))
    p = program(rule("has", a("hasOut", "?x"), a("edge", "?x", "?_y")),
                rule("sink", a("sink", "?x"), a("node", "?x"), neg("hasOut", "?x")))
    ans = ask(p, db, query(a("sink", "?x")))
    assert ans.strategy == "cone" and names(ans.rows) == {("b",), ("c",)}


# -- goal-directed == full closure, on random programs ----------------------------------
PREDS = ["p", "q", "r"]


@st.composite
def random_case(draw):
    n = draw(st.integers(3, 5))
    nodes = [f"c{i}" for i in range(n)]
    facts = draw(st.lists(st.tuples(st.sampled_from(["e", "f"]), st.sampled_from(nodes), st.sampled_from(nodes)),
                          min_size=1, max_size=12))
    rules = []
    for k in range(draw(st.integers(1, 4))):
        head = draw(st.sampled_from(PREDS))
        body_preds = draw(st.lists(st.sampled_from(PREDS + ["e", "f"]), min_size=1, max_size=2))
        vs = ["?x", "?y", "?z"]
        body = []
        chain_vars = ["?x"] + [vs[(j + 1) % 3] for j in range(len(body_preds))]
        for j, bp in enumerate(body_preds):
            body.append(a(bp, chain_vars[j], chain_vars[j + 1]))
        if draw(st.booleans()):
            body.append(cmp("!=", "?x", chain_vars[-1]))
        rules.append(rule(f"r{k}", a(head, "?x", chain_vars[-1]), *body))
    goal_pred = draw(st.sampled_from(PREDS))
    const = draw(st.sampled_from(nodes))
    return facts, rules, goal_pred, const


@settings(max_examples=40, deadline=None)
@given(random_case())
def test_ask_equals_full_closure(case):
    facts, rules, goal_pred, const = case
    db = Database()
    for p, s, o in facts:
        db.add(EX + p, (iri(s), iri(o)))
    prog = program(*rules)
    for q in (query(a(goal_pred, const, "?y")), query(a(goal_pred, "?x", "?y"))):
        full = closure(prog, db).query(q)
        goal = ask(prog, db, q)
        assert goal.rows == full


def test_ask_respects_limits():
    db = Database()
    for i in range(50):
        db.add(EX + "edge", (iri(f"n{i}"), iri(f"n{i+1}")))
    ans = ask(tc_program(), db, query(a("path", "n0", "?y")), limits=Limits(max_derived=10))
    assert ans.truncated and ans.limit_hit == "max_derived"
