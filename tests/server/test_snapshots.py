"""After a write, readers in both lanes see the new data at once, and every SPARQL answer says
which ledger version and AsOf it reflects; point lookups go to the fast lane."""
from __future__ import annotations

from holokb.core import parse_instant
from holokb.core import AsOf
from holokb.server.jobs import FactsRead, LoadFiles, SparqlQuery, StatsRead
from holokb.server.lanes import Lane, is_point_query, lane_of

from _serving import TOKEN, serve

EX = "http://example.org/"
POINT = f"SELECT ?p ?o WHERE {{ <{EX}Zed> ?p ?o }}"
JOIN = f"SELECT ?x ?c WHERE {{ ?x <{EX}hasCapability> ?c . ?x <{EX}uses> ?l }}"  # general lane (a join)
AUTH = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/n-triples"}
JSON = {"Accept": "application/sparql-results+json"}


def rows(r):
    assert r.status_code == 200, r.text
    return {tuple(b[v]["value"] for v in sorted(b)) for b in r.json()["results"]["bindings"]}


def stamp(r) -> tuple[int, str]:
    return int(r.headers["x-holokb-ledger-version"]), r.headers["x-holokb-as-of"]


def test_readers_see_each_write_at_once_with_its_version_and_as_of(writable_db):
    with serve(writable_db, write_token=TOKEN, workers=1) as c:
        before = c.get("/sparql", params={"query": POINT}, headers=JSON)
        assert rows(before) == set()
        v0, _ = stamp(before)
        # a write no rule reads (ex:label), then one the rules read (ex:uses → ex:hasCapability)
        at1, at2 = parse_instant("2026-03-01"), parse_instant("2026-03-02")
        w = c.post("/load", params={"at": "2026-03-01"}, headers=AUTH,
                   content=f'<{EX}Zed> <{EX}label> "Zed" .\n'.encode())
        assert w.status_code == 200, w.text
        v1 = w.json()["version"]
        assert v1 > v0
        for q in (POINT, JOIN):
            r = c.get("/sparql", params={"query": q}, headers=JSON)
            assert stamp(r) == (v1, f"system={at1}; valid=latest"), q
        assert rows(c.get("/sparql", params={"query": POINT}, headers=JSON)) == {("Zed", EX + "label")}  # (?o, ?p)
        w = c.post("/load", params={"at": "2026-03-02"}, headers=AUTH,
                   content=f"<{EX}Zed> <{EX}uses> <{EX}libsandbox> .\n".encode())
        assert w.status_code == 200, w.text
        v2 = w.json()["version"]
        point = c.get("/sparql", params={"query": POINT}, headers=JSON)
        assert stamp(point) == (v2, f"system={at2}; valid=latest")
        # the derived triple is there in the fast lane's snapshot and in the general lane's
        assert (EX + "sandboxing", EX + "hasCapability") in rows(point)
        join = c.get("/sparql", params={"query": JOIN}, headers=JSON)
        assert stamp(join) == (v2, f"system={at2}; valid=latest")
        assert (EX + "sandboxing", EX + "Zed") in rows(join)
        # an explicit AsOf is reported as asked, and shows the KB before both writes
        old = c.get("/sparql", params={"query": POINT, "as-of": "2026-02-01"}, headers=JSON)
        assert rows(old) == set() and stamp(old)[1] == f"system={parse_instant('2026-02-01')}; valid=" \
                                                      f"{parse_instant('2026-02-01')}"


def test_point_lookups_are_told_from_other_queries():
    assert is_point_query(POINT)
    assert is_point_query(f"PREFIX ex: <{EX}> SELECT * {{ ex:a ex:p ?x ; ex:q ?y , ?z . ex:b a ?t }} LIMIT 5")
    assert is_point_query(f'ASK {{ <{EX}a> <{EX}p> "x"@en }}')
    for q in (JOIN, "SELECT ?s WHERE { ?s ?p ?o }", f"SELECT * {{ <{EX}a> ?p ?o . <{EX}b> ?q ?r }}",
              f"SELECT ?x {{ <{EX}a> <{EX}p> ?x FILTER(?x > 1) }}", f"SELECT ?x {{ <{EX}a> <{EX}p>/<{EX}q> ?x }}",
              f"SELECT ?x {{ <{EX}a> <{EX}p> ?x }} ORDER BY ?x", f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ <{EX}a> ?p ?o }}",
              f"SELECT ?x {{ <{EX}a> <{EX}p> ?x OPTIONAL {{ <{EX}a> <{EX}q> ?y }} }}",
              f"SELECT (COUNT(*) AS ?n) {{ <{EX}a> ?p ?o }}", f"SELECT ?x {{ _:b <{EX}p> ?x }}",
              f"SELECT ?x {{ <{EX}a> <{EX}p> 12 }}"):
        assert not is_point_query(q), q


def test_jobs_go_to_their_lanes():
    def sparql(q, view=False):
        return SparqlQuery(q, AsOf.latest(), "json", "application/sparql-results+json", ledger_view=view)

    assert lane_of(sparql(POINT)) is Lane.FAST
    assert lane_of(sparql(POINT, view=True)) is Lane.GENERAL  # the ledger view is large
    assert lane_of(sparql(JOIN)) is Lane.GENERAL
    assert lane_of(FactsRead("ex:a", None, AsOf.latest(), 10)) is Lane.FAST
    assert lane_of(FactsRead("ex:a", None, AsOf.latest(), 10, derived=True)) is Lane.GENERAL  # a closure
    assert lane_of(LoadFiles((("a.nt", b""),), 1)) is Lane.WRITE
    assert lane_of(StatsRead()) is Lane.GENERAL
