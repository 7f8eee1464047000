"""The whole-table TSV read gives the same SELECT result as the streaming read (solution objects),
with and without budgets (a row cap, a deadline that holds, a deadline that cuts the read short).

Random result tables are stored as rows (``<urn:row:i> <urn:cK> term``, an absent cell is
unbound) and read back with OPTIONALs, so every cell is a term we chose: repeated
terms, stable and minted blank nodes, IRIs, literals of several datatypes (numbers the TSV writer
prints bare, language tags, escapes, NUL), unbound cells.  Both reads run on the same store; the
rows, their order and every output format must be identical.
"""
from __future__ import annotations

import time

import pytest

ox = pytest.importorskip("pyoxigraph")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from holokb.core.limits import LimitHit, Limits  # noqa: E402
from holokb.core.time import AsOf  # noqa: E402
from holokb.sparql.cache import Snapshot  # noqa: E402
from holokb.sparql.query import execute  # noqa: E402
from holokb.sparql.results import escape_literal  # noqa: E402
from holokb.sparql.snapshot import SnapshotKey  # noqa: E402
from holokb.sparql.tsv_results import parse_term  # noqa: E402

XSD = "http://www.w3.org/2001/XMLSchema#"
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
_iri = st.sampled_from(["http://ex.org/a", "http://ex.org/b", "http://ex.org/a/é", "urn:x:1", "http://ex.org/"])
_lexical = {
    "integer": st.integers(-10**20, 10**20).map(str) | st.sampled_from(["+1", "-0", "007"]),
    "decimal": st.sampled_from(["1.5", "-0.25", "+3.0", ".5", "10", "1."]),
    "double": st.sampled_from(["1e3", "1.5E-2", "-0e0", "INF", "NaN", "1", "x"]),
    "boolean": st.sampled_from(["true", "false", "1", "0", "maybe"]),
    "string": _text,
    "date": st.sampled_from(["2026-01-01", "2026-13-01"]),
}


@st.composite
def _cell(draw) -> str:
    kind = draw(st.sampled_from(["unbound", "iri", "bnode", "literal", "lang", "typed", "custom"]))
    if kind == "unbound":
        return ""
    if kind == "iri":
        return f"<{draw(_iri)}>"
    if kind == "bnode":  # stable snapshot labels, and labels the snapshot never makes (relabelled)
        return draw(st.sampled_from(["_:b" + "0" * 32, "_:b" + "ab" * 16, "_:x1", "_:x2"]))
    if kind == "literal":
        return '"' + escape_literal(draw(_text)) + '"'
    if kind == "lang":
        return '"' + escape_literal(draw(_text)) + '"@' + draw(st.sampled_from(["en", "en-GB", "fr"]))
    if kind == "custom":
        return '"' + escape_literal(draw(_text)) + '"^^<http://ex.org/dt>'
    dt = draw(st.sampled_from(sorted(_lexical)))
    return '"' + escape_literal(draw(_lexical[dt])) + f'"^^<{XSD}{dt}>'


def _snapshot(table: list[list[str]]) -> Snapshot:
    lines = [f"<urn:row:{i}> <urn:isRow> <urn:Row> .\n" for i in range(len(table))]
    lines += [f"<urn:row:{i}> <urn:c{k}> {cell} .\n" for i, row in enumerate(table) for k, cell in enumerate(row) if cell]
    store = ox.Store()
    # as the snapshot fill does: blank-node labels kept
    store.bulk_extend(ox.parse("".join(lines).encode(), format=ox.RdfFormat.N_TRIPLES, rename_blank_nodes=False))
    return Snapshot(SnapshotKey("snapshot", AsOf.latest(), (), "plain"), store, len(lines), False)


def _run(snap: Snapshot, query: str, limits: Limits, stream: bool = False):
    return execute(snap, query, form="SELECT", as_of=AsOf.latest(), view="snapshot", limits=limits, stream=stream)


def _same(fast, slow) -> None:
    assert fast.variables == slow.variables
    assert fast.rows == slow.rows
    assert (fast.truncated, fast.limit_hit) == (slow.truncated, slow.limit_hit)
    for fmt in ("json", "xml", "csv", "tsv", "table"):
        assert fast.serialize(fmt) == slow.serialize(fmt)


def _rows_query(width: int, star: bool, order: bool, minted: bool) -> str:
    names = [f"?v{i}" for i in range(width)]
    proj = "*" if star else " ".join(reversed(names)) + (" ?m" if minted else "")
    body = " ".join(f"OPTIONAL {{ ?r <urn:c{k}> {n} }}" for k, n in enumerate(names))
    extra = " BIND(BNODE() AS ?m)" if minted else ""
    tail = " ORDER BY ?v0" if order else ""
    return f"SELECT {proj} WHERE {{ ?r <urn:isRow> <urn:Row> . {body}{extra} }}{tail}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pool=st.lists(_cell(), min_size=1, max_size=8), data=st.data(), star=st.booleans(),
       order=st.booleans(), minted=st.booleans(), width=st.integers(1, 3),
       cap=st.none() | st.integers(0, 14), timed=st.booleans())
