"""The W3C SPARQL 1.1 Protocol test suite (sparql11/protocol/manifest.ttl), run as data.

Every ht:Request of every test is sent to the in-process server in manifest order (the update
tests clear the store, so later tests depend on earlier ones exactly as the suite intends); the
expected status class, result format and boolean are checked.  The graphs named by ut:graphData
are loaded once, as named graphs labelled as the manifest says.  Updates carry the write token
(the suite assumes an open endpoint; holokb requires the token, which tests/server/test_security.py
checks separately).
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rdflib import Graph, Namespace, RDF, URIRef
from rdflib.collection import Collection

from _serving import TOKEN, load_db, serve

pytestmark = pytest.mark.conformance

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
HT = Namespace("http://www.w3.org/2011/http#")
CNT = Namespace("http://www.w3.org/2011/content#")
UT = Namespace("http://www.w3.org/2009/sparql/tests/test-update#")
RDFS_LABEL = URIRef("http://www.w3.org/2000/01/rdf-schema#label")
HTS = "http://www.w3.org/2011/http-statusCodes#StatusCode"


def _suite(corpora: Path) -> Path:
    d = corpora / "w3c_rdf_tests" / "sparql" / "sparql11" / "protocol"
    if not (d / "manifest.ttl").exists():
        pytest.skip(f"{d}/manifest.ttl not in the corpora")
    return d


def _tests(folder: Path):
    g = Graph().parse(folder / "manifest.ttl", format="turtle", publicID=(folder / "manifest.ttl").as_uri())
    manifest = next(g.subjects(RDF.type, MF.Manifest))
    for t in Collection(g, g.value(manifest, MF.entries)):
        requests = []
        action = g.value(t, MF.action)
        for r in Collection(g, g.value(action, HT.requests)):
            headers = {}
            hl = g.value(r, HT.headers)
            for h in (Collection(g, hl) if hl is not None else ()):
                headers[str(g.value(h, HT.fieldName))] = str(g.value(h, HT.fieldValue))
            body = g.value(r, HT.body)
            resp = g.value(r, HT.resp)
            requests.append({
                "method": str(g.value(r, HT.methodName)), "path": str(g.value(r, HT.absolutePath)),
                "headers": headers,
                "body": None if body is None else (str(g.value(body, CNT.chars)),
                                                   str(g.value(body, CNT.characterEncoding) or "UTF-8")),
                "status": {str(s)[len(HTS):] for s in g.objects(resp, MF.expectedStatus)},
                "format": None if g.value(resp, MF.expectedFormat) is None else str(g.value(resp, MF.expectedFormat)),
                "boolean": None if g.value(resp, MF.expectedBoolean) is None else g.value(resp, MF.expectedBoolean).toPython(),
            })
        data = [(Path(str(g.value(d, UT.graph))[len("file://"):]), str(g.value(d, RDFS_LABEL)))
                for d in g.objects(t, UT.graphData)]
        yield str(t).rsplit("#", 1)[-1], requests, data


def _boolean(r) -> bool:
    media = r.headers["content-type"].split(";")[0]
    if media == "application/sparql-results+json":
        return json.loads(r.text)["boolean"]
    assert media == "application/sparql-results+xml", media
    el = ET.fromstring(r.content).find("{http://www.w3.org/2005/sparql-results#}boolean")
    return el.text == "true"


_FORMATS = {
    "boolean": {"application/sparql-results+json", "application/sparql-results+xml"},
    "tabular": {"application/sparql-results+json", "application/sparql-results+xml", "text/csv",
                "text/tab-separated-values"},
    "RDF": {"text/turtle", "application/n-triples", "application/rdf+xml", "application/ld+json"},
}


def test_w3c_protocol_suite(corpora, tmp_path):
    folder = _suite(corpora)
    tests = list(_tests(folder))
    assert len(tests) == 34, "the manifest lists 34 protocol tests"
    trig = []
    for _, _, data in tests:
        for path, label in data:
            trig.append(f"<{label}> {{ {path.read_text()} }}\n")
    (tmp_path / "graphs.trig").write_text("".join(dict.fromkeys(trig)))
    db = load_db(tmp_path / "kb.db", [tmp_path / "graphs.trig"])
    failures = []
    with serve(db, rules=None, write_token=TOKEN, allow_update=True) as client:
        for name, requests, _ in tests:
            for i, req in enumerate(requests):
                headers = dict(req["headers"])
                content = None
                if req["body"] is not None:
                    text, encoding = req["body"]
                    content = text.encode(encoding)
                if "update" in headers.get("content-type", "") or "update=" in (req["body"] or ("",))[0]:
                    headers["Authorization"] = f"Bearer {TOKEN}"
                r = client.request(req["method"], req["path"], content=content, headers=headers)
                got = f"{r.status_code // 100}xx"
                why = None
                if got not in req["status"]:
                    why = f"status {r.status_code} not in {sorted(req['status'])}: {r.text[:200]!r}"
                elif r.status_code >= 400 and not r.text.strip():
                    why = "an error without a readable body"
                elif r.status_code in (401, 403):
                    why = f"refused by authorisation ({r.status_code}), not by the protocol check under test"
                elif req["format"] and r.headers["content-type"].split(";")[0] not in _FORMATS[req["format"]]:
                    why = f"content type {r.headers['content-type']} is not {req['format']}"
                elif req["boolean"] is not None and _boolean(r) != req["boolean"]:
                    why = f"boolean {not req['boolean']}, expected {req['boolean']}"
                if why:
                    failures.append(f"{name} request {i + 1}: {why}")
        assert client.get("/healthz").json()["ok"]
    assert not failures, "\n".join(failures)
