"""The diagnostics table: (code, message fragment, bad example) — every HK1xx/HK2xx code."""
from __future__ import annotations

from pathlib import Path

import pytest

from holokb.analysis import analyze
from holokb.core.errors import RuleAnalysisError, RuleSyntaxError
from holokb.syntax import parse_rules

P = "@prefix ex: <http://example.org/> .\n"
V = "vocabulary: ex:uses/2, ex:provides/2, ex:hasCapability/2, ex:n/2 (iri, xsd:integer), ex:C/1.\n"

DIAGNOSTICS = [
    # syntax
    ("HK101", "unexpected prefixed name 'ex:file'", "@include ex:file ."),
    ("HK102", "unexpected character", "ex:p(ex:a) ; ex:q(ex:b)."),
    ("HK103", "end of file", "rule r: ex:p(?x) :- ex:q(?x), not"),
    ("HK104", "unknown prefix 'foo:'", "ex:p(foo:bar)."),
    ("HK105", "ill-typed literal", 'ex:p("abc"^^xsd:integer).'),
    ("HK105", "relative IRI", "ex:p(<relative>)."),
    ("HK106", "may not start with '_'", "rule r: ex:p(?x) :- ex:q(?x, ?_y)."),
    ("HK107", "unknown annotation 'wieght'", "rule r [wieght 0.5]: ex:p(?x) :- ex:q(?x)."),
    ("HK107", "given twice", "rule r [depth 2, depth 3]: ex:p(?x) :- ex:q(?x)."),
    ("HK110", "aggregate cannot be part of an arithmetic", "rule r: ex:p(?n) :- ex:q(?g), ?n = 1 + count(?y : ex:m(?g, ?y))."),
    ("HK110", "needs a term", "rule r: ex:p(?n) :- ex:q(?g), ?n = sum(: ex:m(?g, ?y))."),
    ("HK111", "must have the head 'false'", "constraint c: ex:p(?x) :- ex:q(?x)."),
    ("HK111", "has the head 'false'", "rule r: false :- ex:q(?x)."),
    ("HK112", "unknown escape", 'ex:p("a\\qb").'),
    ("HK113", "argument types given", "vocabulary: ex:p/2 (iri)."),
    ("HK114", "unknown XML Schema datatype", "vocabulary: ex:p/2 (iri, xsd:durtion)."),
    ("HK120", "missing '.'", "ex:p(ex:a)\nex:q(ex:b)."),
    ("HK121", "':-'", "rule r: ex:p(?x) ex:q(?x)."),
    ("HK122", "needs a name", "rule: ex:p(?x) :- ex:q(?x)."),
    ("HK123", "expected ':' after the rule name", "rule r ex:p(?x) :- ex:q(?x)."),
    ("HK124", "predicate 'p' needs a prefix", "rule r: p(?x) :- ex:q(?x)."),
    ("HK125", "unclosed '('", "ex:p(ex:a."),
    ("HK126", "'x' is not a term", "rule r: ex:p(?x) :- ex:q(x)."),
    ("HK127", "without the 'rule' keyword", "ex:p(?x) :- ex:q(?x)."),
    ("HK128", "right-hand side", "rule r: ex:p(?x) :- ex:q(?x), ?x > ."),
    ("HK129", "needs an arity", "vocabulary: ex:p, ex:q/2."),
    ("HK130", "malformed @prefix", "@prefix ex <http://example.org/> ."),
    ("HK131", "body is empty", "rule r: ex:p(ex:a) :- ."),
    ("HK132", "annotation needs a name and a number", "rule r [weight]: ex:p(?x) :- ex:q(?x)."),
    # analysis
    ("HK201", "head variable ?z", "rule r: ex:p(?x, ?z) :- ex:q(?x)."),
    ("HK201", "anonymous variable ?_ in the head", "rule r: ex:p(?x, ?_) :- ex:q(?x)."),
    ("HK202", "?y under 'not'", "rule r: ex:p(?x) :- ex:q(?x), not ex:s(?x, ?y)."),
    ("HK203", "?m in the comparison", "rule r: ex:p(?x) :- ex:q(?x), ?x > ?m."),
    ("HK203", "?a, ?b in the comparison", "?- ex:q(?x), ?a = ?b."),
    ("HK204", "target ?n is already bound", "rule r: ex:p(?g, ?n) :- ex:q(?g, ?n), ?n = count(?y : ex:m(?g, ?y))."),
    ("HK205", "used with 1 argument(s) here but 2 before", "ex:q(ex:a, ex:b).\nex:q(ex:a)."),
    ("HK205", "takes 2 argument(s), 3 given", V + "ex:uses(ex:a, ex:b, ex:c)."),
    ("HK206", "did you mean ex:hasCapability?", V + "rule r: ex:hasCapabilty(?x, ?z) :- ex:uses(?x, ?y), ex:provides(?y, ?z)."),
    ("HK207", "must be a xsd:integer literal", V + 'ex:n(ex:a, "seven").'),
    ("HK207", "must be an IRI", V + "ex:n(3, 4)."),
    ("HK208", "recursive through negation", "rule p: ex:p(?x) :- ex:d(?x), not ex:q(?x).\nrule q: ex:q(?x) :- ex:d(?x), not ex:p(?x)."),
    ("HK209", "recursive through an aggregate", "rule c: ex:c(?g, ?n) :- ex:g(?g), ?n = count(?y : ex:c(?y, ?g))."),
    ("HK210", "duplicate rule name 'r'", "rule r: ex:p(?x) :- ex:q(?x).\nrule r: ex:s(?x) :- ex:q(?x)."),
    ("HK211", "outside (0, 1]", "rule r [weight 1.5]: ex:p(?x) :- ex:q(?x)."),
    ("HK211", "outside (0, 1]", "rule r [weight 0]: ex:p(?x) :- ex:q(?x)."),
    ("HK212", "must be at least 1", "rule r [depth 0]: ex:p(?x) :- ex:q(?x)."),
    ("HK213", "declared twice, differently", "vocabulary: ex:p/2, ex:p/2 functional."),
    ("HK214", "does not bind", "rule r: ex:p(?g, ?n) :- ex:q(?g), ?n = sum(?z : ex:m(?g, ?y))."),
    ("HK215", "contains the variable ?x", "ex:p(?x, ex:a)."),
]


