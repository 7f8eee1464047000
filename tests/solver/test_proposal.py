"""FormalProposal gates, deterministic emission, and fuzzing of the emission boundary."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.solver.proposal import Signature, SymbolRegistry, gate_proposal
from holokb.solver.proposal_schema import load_json_schema
from holokb.solver.proposal_solve import solve_proposal
from holokb.solver.smtlib import split_commands


def v(name):
    return {"op": "var", "name": name}


def c(name):
    return {"op": "const", "name": name}


def call(sym, *args):
    return {"op": "call", "symbol": sym, "args": list(args)}


BASE = {
    "schemaVersion": "holoproof.formal-proposal.v1",
    "proposalId": "fp_000123",
    "worldId": "world_main",
    "source": {"sourceId": "doc_contract_12", "span": {"start": 120, "end": 264}, "createdAt": "2026-02-11T12:00:00Z"},
    "declarations": [
        {"kind": "sort", "name": "Person"},
        {"kind": "predicate", "name": "eligible", "argSorts": ["Person"], "resultSort": "Bool"},
        {"kind": "predicate", "name": "student", "argSorts": ["Person"]},
        {"kind": "const", "name": "Ana", "resultSort": "Person"},
    ],
    "assertions": [
        {"assertionId": "ax_1", "role": "axiom", "expr": {
            "op": "forall", "vars": [{"name": "x", "sort": "Person"}],
            "body": {"op": "=>", "args": [call("student", v("x")), call("eligible", v("x"))]}}},
        {"assertionId": "ax_2", "role": "fact", "expr": call("student", c("Ana"))},
    ],
    "queryPlan": {"verificationMode": "entailment", "goal": call("eligible", c("Ana"))},
    "ambiguities": [],
    "tags": ["policy"],
}


def mutate(path, value):
    p = copy.deepcopy(BASE)
    node = p
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return p


def test_valid_proposal_emits_sorted_declarations_and_named_assertions():
    g = gate_proposal(BASE)
    assert g.status == "validated" and g.gate is None
    assert g.smtlib.splitlines() == [
        "(declare-sort Person 0)",
        "(declare-const Ana Person)",
        "(declare-fun eligible (Person) Bool)",
        "(declare-fun student (Person) Bool)",
        "(assert (! (forall ((x Person)) (=> (student x) (eligible x))) :named ax_1))",
        "(assert (! (student Ana) :named ax_2))",
    ]


def test_emission_is_byte_identical_and_independent_of_declaration_order():
    shuffled = copy.deepcopy(BASE)
    shuffled["declarations"].reverse()
    assert gate_proposal(BASE).smtlib == gate_proposal(json.dumps(BASE)).smtlib == gate_proposal(shuffled).smtlib


def test_entailment_on_both_backends(backend_name):
    r = solve_proposal(BASE, backend=backend_name)
    assert r.verdict == "entailed" and r.core == ("ax_1", "ax_2")
    neg = mutate(["queryPlan", "goal"], {"op": "not", "args": [call("eligible", c("Ana"))]})
    assert solve_proposal(neg, backend=backend_name).verdict == "refuted"
    model = mutate(["queryPlan"], {"verificationMode": "model", "goal": call("eligible", c("Ana"))})
    assert solve_proposal(model, backend=backend_name).verdict == "found"


@pytest.mark.parametrize("path,value,code", [
    (["schemaVersion"], "v0", "HK401"),
    (["assertions", 0, "expr", "op"], "lambda", "HK405"),
    (["declarations", 1, "name"], "set-option", "HK402"),
    (["declarations", 1, "name"], "exit", "HK403"),
    (["declarations", 1, "name"], "declare_fun", "HK403"),
    (["declarations", 1, "name"], "hp_internal_x", "HK403"),
    (["declarations", 1, "name"], "assert", "HK403"),
    (["declarations", 1, "name"], "push", "HK403"),
    (["declarations", 1, "name"], "check_sat", "HK403"),
    (["declarations", 1, "name"], "a) (exit", "HK402"),
    (["assertions", 1, "expr", "args"], [], "HK406"),
    (["assertions", 1, "assertionId"], "ax 2", "HK402"),
    (["queryPlan", "goal"], {"op": "=>", "args": [call("student", c("Ana"))]}, "HK406"),
])
def test_schema_gate_refuses_with_a_coded_diagnostic(path, value, code):
    g = gate_proposal(mutate(path, value))
    assert g.status == "proposed" and g.gate == "schema" and g.smtlib is None
    assert code in {d.code for d in g.diagnostics}


def test_schema_gate_collects_every_problem():
    p = mutate(["declarations", 1, "name"], "exit")
    p["assertions"][1]["expr"]["op"] = "eval"
    assert len(gate_proposal(p).diagnostics) == 2


def test_registry_gate_conflicts_and_undeclared_symbols():
    reg = SymbolRegistry({"eligible": Signature("predicate", ("Int",), "Bool")})
    g = gate_proposal(BASE, registry=reg)
    assert g.status == "contested" and g.gate == "registry" and "HK411" in {d.code for d in g.diagnostics}
    undeclared = mutate(["assertions", 1, "expr"], call("Student", c("Ana")))
    g = gate_proposal(undeclared)
    assert g.status == "contested" and "did you mean 'student'?" in [d.hint for d in g.diagnostics]
    ill_sorted = mutate(["assertions", 1, "expr"], call("student", {"op": "int", "value": 3}))
    assert gate_proposal(ill_sorted).gate == "registry"
    free_var = mutate(["assertions", 1, "expr"], call("student", v("y")))
    assert gate_proposal(free_var).gate == "registry"
    not_bool = mutate(["assertions", 1, "expr"], c("Ana"))
    assert gate_proposal(not_bool).gate == "registry"


def test_registry_symbols_are_reused_and_declared_in_the_emission():
    reg = SymbolRegistry({"Person": Signature("sort", (), ""), "student": Signature("predicate", ("Person",))})
    p = copy.deepcopy(BASE)
    p["declarations"] = [d for d in p["declarations"] if d["name"] not in ("Person", "student")]
    g = gate_proposal(p, registry=reg)
    assert g.ok and "(declare-fun student (Person) Bool)" in g.smtlib and "(declare-sort Person 0)" in g.smtlib
    assert gate_proposal(BASE, registry=reg).ok  # identical re-declaration is reuse, not a conflict


def test_failed_proposal_never_reaches_a_solver():
    class Exploding:
        name = "boom"

        def context(self, **_):
            raise AssertionError("solver reached")

    r = solve_proposal(mutate(["declarations", 1, "name"], "exit"), backend=Exploding())
    assert r.status == "proposed" and r.verdict is None


def test_shipped_json_schema_agrees_with_the_gate():
    jsonschema = pytest.importorskip("jsonschema")
    schema = load_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    val = jsonschema.Draft202012Validator(schema)
    assert not list(val.iter_errors(BASE))
    for bad in (mutate(["assertions", 0, "expr", "op"], "lambda"), mutate(["declarations", 1, "name"], "a b"),
                mutate(["schemaVersion"], "v0")):
        assert list(val.iter_errors(bad)) and gate_proposal(bad).status == "proposed"


_ALLOWED = {"declare-sort", "declare-const", "declare-fun", "assert"}
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=20,
)
names = st.one_of(st.text(max_size=15), st.sampled_from(["exit", "x)(exit", "a|b", "(check-sat)", "x", "y",
                                                           "set-option", "|q|", "\"s\"", "; c", "ok_name"]))


def _expr_strategy():
    leaf = st.one_of(st.builds(lambda n: {"op": "const", "name": n}, names),
                     st.builds(lambda n: {"op": "var", "name": n}, names),
                     st.builds(lambda i: {"op": "int", "value": i}, st.integers()),
                     json_values)
    ops = st.sampled_from(["and", "or", "not", "=>", "=", "<", "+", "call", "forall", "exit", "assert"])

    def node(kids):
        return st.one_of(
            st.builds(lambda o, a: {"op": o, "args": a}, ops, st.lists(kids, max_size=3)),
            st.builds(lambda s, a: {"op": "call", "symbol": s, "args": a}, names, st.lists(kids, min_size=1, max_size=2)),
            st.builds(lambda n, s, b: {"op": "exists", "vars": [{"name": n, "sort": s}], "body": b},
                      names, st.sampled_from(["Int", "Bool", "S"]), kids))
    return st.recursive(leaf, node, max_leaves=12)


def _proposal_strategy():
    decl = st.builds(lambda k, n, a, r: {"kind": k, "name": n, "argSorts": a, "resultSort": r},
                     st.sampled_from(["const", "function", "predicate", "sort", "macro"]), names,
                     st.lists(st.sampled_from(["Int", "Bool", "S", "x)(exit"]), max_size=2),
                     st.sampled_from(["Int", "Bool", "S", "(exit)"]))
    return st.builds(
        lambda ds, es, ids: {"schemaVersion": "holoproof.formal-proposal.v1", "proposalId": "fp",
                             "declarations": ds + [{"kind": "sort", "name": "S"}],
                             "assertions": [{"assertionId": i, "expr": e} for i, e in zip(ids, es)]},
        st.lists(decl, max_size=4), st.lists(_expr_strategy(), max_size=3), st.lists(names, min_size=3, max_size=3))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_proposal_strategy(), json_values, st.text(max_size=40)))
def test_fuzz_no_extra_smt_command_ever(p):
    g = gate_proposal(p)
    if g.status != "validated":
        assert g.smtlib is None
        return
    cmds = split_commands(g.smtlib)
    assert {c.head for c in cmds} <= _ALLOWED
    n_asserts = len(p["assertions"])
    assert sum(c.head == "assert" for c in cmds) == n_asserts
    assert len(cmds) - n_asserts <= len(p["declarations"])
    assert gate_proposal(p).smtlib == g.smtlib
