"""QueryPlan JSON: the DS005 plans parse, round-trip, match the shipped schema; bad plans are coded."""
from __future__ import annotations

import json
from importlib import resources

import pytest
from hypothesis import given, settings, strategies as st

from holokb.analysis import Const, Var
from holokb.answer import (
    AnswerForm, Check, Name, Param, Pattern, PlanError, QueryPlan, Compare, TimeKind, TimeRef, TimeUnit, World, YesWhen,
)
from holokb.core import IRI, Literal, parse_instant

# DS005 §6.3, with the built-in comparison written out (the "session valid?" question).
WORKED = {
    "version": "v2.0",
    "subjects": ["session_token"],
    "predicates": ["expires_after"],
    "goal": {"subject": "session_token", "predicate": "expires_after", "object": "?duration"},
    "params": {"inactivityMinutes": 20},
    "check": {"tests": [{"left": {"param": "inactivityMinutes", "unit": "minutes"}, "op": ">", "right": "?duration"}],
              "derives": {"subject": "session_token", "predicate": "session_expired", "object": True},
              "yesWhen": "fails"},
    "question": "If a user is inactive for 20 minutes in v2.0, is their session valid?",
}


def schema():
    jsonschema = pytest.importorskip("jsonschema")
    text = resources.files("holokb.answer").joinpath("plan.schema.json").read_text(encoding="utf-8")
    s = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


def codes(err: PlanError) -> list[str]:
    return [d.code for d in err.diagnostics]


def test_worked_example_plan_reads_into_typed_fields():
    p = QueryPlan.from_json(json.dumps(WORKED))
    assert p.version == "v2.0"
    assert p.subjects == (Name("session_token"),)
    assert p.goal == Pattern(Name("expires_after"), Name("session_token"), Var("duration"))
    assert p.param("inactivityMinutes") == Literal.of(20)
    assert p.param("absent") is None
    assert p.check == Check((Compare(Param("inactivityMinutes", TimeUnit.MINUTES), ">", Var("duration")),),
                            Pattern(Name("session_expired"), Name("session_token"), Const(Literal.of(True))),
                            YesWhen.FAILS)
    assert p.answer_form is AnswerForm.YES_NO
    assert p.question == WORKED["question"]


def test_round_trip_is_canonical_and_schema_valid():
    p = QueryPlan.from_json(WORKED)
    out = p.to_json()
    assert QueryPlan.from_json(out) == p
    assert json.dumps(QueryPlan.from_json(json.dumps(out)).to_json()) == json.dumps(out)
    schema().validate(out)
    schema().validate(WORKED)


def test_default_form_follows_the_goal():
    assert QueryPlan(goal=Pattern(Name("red"), Name("bear"), Const(Literal.of(True)))).answer_form is AnswerForm.YES_NO
    assert QueryPlan(goal=Pattern(Name("is in"), Name("John"), Var("where"))).answer_form is AnswerForm.VALUE
    assert QueryPlan(goal=Pattern(Name("carries"), Name("Daniel"), Var("x")), form=AnswerForm.COUNT).answer_form \
        is AnswerForm.COUNT


def test_terms_in_every_written_form():
    p = QueryPlan.from_json({"goal": {
        "subject": "<http://example.org/a>", "predicate": "ex:p",
        "object": {"duration": "PT15M"},
        "qualifiers": {"version": {"value": "v1.0"}, "n": 3, "d": 1.5, "b": False, "t": {"dateTime": "2026-01-01T00:00:00Z"}},
        "polarity": "negate"}})
    g = p.goal
    assert g.subject == Const(IRI("http://example.org/a"))
    assert g.predicate == Name("ex:p")
    assert g.object == Const(Literal("PT15M", "http://www.w3.org/2001/XMLSchema#duration"))
    assert dict(g.qualifiers)["d"].term.value == Literal("1.5", "http://www.w3.org/2001/XMLSchema#decimal").value
    assert g.polarity == "negate"
    assert QueryPlan.from_json(p.to_json()) == p


def test_time_references():
    p = QueryPlan.from_json({"goal": {"subject": "John", "predicate": "is in", "object": "?where"},
                             "time": {"kind": "before", "anchor": {"subject": "John", "predicate": "is in",
                                                                  "object": "kitchen"}}})
    assert p.time == TimeRef(TimeKind.BEFORE, None, Pattern(Name("is in"), Name("John"), Name("kitchen")))
    at = QueryPlan.from_json({"predicates": ["p"], "time": {"kind": "at", "at": "2026-01-01"}})
    assert at.time == TimeRef(TimeKind.AT, parse_instant("2026-01-01"))
    end = QueryPlan.from_json({"predicates": ["p"], "time": {"kind": "end"}, "world": "closed"})
    assert end.time.kind is TimeKind.END and end.world is World.CLOSED
    for p in (at, end):
        assert QueryPlan.from_json(p.to_json()) == p
        schema().validate(p.to_json())


