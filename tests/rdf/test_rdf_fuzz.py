"""Random bytes and strings into every parser: only DataSyntaxError may come out, and quickly."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.core import DataSyntaxError
from holokb.rdf import parse_records
from holokb.rdf.parse import FORMATS

FMTS = sorted(set(FORMATS.values()))
# Fragments of real syntax make the fuzzer reach past the first token.
TOKENS = st.sampled_from([
    "<http://ex.org/a>", "<a>", "_:b", "[", "]", "(", ")", "{", "}", ".", ";", ",", "@prefix", "PREFIX",
    "ex:", "ex:a", '"x"', '"""', "'", "^^", "<http://www.w3.org/2001/XMLSchema#integer>", "@en", "1", "1.5",
    "1e3", "true", "a", "<<", ">>", "<<(", ")>>", "#", "\n", " ", "\\u0041", "GRAPH", "<rdf:RDF", "/>",
    'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"', "rdf:about=", "<?xml", "\x00", "\ud7ff",
])

SETTINGS = settings(max_examples=60, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


def check_only_data_syntax_errors(data, fmt):
    try:
        parse_records(data, fmt, at=0, base_iri="http://ex.org/base/")
    except DataSyntaxError as e:
        assert e.lineno is None or e.lineno >= 1
        assert e.render()


@pytest.mark.parametrize("fmt", FMTS)
@SETTINGS
@given(data=st.binary(max_size=300))
def test_random_bytes(fmt, data):
    check_only_data_syntax_errors(data, fmt)


@pytest.mark.parametrize("fmt", FMTS)
@SETTINGS
@given(data=st.lists(TOKENS, max_size=40).map(" ".join))
def test_token_soup(fmt, data):
    check_only_data_syntax_errors(data, fmt)


@pytest.mark.parametrize("fmt", FMTS)
@SETTINGS
@given(data=st.text(max_size=200))
def test_random_text(fmt, data):
    check_only_data_syntax_errors(data, fmt)


@SETTINGS
@given(data=st.data())
def test_mangled_reified_exports(data):
    """Dropping, repeating and swapping lines of a full export never raises anything else."""
    from holokb.rdf import ledger_trig
    from rdf_samples import sample_records

    lines = ledger_trig(sample_records()).splitlines()
    ops = data.draw(st.lists(st.tuples(st.sampled_from("drop dup swap".split()),
                                       st.integers(0, len(lines) - 1), st.integers(0, len(lines) - 1)),
                             min_size=1, max_size=6))
    for op, i, j in ops:
        if op == "drop" and len(lines) > 1:
            del lines[i % len(lines)]
        elif op == "dup":
            lines.insert(j % len(lines), lines[i % len(lines)])
        else:
            i, j = i % len(lines), j % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
    check_only_data_syntax_errors("\n".join(lines), "TRIG")
