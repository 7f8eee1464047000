"""Triple patterns reordered by the snapshot's statistics (sparql/joinorder.py) give exactly the
solutions of the query as written, and only runs of plain patterns inside one group ever move."""
from __future__ import annotations

from dataclasses import replace

import pyoxigraph as ox
import pytest
from hypothesis import given, settings, strategies as st

from holokb.core import AsOf, Limits
from holokb.sparql import SnapshotCache, run_query
from holokb.sparql.cache import Snapshot
from holokb.sparql.join_stats import from_terms
from holokb.sparql.joinorder import RDF_TYPE, reorder
from holokb.sparql.query import execute
from holokb.sparql.snapshot import SnapshotKey

EX = "http://example.org/"
PRE = f"PREFIX ex: <{EX}>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"
STATS = {"n": 1000, "s": 100, "o": 200, "floor": 0, "c": {f"<{EX}Rare>": 2, f"<{EX}Common>": 500},
         "p": {f"<{EX}big>": [900, 100, 150], f"<{EX}small>": [3, 3, 3], RDF_TYPE: [502, 400, 2]}}


def _tokens(text: str) -> list[str]:
    return sorted(text.replace(".", " . ").split())


def test_the_smallest_pattern_goes_first_then_its_neighbours():
    q = PRE + "SELECT ?x ?y WHERE { ?x ex:big ?y . ?y a ex:Common . ?x ex:small ?z . ?z a ex:Rare }"
    out = reorder(q, STATS, "SELECT")
    body = out.split("{", 1)[1]
    assert body.index("?z a ex:Rare") < body.index("?x ex:small ?z") < body.index("?x ex:big ?y") \
        < body.index("?y a ex:Common")
    assert out.startswith(PRE + "SELECT ?x ?y WHERE {")


@pytest.mark.parametrize("tail", ["LIMIT 3", "OFFSET 1", "ORDER BY ?x"])
def test_a_query_whose_answer_can_depend_on_the_order_is_left_alone(tail):
    q = PRE + f"SELECT ?x WHERE {{ ?x ex:big ?y . ?x ex:small ?z }} {tail}"
    assert reorder(q, STATS, "SELECT") is q
    assert reorder(PRE + "SELECT ?x WHERE { ?x ex:big ?y . ?x ex:small ?z }", STATS, "CONSTRUCT").startswith(PRE)
    for word in ("REDUCED", "SAMPLE(?x)", "GROUP_CONCAT(?x)", "SUM(?x)", "BNODE()", "RAND()"):
        q2 = PRE + f"SELECT {word} WHERE {{ ?x ex:big ?y . ?x ex:small ?z }}"
        assert reorder(q2, STATS, "SELECT") is q2


def test_only_plain_runs_inside_one_group_move():
    kept = [
        "?x ex:big ?y ; ex:small ?z . ?z a ex:Rare",          # a ';' list is not plain
        "?x ex:big/ex:small ?y . ?y a ex:Rare",               # a property path
        "?x ex:big ?y . FILTER(?y != 1) ?y ex:small ?z",       # runs of one pattern around a FILTER
        "?x ex:big ?y OPTIONAL { ?y ex:small ?z }",
        "VALUES ?x { ex:a ex:b ex:c } ?x ex:big ?y",
        "[ ex:big ?y ] ex:small ?z . ?z a ex:Rare",           # a blank node property list
    ]
    for body in kept:
        q = PRE + f"SELECT * WHERE {{ {body} }}"
        assert reorder(q, STATS, "SELECT") is q, body
    q = PRE + "SELECT * WHERE { ?x ex:big ?y . ?y ex:small ?z OPTIONAL { ?y ex:big ?w . ?w a ex:Rare } }"
    out = reorder(q, STATS, "SELECT")
    assert "?y ex:small ?z .\n?x ex:big ?y OPTIONAL" in out  # the outer run, then the OPTIONAL's own
    assert "{ ?w a ex:Rare .\n?y ex:big ?w }" in out


def test_without_statistics_nothing_moves():
    q = PRE + "SELECT ?x WHERE { ?x ex:big ?y . ?x ex:small ?z }"
    assert reorder(q, None, "SELECT") is q and reorder(q, {}, "SELECT") is q


# -- the same solutions, on random graphs, queries and statistics ------------------------------------

SUBJECTS = [f"ex:s{i}" for i in range(5)]
PREDS = ["ex:p0", "ex:p1", f"<{EX}p2>", "rdf:type"]
CLASSES = ["ex:C0", "ex:C1"]
LITS = ['"a"', '"b"@en', "1", '"2"^^<http://www.w3.org/2001/XMLSchema#integer>']
VARS = ["?a", "?b", "?c", "?d"]


@st.composite
def graphs(draw):
    n = draw(st.integers(0, 25))
    lines = []
    for _ in range(n):
        s = draw(st.sampled_from(SUBJECTS))
        p = draw(st.sampled_from(PREDS))
        o = draw(st.sampled_from(CLASSES if p == "rdf:type" else SUBJECTS + LITS))
        lines.append(f"{s} {p} {o} .")
    return PRE.replace("PREFIX", "@prefix").replace(">\n", "> .\n") + "\n".join(lines)


