"""Parser: terms, literals, anonymous variables, includes, positions, syntax diagnostics."""
from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.syntax.ast import Aggregate, BinOp, Comparison, Const, Negation, Var
from holokb.core.errors import RuleAnalysisError, RuleSyntaxError
from holokb.core.terms import IRI, XSD_DATETIME, XSD_DECIMAL, XSD_DOUBLE, XSD_DURATION, XSD_INTEGER, Literal
from holokb.core.time import Duration
from holokb.syntax import SYNTAX_ERRORS, describe_expected, parse_file, parse_rules

EX = "http://example.org/"
P = "@prefix ex: <http://example.org/> .\n"


def fact_args(text: str):
    return parse_rules(P + text).facts[0].args


@pytest.mark.parametrize("src, expected", [
    ("42", Literal("42", XSD_INTEGER)),
    ("-7", Literal("-7", XSD_INTEGER)),
    ("4.25", Literal("4.25", XSD_DECIMAL)),
    ("1.5e3", Literal("1.5e3", XSD_DOUBLE)),
    ("true", Literal("true", "http://www.w3.org/2001/XMLSchema#boolean")),
    ('"a\\"b\\n\\u00e9"', Literal('a"b\né')),
    ('"chat"@FR', Literal("chat", lang="fr")),
    ('"PT15M"^^xsd:duration', Literal("PT15M", XSD_DURATION)),
    ('"2026-01-01T10:00:00Z"^^xsd:dateTime', Literal("2026-01-01T10:00:00Z", XSD_DATETIME)),
    ("15 min", Literal("PT15M", XSD_DURATION)),
    ("2 h", Literal("PT2H", XSD_DURATION)),
    ("30 s", Literal("PT30S", XSD_DURATION)),
    ("1 day", Literal("P1D", XSD_DURATION)),
    ("1.5 h", Literal("PT1H30M", XSD_DURATION)),
    ("-250 ms", Literal("-PT0.25S", XSD_DURATION)),
    ("<http://other.org/x#y>", IRI("http://other.org/x#y")),
    ("rdf:type", IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")),
])
def test_constants_are_typed(src, expected):
    (arg,) = fact_args(f"ex:p({src}).")
    assert arg == Const(expected)


def test_duration_value_is_milliseconds():
    (arg,) = fact_args("ex:p(15 min).")
    assert arg.term.value == Duration(0, 900_000)


def test_anonymous_variables_are_distinct_and_numbered_per_rule():
    m = parse_rules(P + "rule r: ex:p(?x) :- ex:q(?x, ?_), not ex:s(?_, ?x).\n"
                        "rule s: ex:p(?x) :- ex:q(?x, ?_).")
    r, s = m.rules
    assert r.body[0].args[1] == Var("_anon0")
    assert r.body[1].atom.args[0] == Var("_anon1")
    assert s.body[0].args[1] == Var("_anon0")


def test_rule_shapes_and_positions():
    m = parse_rules(P + "rule total [weight 0.5, depth 2]:\n  ex:total(?g, ?n) :- ex:Group(?g),"
                        " ?n = count(?y : ex:member(?g, ?y)), ?n > 2 * (1 + ?g).", file="x.hkr")
    (r,) = m.rules
    assert (r.name, r.weight, r.depth) == ("total", 0.5, 2)
    assert r.origin.file == "x.hkr" and (r.origin.line, r.origin.column) == (2, 1)
    assert (r.head.origin.line, r.head.origin.column) == (3, 3)
    agg = r.body[1]
    assert isinstance(agg, Aggregate) and agg.func == "count" and agg.term == Var("y")
    cmp = r.body[2]
    assert isinstance(cmp, Comparison) and cmp.op == ">"
    assert cmp.right == BinOp("*", Const(Literal("2", XSD_INTEGER)),
                              BinOp("+", Const(Literal("1", XSD_INTEGER)), Var("g")))


def test_not_means_negative_fact_in_heads_and_facts_but_naf_in_bodies():
    m = parse_rules(P + "not ex:red(ex:bob).\nrule r: not ex:p(?x) :- ex:q(?x), not ex:s(?x).")
    assert m.facts[0].negated is True
    r = m.rules[0]
    assert r.head.negated is True
    assert isinstance(r.body[1], Negation) and r.body[1].atom.negated is False


def test_constraint_and_query():
    m = parse_rules(P + "constraint c: false :- ex:a(?x), ex:b(?x).\n?- ex:a(?x), ex:b(?y, ?_), ?x != ?y.")
    assert m.rules[0].head is None
    assert [v.name for v in m.queries[0].variables] == ["x", "y"]


def test_vocabulary_declarations():
    m = parse_rules(P + "vocabulary: ex:a/2, ex:t/2 (iri, xsd:duration) functional, ex:C/1.")
    a, t, c = m.declarations
    assert (a.arity, a.functional, a.arg_types) == (2, False, ())
    assert t.functional and t.arg_types == ("iri", "http://www.w3.org/2001/XMLSchema#duration")
    assert c.predicate == EX + "C" and c.arity == 1


def test_includes_resolve_relative_and_reject_cycles(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "main.hkr").write_text(P + '@include "sub/lib.hkr" .\nex:red(ex:alice).\n')
    (tmp_path / "sub" / "lib.hkr").write_text(P + "ex:blue(ex:bob).\n")
    m = parse_file(tmp_path / "main.hkr")
    assert [f.predicate for f in m.facts] == [EX + "blue", EX + "red"]
    assert m.facts[0].origin.file.endswith("lib.hkr")
    (tmp_path / "sub" / "lib.hkr").write_text(P + '@include "../main.hkr" .\n')
    with pytest.raises(RuleSyntaxError) as ei:
        parse_file(tmp_path / "main.hkr")
    (d,) = ei.value.diagnostics
    assert d.code == "HK109" and "main.hkr → lib.hkr → main.hkr" in d.message


def test_missing_include_is_reported_with_the_path(tmp_path):
    (tmp_path / "a.hkr").write_text('@include "nope.hkr" .\n')
    with pytest.raises(RuleSyntaxError) as ei:
        parse_file(tmp_path / "a.hkr")
    assert ei.value.diagnostics[0].code == "HK108" and "nope.hkr" in ei.value.diagnostics[0].message


@pytest.mark.parametrize("code, message, hint, example", [
    (c, m, h, ex) for c, m, h, exs in SYNTAX_ERRORS for ex in exs
])
def test_syntax_error_table(code, message, hint, example):
    with pytest.raises(RuleSyntaxError) as ei:
        parse_rules(P + example)
    d = ei.value.diagnostics[0]
    assert (d.code, d.message) == (code, message)
    assert d.hint.startswith(hint)


def test_syntax_error_is_a_python_syntax_error_with_position():
    with pytest.raises(SyntaxError) as ei:
        parse_rules(P + "rule r: ex:p(?x) :- ex:q(?x\n", file="f.hkr")
    e = ei.value
    assert (e.filename, e.lineno) == ("f.hkr", 2)
    assert e.offset == 28
    assert "expected ')' or ','" in e.diagnostics[0].hint


def test_three_independent_syntax_mistakes_are_all_reported():
    text = P + ("ex:a(ex:x)\n"                       # missing '.'
                "ex:ok(ex:y).\n"
                "rule r ex:p(?x) :- ex:q(?x).\n"      # missing ':'
                "ex:b(nope:z).\n")                    # unknown prefix
    with pytest.raises(RuleSyntaxError) as ei:
        parse_rules(text)
    codes = [d.code for d in ei.value.diagnostics]
    assert codes == ["HK120", "HK123", "HK104"]
    assert [d.location.line for d in ei.value.diagnostics] == [2, 4, 5]


def test_expected_tokens_in_words():
    assert describe_expected({"_RPAR", "_COMMA"}) == "')' or ','"
    assert describe_expected({"VAR", "PNAME", "IRIREF", "STRING", "INT", "_RPAR"}) == \
        "a term (variable, IRI or literal) or ')'"


# -- fuzzing: nothing but RuleSyntaxError / RuleAnalysisError may escape -----------------------
_TOKENS = ["rule", "r", "constraint", ":", ":-", "(", ")", ",", ".", "not", "false", "?x", "?_", "?y",
           "ex:p", "ex:q", "ex:", "<http://x/>", '"s"', '"\\q"', "15 min", "3", "-", "+", "=", "!=", "<",
           "count", "[", "]", "weight", "2", "@prefix", "@include", "vocabulary", "/", "?-", "^^", "xsd:int",
           "#c\n", "\n", "@en", "1.5", "?_a", "sum", "functional", "iri"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(
    st.text(alphabet=string.printable, max_size=80),
    st.lists(st.sampled_from(_TOKENS), max_size=25).map(" ".join),
))
def test_fuzz_only_rule_errors_escape(text):
    from holokb.analysis import analyze
    try:
        analyze(parse_rules(P + text))
    except (RuleSyntaxError, RuleAnalysisError) as e:
        assert e.diagnostics and all(d.code.startswith("HK") for d in e.diagnostics)
        e.render()
