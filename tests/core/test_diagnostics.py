"""Diagnostics render file:line:col, the source line and a caret; syntax errors are SyntaxErrors."""
from holokb.core import Diagnostic, HolokbError, Location, RuleSyntaxError


def test_render_shows_location_source_and_caret():
    d = Diagnostic("HK101", "expected ')'", Location("r.hkr", 3, 9, 3, 11), hint="close the atom", source_line="  ex:p(?x ?y)")
    lines = d.render().splitlines()
    assert lines[0] == "r.hkr:3:9: error[HK101]: expected ')'"
    assert lines[1] == "      ex:p(?x ?y)"
    assert lines[2] == "    " + " " * 8 + "^^"
    assert lines[-1] == "  hint: close the atom"


def test_rule_syntax_error_is_a_syntax_error_with_position():
    d = Diagnostic("HK101", "bad", Location("f.hkr", 2, 5), source_line="abc")
    e = RuleSyntaxError("f.hkr: syntax error", (d,))
    assert isinstance(e, SyntaxError) and isinstance(e, HolokbError)
    assert (e.filename, e.lineno, e.offset) == ("f.hkr", 2, 5)
    assert e.diagnostics == (d,)