@st.composite
def patterns(draw, k):
    out = []
    for _ in range(k):
        s = draw(st.sampled_from(VARS + SUBJECTS[:2]))
        p = draw(st.sampled_from(PREDS + ["a", "?p"]))
        o = draw(st.sampled_from(VARS + SUBJECTS[:2] + (CLASSES if p in ("a", "rdf:type") else LITS[:2])))
        out.append(f"{s} {p} {o}")
    return out


@st.composite
def queries(draw):
    body = " .\n".join(draw(patterns(draw(st.integers(2, 5)))))
    extra = draw(st.sampled_from(["", "OPTIONAL", "FILTER", "GROUP", "MINUS", "BIND"]))
    if extra == "OPTIONAL":
        body += " OPTIONAL { " + " . ".join(draw(patterns(draw(st.integers(1, 3))))) + " }"
    elif extra == "FILTER":
        body += f" FILTER({draw(st.sampled_from(VARS))} != {draw(st.sampled_from(SUBJECTS))})"
    elif extra == "GROUP":
        body = "{ " + body + " } . " + " . ".join(draw(patterns(2)))
    elif extra == "MINUS":
        body += " MINUS { " + " . ".join(draw(patterns(draw(st.integers(1, 2))))) + " }"
    elif extra == "BIND":
        body += " . BIND(1 AS ?z) " + " . ".join(draw(patterns(2)))
    head = draw(st.sampled_from(["SELECT *", "SELECT DISTINCT ?a ?b", "SELECT (COUNT(*) AS ?n)", "ASK"]))
    return PRE + f"{head} WHERE {{ {body} }}"


def _random_stats(draw):
    keys = [f"<{EX}p0>", f"<{EX}p1>", f"<{EX}p2>", RDF_TYPE]
    return {"n": draw(st.integers(0, 50)), "s": draw(st.integers(0, 9)), "o": draw(st.integers(0, 9)), "floor": 0,
            "p": {k: [draw(st.integers(0, 30)), draw(st.integers(1, 5)), draw(st.integers(1, 5))] for k in keys
                  if draw(st.booleans())},
            "c": {f"<{EX}C{i}>": draw(st.integers(0, 20)) for i in range(2) if draw(st.booleans())}}


def _answer(store: ox.Store, text: str) -> object:
    r = store.query(text)
    if isinstance(r, bool):
        return r
    return sorted(r.serialize(format=ox.QueryResultsFormat.TSV).decode().splitlines()[1:])


@settings(max_examples=30, deadline=None)
@given(graphs(), queries(), st.data())
def test_reordered_queries_give_the_same_solutions(data, query, draw):
    store = ox.Store()
    store.load(data.encode(), format=ox.RdfFormat.TURTLE)
    real = from_terms(((q.subject, q.predicate, q.object) for q in store), str)
    form = "ASK" if "ASK" in query else "SELECT"
    key = SnapshotKey("snapshot", AsOf.latest(), (0,), "")
    written = execute(Snapshot(key, store, 0, False), query, form=form, as_of=AsOf.latest(), view="snapshot",
                      limits=Limits(max_results=None))
    for stats in (real, _random_stats(draw.draw)):
        out = reorder(query, stats, form)
        assert _tokens(out) == _tokens(query)
        assert _answer(store, out) == _answer(store, query), out
        # what holokb prints: byte-identical (rows sorted; SELECT * columns from the text as written)
        got = execute(Snapshot(key, store, 0, False, stats=stats), query, form=form, as_of=AsOf.latest(),
                      view="snapshot", limits=Limits(max_results=None))
        assert [got.serialize(f) for f in ("tsv", "table")] == [written.serialize(f) for f in ("tsv", "table")]


def test_a_built_snapshot_keeps_statistics_and_answers_the_same(tmp_path):
    data = tmp_path / "d.ttl"
    data.write_text(f"@prefix ex: <{EX}> .\n" + "".join(
        f"ex:s{i} ex:big ex:s{i % 7} .\nex:s{i} a ex:Common .\n" for i in range(40)) + "ex:s1 ex:small ex:s2 .\n"
        "ex:s2 a ex:Rare .\n")
    from holokb.kb import KnowledgeBase

    q = PRE + "SELECT ?x ?y ?z WHERE { ?x a ex:Common . ?x ex:big ?y . ?x ex:small ?z . ?z a ex:Rare }"
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        kb.load([data], at=1_700_000_000_000)
        cache = SnapshotCache(2)
        first = run_query(kb, q, as_of=AsOf.latest(), limits=Limits(max_results=None), cache=cache)
        snap = cache.get(kb.ledger, "snapshot", AsOf.latest())
        assert snap.stats and snap.stats["p"][f"<{EX}big>"] == [40, 40, 7] and snap.stats["c"][f"<{EX}Rare>"] == 1
        assert reorder(q, snap.stats, "SELECT") != q
        plain = execute(replace(snap, stats=None), q, form="SELECT", as_of=AsOf.latest(), view="snapshot",
                        limits=Limits(max_results=None))
        assert first.rows == plain.rows and len(first.rows) == 1
        again = SnapshotCache(2).get(kb.ledger, "snapshot", AsOf.latest())  # read back from meta.json
        assert again.stats == snap.stats
