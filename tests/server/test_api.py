"""The JSON API: each endpoint against what the KB itself says, the OpenAPI document, and /load."""
from __future__ import annotations

import pytest

from holokb import AsOf, KnowledgeBase
from holokb.core import IRI, parse_instant
from holokb.jsonviews import fact_view_json

from _serving import TOKEN, serve

EX = "http://example.org/"


@pytest.fixture(scope="module")
def client(example_db):
    with serve(example_db) as c:
        yield c


def test_facts_are_what_the_kb_returns(client, example_db):
    at = AsOf.at(parse_instant("2026-01-01T10:00Z"))
    with KnowledgeBase.open(example_db) as kb:
        want = [fact_view_json(v) for v in kb.facts(IRI(EX + "Alice"), as_of=at)]
    r = client.get("/facts", params={"about": "ex:Alice", "as-of": "2026-01-01T10:00Z"})
    assert r.status_code == 200 and r.json()["facts"] == want and want
    r2 = client.get("/facts", params={"about": f"<{EX}Alice>", "as-of": str(at.system)})
    assert r2.json()["facts"] == want


def test_history_has_both_time_axes(client):
    r = client.get("/history", params={"subject": "ex:Alice", "predicate": "ex:locatedIn"})
    spans = r.json()["spans"]
    assert len(spans) >= 2 and all(len(s["valid"]) == 2 and len(s["system"]) == 2 for s in spans)


def test_ask_and_derived_facts_agree(client):
    r = client.get("/ask", params={"query": "?- ex:hasCapability(ex:AchillesIDE, ?c)."})
    got = sorted(row["c"]["value"] for row in r.json()["rows"])
    assert got == [EX + "codeSearch", EX + "sandboxing"]
    r = client.get("/facts", params={"about": "ex:AchillesIDE", "predicate": "ex:hasCapability", "derived": "true"})
    assert sorted(f["args"][1]["value"] for f in r.json()["facts"]) == got


def test_explain_carries_the_proof_and_the_chunks_it_quotes(client):
    r = client.get("/explain", params={"fact": "ex:expired(ex:supportConsoleToken)", "valid": "2026-04-01"})
    doc = r.json()
    assert doc["holds"] is True
    nodes = doc["proof"]["nodes"]
    root = nodes[doc["proof"]["root"]]
    assert root["rule"] == "token_expired" and len(root["premises"]) == 3
    quoted = [(e["document"], e["chunk"], e["charStart"], e["charEnd"]) for n in nodes.values() for e in n.get("evidence", [])]
    assert quoted
    for d, ch, a, b in quoted:
        assert doc["chunks"][f"{d}#{ch}"][a:b].strip()
    r = client.get("/explain", params={"fact": "ex:expired(ex:supportConsoleToken)", "valid": "2026-02-01"})
    assert r.json()["holds"] is False


def test_stats_and_openapi(client, example_db):
    with KnowledgeBase.open(example_db) as kb:
        assert client.get("/stats").json() == kb.stats()
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    for path in ("/sparql", "/sparql/ledger", "/facts", "/history", "/ask", "/explain", "/stats", "/load"):
        assert path in spec["paths"], path
    params = {p["name"] for p in spec["paths"]["/facts"]["get"]["parameters"]}
    assert {"about", "predicate", "as-of", "valid", "limit", "derived"} <= params
    assert client.get("/docs").status_code == 404  # the CDN-based docs page is off


def test_load_files_in_one_batch(writable_db):
    with serve(writable_db, write_token=TOKEN) as c:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        doc = b"Carol works in the lab.\n"
        trig = (b"@prefix ex: <http://example.org/> . @prefix hk: <https://w3id.org/holokb/> .\n"
                b"@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
                b"ex:src_carol { ex:Carol ex:locatedIn ex:Lab . }\n"
                b"ex:src_carol hk:document \"carol.txt\" ; hk:chunk \"p0\" ; hk:charStart 0 ; hk:charEnd 22 ; "
                b"hk:confidence 0.8 .\n")
        r = c.post("/load", params={"at": "2026-02-01"}, headers=auth,
                   files=[("file", ("carol.txt", doc)), ("file", ("carol.trig", trig))])
        assert r.status_code == 200, r.text
        assert r.json()["facts"] == 1 and r.json()["documents"] == 1
        facts = c.get("/facts", params={"about": "ex:Carol", "as-of": "2026-02-02"}).json()["facts"]
        (ev,) = facts[0]["evidence"]
        assert (ev["document"], ev["chunk"], ev["charStart"], ev["charEnd"]) == ("carol.txt", "p0", 0, 22)
        assert c.get("/facts", params={"about": "ex:Carol", "as-of": "2026-01-15"}).json()["facts"] == []