def diagnostics_of(text: str):
    try:
        analyze(parse_rules(P + text, file="t.hkr"))
    except (RuleSyntaxError, RuleAnalysisError) as e:
        return e.diagnostics
    return ()


@pytest.mark.parametrize("code, fragment, example", DIAGNOSTICS)
def test_diagnostic_table(code, fragment, example):
    diags = diagnostics_of(example)
    matching = [d for d in diags if d.code == code]
    assert matching, f"expected {code}, got {[d.code + ': ' + d.message for d in diags]}"
    assert any(fragment in d.message or fragment in (d.hint or "") for d in matching)
    for d in matching:
        assert d.location is not None and d.location.file == "t.hkr"
        assert d.source_line is not None and "^" in d.render()


def test_every_code_is_covered():
    import holokb.analysis.check as check
    import re
    documented = set(re.findall(r"HK2\d\d", check.__doc__))
    from holokb.syntax import SYNTAX_ERRORS
    codes = {c for c, _f, _e in DIAGNOSTICS}
    assert documented <= codes
    assert {c for c, *_ in SYNTAX_ERRORS} <= codes
    assert len(DIAGNOSTICS) >= 25


def test_three_independent_analysis_mistakes_are_all_reported():
    text = V + ("rule a: ex:hasCapability(?x, ?z) :- ex:uses(?x, ?y).\n"        # unsafe ?z
                "rule b: ex:hasCapabilty(?x, ?y) :- ex:uses(?x, ?y).\n"         # undeclared, did you mean
                'ex:n(ex:a, "seven").\n')                                       # type
    diags = diagnostics_of(text)
    assert [d.code for d in diags] == ["HK201", "HK206", "HK207"]
    assert [d.location.line for d in diags] == [3, 4, 5]


def test_analysis_error_keeps_diagnostics_separate():
    with pytest.raises(RuleAnalysisError) as ei:
        analyze(parse_rules(P + "rule r: ex:p(?x, ?y) :- ex:q(?z).\nrule r: ex:p(?x) :- ex:q(?x)."))
    assert len(ei.value.diagnostics) == 3  # ?x ?y unsafe (one diagnostic), duplicate name, arity
    assert sorted(d.code for d in ei.value.diagnostics) == ["HK201", "HK205", "HK210"]


GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("case", sorted(p.stem for p in GOLDEN.glob("*.hkr")))
def test_golden_diagnostics(case, monkeypatch):
    monkeypatch.chdir(GOLDEN)
    text = (GOLDEN / f"{case}.hkr").read_text()
    try:
        analyze(parse_rules(text, file=f"{case}.hkr"))
        rendered = "OK\n"
    except (RuleSyntaxError, RuleAnalysisError) as e:
        rendered = e.render() + "\n"
    assert rendered == (GOLDEN / f"{case}.expected").read_text()