def test_not_json_points_at_line_and_column():
    with pytest.raises(PlanError) as e:
        QueryPlan.from_json('{"predicates": ["p"],\n  "goal": }', source="plan.json")
    d = e.value.diagnostics[0]
    assert d.code == "HK801"
    assert (d.location.file, d.location.line, d.location.column) == ("plan.json", 2, 11)
    assert "plan.json:2:11" in e.value.render()


@pytest.mark.parametrize("data, code, words", [
    ({"predicates": ["p"], "goel": {}}, "HK803", "$.goel"),
    ({"goal": {"subject": "a"}}, "HK804", "'predicate'"),
    ({"goal": {"predicate": "p", "object": "?1x"}}, "HK805", "not a variable name"),
    ({"predicates": "p"}, "HK802", "expected a list"),
    ({"predicates": ["p"], "form": "essay"}, "HK805", "yesNo"),
    ({"predicates": ["p"], "planFormat": 2}, "HK805", "plan format"),
    ({"predicates": ["p"], "time": {"kind": "at"}}, "HK804", "'at'"),
    ({"predicates": ["p"], "time": {"kind": "end", "anchor": {"predicate": "q"}}}, "HK805", "anchor"),
    ({"check": {"tests": []}}, "HK805", "at least one test"),
    ({"check": {"tests": [{"left": "session token", "op": ">", "right": 3}]}}, "HK805", "compares values"),
    ({"predicates": ["p"], "params": {"x": {"duration": "15 minutes"}}}, "HK805", "duration"),
    ({"predicates": ["<not an iri>"]}, "HK805", "IRI"),
    ({}, "HK804", "goal, a check or at least one predicate"),
    ([1, 2], "HK802", "a plan object"),
])
def test_bad_plans_are_coded(data, code, words):
    with pytest.raises(PlanError) as e:
        QueryPlan.from_json(json.dumps(data))
    assert code in codes(e.value)
    assert words in e.value.render()
    if code != "HK801":
        assert not schema().is_valid(data)


def test_every_problem_is_reported_at_once():
    with pytest.raises(PlanError) as e:
        QueryPlan.from_json({"subjects": [1, "?"], "goal": {"predicate": "p", "polarity": "maybe"}, "world": "flat",
                             "extra": 1})
    assert sorted(codes(e.value)) == ["HK803", "HK805", "HK805", "HK805"]


def test_size_and_encoding_limits():
    with pytest.raises(PlanError) as e:
        QueryPlan.from_json('{"predicates": ["' + "x" * 1_000_001 + '"]}')
    assert codes(e.value) == ["HK806"]
    with pytest.raises(PlanError) as e:
        QueryPlan.from_json(b'{"predicates": ["\xff"]}')
    assert codes(e.value) == ["HK801"]
    with pytest.raises(PlanError) as e:
        QueryPlan.from_json("[" * 100_000 + "]" * 100_000)
    assert codes(e.value) in (["HK806"], ["HK802"])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
        st.sampled_from(["goal", "predicate", "subject", "object", "predicates", "subjects", "params", "check",
                         "tests", "left", "op", "right", "time", "kind", "at", "anchor", "form", "world",
                         "version", "param", "unit", "duration", "value", "datatype", "iri", "qualifiers",
                         "polarity", "yesWhen", "derives", "x"]), kids, max_size=5),
    max_leaves=25)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_any_json_gives_a_plan_or_coded_diagnostics(value):
    try:
        text = json.dumps(value)
    except ValueError:
        return
    try:
        p = QueryPlan.from_json(text)
    except PlanError as e:
        assert e.diagnostics and all(d.code.startswith("HK80") for d in e.diagnostics)
        return
    assert QueryPlan.from_json(p.to_json()) == p


def test_conditions_round_trip_and_are_schema_valid():
    """An event question's plan: the asked role plus conditions on the same event variable."""
    data = {"goal": {"subject": "?e", "predicate": "ex:giver", "object": "?who"},
            "conditions": [{"subject": "?e", "predicate": "ex:given", "object": "apple"},
                           {"subject": "?e", "predicate": "ex:recipient", "object": "Fred"}],
            "form": "value"}
    p = QueryPlan.from_json(data)
    assert p.conditions == (Pattern(Name("ex:given"), Var("e"), Name("apple")),
                            Pattern(Name("ex:recipient"), Var("e"), Name("Fred")))
    assert QueryPlan.from_json(p.to_json()) == p
    schema().validate(p.to_json())
    with pytest.raises(PlanError) as e:
        QueryPlan.from_json({**data, "conditions": [{"subject": "?e"}]})
    assert codes(e.value)
