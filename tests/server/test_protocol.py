"""holokb's own SPARQL Protocol cases beyond the W3C suite: negotiation of every format, AsOf
parameters, the rule closure in the snapshot, the ledger view, datasets, error bodies and caps."""
from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET

import pytest
from rdflib import Graph, URIRef

from _serving import serve

EX = "http://example.org/"
TIMEOUT = f"""PREFIX ex: <{EX}> SELECT ?t WHERE {{ ex:sessionPolicy ex:sessionTimeout ?t }}"""
CAPS = f"""PREFIX ex: <{EX}> SELECT ?c WHERE {{ ex:AchillesIDE ex:hasCapability ?c }}"""


@pytest.fixture(scope="module")
def client(example_db):
    with serve(example_db) as c:
        yield c


def _values(r) -> list[str]:
    doc = r.json()
    var = doc["head"]["vars"][0]
    return [b[var]["value"] for b in doc["results"]["bindings"]]


def test_as_of_and_valid_pick_the_snapshot(client):
    # v1.0 (30 min) holds before 2026-03-01 and v2.0 (15 min) after, both recorded on 2026-01-01
    assert _values(client.get("/sparql", params={"query": TIMEOUT, "valid": "2026-02-01"})) == ["PT30M"]
    assert _values(client.get("/sparql", params={"query": TIMEOUT, "valid": "2026-04-01"})) == ["PT15M"]
    # recorded as of 2025: the KB knew nothing yet
    assert _values(client.get("/sparql", params={"query": TIMEOUT, "as-of": "2025-06-01", "valid": "2026-04-01"})) == []


def test_snapshot_holds_the_rule_closure(client):
    got = _values(client.get("/sparql", params={"query": CAPS}))
    assert got == [EX + "codeSearch", EX + "sandboxing"]  # derived by tool_to_capability, not asserted


@pytest.mark.parametrize("accept,media", [
    ("application/sparql-results+json", "application/sparql-results+json"),
    ("application/sparql-results+xml", "application/sparql-results+xml"),
    ("text/csv", "text/csv"), ("text/tab-separated-values", "text/tab-separated-values"),
    ("text/html, */*;q=0.1", "application/sparql-results+json"),
])
def test_select_results_in_every_format_say_the_same(client, accept, media):
    r = client.get("/sparql", params={"query": CAPS}, headers={"Accept": accept})
    assert r.status_code == 200 and r.headers["content-type"].startswith(media)
    if "json" in media:
        got = _values(r)
    elif "xml" in media:
        ns = "{http://www.w3.org/2005/sparql-results#}"
        got = [u.text for u in ET.fromstring(r.content).iter(ns + "uri")]
    elif media == "text/csv":
        got = [row[0] for row in list(csv.reader(io.StringIO(r.text)))[1:]]
    else:
        got = [line.strip("<>") for line in r.text.splitlines()[1:]]
    assert got == [EX + "codeSearch", EX + "sandboxing"]


@pytest.mark.parametrize("accept,fmt", [("text/turtle", "turtle"), ("application/n-triples", "nt"),
                                        ("application/ld+json", "json-ld"), ("application/rdf+xml", "xml")])
def test_construct_in_every_rdf_format_parses_to_the_same_graph(client, accept, fmt):
    q = f"PREFIX ex: <{EX}> CONSTRUCT {{ ex:AchillesIDE ex:hasCapability ?c }} WHERE {{ ex:AchillesIDE ex:hasCapability ?c }}"
    r = client.post("/sparql", content=q, headers={"Content-Type": "application/sparql-query", "Accept": accept})
    assert r.status_code == 200 and r.headers["content-type"].startswith(accept)
    g = Graph().parse(data=r.text, format=fmt)
    assert set(g) == {(URIRef(EX + "AchillesIDE"), URIRef(EX + "hasCapability"), URIRef(EX + c))
                      for c in ("codeSearch", "sandboxing")}


def test_format_parameter_overrides_accept(client):
    r = client.get("/sparql", params={"query": CAPS, "format": "csv"}, headers={"Accept": "application/sparql-results+xml"})
    assert r.headers["content-type"].startswith("text/csv")


def test_nothing_acceptable_is_406_with_what_is_offered(client):
    r = client.get("/sparql", params={"query": CAPS}, headers={"Accept": "image/png"})
    assert r.status_code == 406 and "application/sparql-results+json" in r.text
    r = client.get("/sparql", params={"query": CAPS, "format": "turtle"})
    assert r.status_code == 406 and "SELECT" in r.text


def test_syntax_error_is_400_with_line_and_column(client):
    r = client.get("/sparql", params={"query": "SELECT ?x WHERE {\n  ?x ?p }"})
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/plain")
    assert "query:2:" in r.text and "query-syntax" in r.text


def test_ledger_view_shows_provenance_and_refuses_as_of(client):
    q = ("PREFIX hk: <https://w3id.org/holokb/> SELECT (COUNT(?e) AS ?n) WHERE { ?s hk:evidence ?e }")
    r = client.get("/sparql/ledger", params={"query": q})
    assert r.status_code == 200 and int(r.json()["results"]["bindings"][0]["n"]["value"]) > 0
    r = client.get("/sparql/ledger", params={"query": q, "as-of": "2026-01-01"})
    assert r.status_code == 400 and "as-of-on-ledger" in r.text


def test_protocol_dataset_replaces_from(client):
    # no graph named so: an empty default graph, even though the query says FROM nothing
    q = f"ASK {{ <{EX}AchillesIDE> ?p ?o }}"
    assert client.get("/sparql", params={"query": q}).json()["boolean"] is True
    r = client.get("/sparql", params={"query": q, "default-graph-uri": "http://example.org/no-such-graph"})
    assert r.json()["boolean"] is False
    r = client.get("/sparql", params={"query": q, "default-graph-uri": "not an iri"})
    assert r.status_code == 400 and "bad-graph-uri" in r.text


def test_rows_over_the_cap_are_cut_and_flagged(example_db):
    with serve(example_db, max_rows=3) as c:
        r = c.get("/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"})
        assert r.status_code == 200 and len(r.json()["results"]["bindings"]) == 3
        assert r.headers["x-holokb-truncated"] == "max_results"


def test_update_refused_unless_allowed(client):
    r = client.post("/sparql", content="CLEAR ALL", headers={"Content-Type": "application/sparql-update"})
    assert r.status_code == 403 and "updates-disabled" in r.text
    assert client.get("/sparql", params={"update": "CLEAR ALL"}).status_code == 405


def test_error_statuses_of_the_protocol(client):
    assert client.put("/sparql", params={"query": "ASK {}"}).status_code == 405
    assert client.post("/sparql", content="ASK {}", headers={"Content-Type": "text/plain"}).status_code == 415
    assert client.get("/sparql", params=[("query", "ASK {}"), ("query", "ASK {}")]).status_code == 400
    assert client.get("/sparql").status_code == 400
    r = client.get("/sparql", params={"query": "ASK {}", "as-of": "yesterday-ish"})
    assert r.status_code == 400 and "bad-time" in r.text
