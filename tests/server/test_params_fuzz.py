"""Hypothesis fuzz of the strict query-string parser, alone and through the running server."""
from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.server.errors import BadRequest
from holokb.server.params import parse_form

from _serving import raw_get, serve

names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
values = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@given(st.lists(st.tuples(names, values), max_size=6))
def test_what_urlencode_writes_is_read_back_exactly(pairs):
    assert parse_form(urlencode(pairs).encode()) == tuple(pairs)
    assert parse_form(urlencode(pairs, quote_via=quote).encode()) == tuple(pairs)


@given(st.binary(max_size=200))
def test_any_bytes_parse_or_fail_with_a_coded_400(raw):
    try:
        pairs = parse_form(raw)
    except BadRequest as e:
        assert e.problem.status == 400 and e.problem.code in ("bad-percent-encoding", "not-utf8")
    else:
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in pairs)


@given(st.text(alphabet="%&=+aZ09é\x00 ", max_size=30))
def test_escapes_are_checked_at_the_right_place(text):
    raw = text.encode("utf-8")
    try:
        parse_form(raw)
    except BadRequest as e:
        assert "byte" in e.problem.message
    else:
        # accepted ⇒ every % starts a two-hex-digit escape
        i = raw.find(b"%")
        while i >= 0:
            assert raw[i + 1:i + 3].isalnum() and len(raw[i + 1:i + 3]) == 2
            i = raw.find(b"%", i + 1)


@pytest.fixture(scope="module")
def client(example_db):
    with serve(example_db, timeout_s=5.0) as c:
        yield c


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=120), st.sampled_from(["/sparql", "/sparql/ledger", "/facts", "/ask", "/explain", "/stats"]))
def test_the_server_answers_any_query_string_without_a_5xx(client, raw, path):
    status, body = raw_get(client, path, raw)
    assert 200 <= status < 500, (raw, status, body)
    assert body.strip() and b"Traceback" not in body