def test_tsv_read_equals_streaming_read(pool, data, star, order, minted, width, cap, timed):
    # Rows drawn from a small pool, so terms repeat across rows and columns.
    table = data.draw(st.lists(st.lists(st.sampled_from(pool), min_size=width, max_size=width), max_size=12))
    snap, query = _snapshot(table), _rows_query(width, star, order, minted)
    # A deadline far away (the CLI's default case) must change nothing; a cap keeps the first rows.
    limits = Limits(max_results=cap, timeout_s=3600.0 if timed else None).started()
    fast, slow = _run(snap, query, limits), _run(snap, query, limits, stream=True)
    assert len(fast.rows) == (len(table) if cap is None else min(cap, len(table)))
    assert fast.truncated == (cap is not None and cap < len(table))
    _same(fast, slow)
    # Again, twice: the second read (cells known) learns the lines (tsv_results._LINES), the third
    # reads every line by one lookup.
    _same(_run(snap, query, limits), slow)
    _same(_run(snap, query, limits), slow)


@pytest.mark.parametrize("order", [False, True])
def test_an_expired_deadline_cuts_the_tsv_read_between_chunks(order):
    # 20k rows (~1 MB of TSV, pyoxigraph writes ~8 KiB at a time): a deadline already past stops
    # the write after its first chunk; the rows kept are the first m solutions, byte for byte what
    # the streaming read keeps with a cap of m.
    snap = _snapshot([[f'"{i}"', f"<http://ex.org/n{i % 7}>"] for i in range(20_000)])
    query = _rows_query(2, False, order, False)
    past = Limits(max_results=None, ends_at=time.monotonic() - 1.0)
    cut = _run(snap, query, past)
    assert cut.truncated and cut.limit_hit is LimitHit.TIMEOUT
    assert 0 < len(cut.rows) < 20_000
    capped = _run(snap, query, Limits(max_results=len(cut.rows)), stream=True)
    assert capped.limit_hit is LimitHit.MAX_RESULTS
    assert cut.rows == capped.rows
    assert cut.serialize("tsv") == capped.serialize("tsv")
    whole = _run(snap, query, Limits(max_results=None, timeout_s=3600.0).started())
    assert not whole.truncated and len(whole.rows) == 20_000
    assert set(cut.rows) < set(whole.rows)


def test_row_keys_where_one_cell_key_is_a_prefix_of_another():
    # A row's sort key is its cells' keys joined by NUL; it must order as the tuple of keys even
    # where one cell's key is a proper prefix of another's: the same text under language tags
    # "en" / "en-GB", a minted blank node ("1") against a stable one ("1b…"), unbound ("0").
    stable = "_:b" + "0" * 32
    table = [['"a"@en-GB', "<http://ex.org/a>"], ['"a"@en', "<http://ex.org/b>"], [stable, '"1"'],
             ["_:x1", '"2"'], ["", '"3"'], ['"a"@en', "<http://ex.org/a>"], [stable, '"0"']]
    snap = _snapshot(table)
    query = _rows_query(2, False, False, False).replace("SELECT ?v1 ?v0", "SELECT ?v0 ?v1")
    limits = Limits(max_results=None)
    fast = _run(snap, query, limits)
    _same(fast, _run(snap, query, limits, stream=True))
    first = [(r[0].kind, r[0].value, r[0].lang, r[1].value) if r[0] else (None, None, None, r[1].value)
             for r in fast.rows]
    assert first == [(None, None, None, "3"), ("bnode", "n0", None, "2"), ("bnode", stable[2:], None, "0"),
                     ("bnode", stable[2:], None, "1"), ("literal", "a", "en", "http://ex.org/a"),
                     ("literal", "a", "en", "http://ex.org/b"), ("literal", "a", "en-gb", "http://ex.org/a")]
    # The rows without the minted blank node, three times: the third read takes every line from the
    # line table and sorts by the lines' joined keys, which must give the same order.
    rest = [r for r in table if r[0] != "_:x1"]
    snap = _snapshot(rest)
    reads = [_run(snap, query, limits).rows for _ in range(3)]
    assert reads == [tuple(r for r in fast.rows if r[0] is None or r[0].value != "n0")] * 3


def test_bare_numbers_and_escapes_are_read_as_the_engine_means_them():
    assert parse_term("1").datatype == XSD + "integer"
    assert parse_term("-1.5").datatype == XSD + "decimal"
    assert parse_term("1e3").datatype == XSD + "double"
    assert parse_term("true").datatype == XSD + "boolean"
    assert parse_term('"a\\tb\\u00e9"@en').value == "a\tbé"
    assert parse_term('"x"^^<http://ex.org/dt>').datatype == "http://ex.org/dt"


def test_no_rows_and_unbound_only_rows():
    snap = _snapshot([])
    assert _run(snap, "SELECT ?x WHERE { FILTER(false) }", Limits(max_results=None)).rows == ()
    two = _run(snap, "SELECT ?x WHERE { VALUES ?x { UNDEF UNDEF } }", Limits(max_results=None))
    assert two.rows == ((None,), (None,))
    assert _run(snap, "SELECT * WHERE { }", Limits(max_results=None)).rows == ((),)
