"""Writes without the token change nothing; the token never reaches the log; malformed requests get
4xx and leave the server healthy."""
from __future__ import annotations

import logging

import pytest

from _serving import TOKEN, serve

TTL = b"<http://example.org/Mallory> <http://example.org/locatedIn> <http://example.org/Vault> .\n"
ASK = "ASK { <http://example.org/Mallory> ?p ?o }"


def _state(client) -> tuple:
    return client.get("/stats").json(), client.get("/sparql", params={"query": ASK}).json()["boolean"]


@pytest.fixture
def logged(caplog):
    caplog.set_level(logging.INFO, logger="holokb.server")
    return caplog


def test_writes_without_the_right_token_are_refused_and_change_nothing(writable_db, logged):
    with serve(writable_db, write_token=TOKEN, allow_update=True) as c:
        before = _state(c)
        attempts = [
            ({}, 401), ({"Authorization": "Bearer wrong-token"}, 403), ({"Authorization": f"Basic {TOKEN}"}, 401),
            ({"Authorization": "Bearer "}, 401),
        ]
        for headers, status in attempts:
            r = c.post("/load", content=TTL, headers={"Content-Type": "text/turtle", **headers})
            assert r.status_code == status, r.text
            r = c.post("/sparql", content="INSERT DATA { <http://example.org/Mallory> <http://example.org/p> 1 }",
                       headers={"Content-Type": "application/sparql-update", **headers})
            assert r.status_code == status, r.text
        assert c.post("/load", content=TTL, headers={"Content-Type": "text/turtle"}).headers["www-authenticate"]
        # the token in the URL is refused even when it is right (URLs end up in logs and caches)
        r = c.post(f"/load?token={TOKEN}", content=TTL, headers={"Content-Type": "text/turtle"})
        assert r.status_code == 400 and "token-in-url" in r.text
        assert _state(c) == before
        # with the token the same write goes through (so the refusals above were about the token)
        r = c.post("/load", content=TTL, headers={"Content-Type": "text/turtle", "Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 200 and r.json()["facts"] == 1
        assert _state(c)[1] is True
    text = logged.text
    assert TOKEN not in text and "wrong-token" not in text
    assert "POST /load 401" in text and "POST /load 403" in text and "POST /load 200" in text


def test_a_server_without_a_token_refuses_every_write(writable_db):
    with serve(writable_db) as c:
        before = _state(c)
        r = c.post("/load", content=TTL, headers={"Content-Type": "text/turtle", "Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 403 and "writes-disabled" in r.text
        assert _state(c) == before


def test_rejected_load_leaves_the_ledger_as_it_was(writable_db, tmp_path):
    from _corpora import ROOT

    # a person with two names breaks shapes/domain.ttl (exactly one ex:name)
    two_names = b'@prefix ex: <http://example.org/> . ex:Eve a ex:Person ; ex:name "Eve", "Eva" .'
    with serve(writable_db, write_token=TOKEN, shapes=(str(ROOT / "shapes"),)) as c:
        before = _state(c)
        auth = {"Authorization": f"Bearer {TOKEN}"}
        r = c.post("/load", content=b"<http://a> <http://b> .", headers={"Content-Type": "text/turtle", **auth})
        assert r.status_code == 400 and r.headers["content-type"] == "application/problem+json"
        assert "line" in r.json()
        files = {"a": ("ok.ttl", TTL), "b": ("broken.nt", b"<http://x> <http://y> \"unterminated .\n")}
        r = c.post("/load", files=files, headers=auth)
        assert r.status_code == 400, r.text
        r = c.post("/load", files={"a": ("../../etc/passwd.ttl", TTL)}, headers=auth)
        assert r.status_code == 400 and "bad-file-name" in r.text
        r = c.post("/load", content=two_names, headers={"Content-Type": "text/turtle", **auth})
        assert r.status_code == 422 and "exactly one ex:name" in r.json()["detail"]
        assert _state(c) == before


@pytest.mark.parametrize("path", ["/static/../kb.py", "/static/%2e%2e/app.py", "/static/..%2f..%2fpyproject.toml",
                                  "/static/%2e%2e%2f%2e%2e%2fworker.py", "/static//etc/passwd"])
def test_path_traversal_in_static_paths_is_4xx(example_db, path):
    with serve(example_db) as c:
        r = c.get(path)
        assert 400 <= r.status_code < 500
        assert b"def " not in r.content and b"root:" not in r.content
        assert c.get("/static/app.js").status_code == 200


def test_malformed_requests_get_4xx_and_the_server_stays_healthy(example_db):
    with serve(example_db, max_body=1_000_000) as c:
        cases = [
            c.get("/sparql?query=%ZZ"), c.get("/sparql?query=%E9t%E9"), c.get("/facts?about=%"),
            c.post("/sparql", content=b"query=" + b"A" * 10_000_000, headers={"Content-Type": "application/x-www-form-urlencoded"}),
            c.post("/sparql", content=b"ASK {}", headers={"Content-Type": "application/json"}),
            c.post("/sparql", content="ASK {}".encode("utf-16"), headers={"Content-Type": "application/sparql-query"}),
            c.get("/sparql", params={"query": "ASK {}", "as-of": "2026-13-45"}),
            c.get("/sparql", params={"query": "ASK {}", "valid": "99999999999999999999999"}),
            c.get("/facts", params={"limit": "-3"}), c.get("/facts", params={"about": "no iri here"}),
            c.get("/explain", params={"fact": "ex:expired("}), c.get("/ask", params={"query": "?- ex:p(?x"}),
            c.get("/history", params={"subject": "ex:Alice"}),
        ]
        statuses = [r.status_code for r in cases]
        assert all(400 <= s < 500 for s in statuses), statuses
        assert statuses[3] == 413
        for r in cases:  # readable bodies, never a traceback
            assert r.text.strip() and "Traceback" not in r.text
        assert c.get("/healthz").json()["workers"] == 1
        assert c.get("/sparql", params={"query": "ASK { ?s ?p ?o }"}).json()["boolean"] is True


def test_streamed_body_over_the_limit_is_413(example_db):
    with serve(example_db, max_body=1000) as c:
        def chunks():
            for _ in range(50):
                yield b"x" * 100  # no Content-Length: the limit must hold while streaming
        r = c.post("/sparql", content=chunks(), headers={"Content-Type": "application/sparql-query"})
        assert r.status_code == 413
        assert c.get("/healthz").status_code == 200
