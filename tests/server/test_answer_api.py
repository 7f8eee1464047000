"""/ingest and /answer end to end: the DS005 worked example over HTTP, the same as kb.answer in-process."""
from __future__ import annotations

import json

from holokb import AsOf, KnowledgeBase

from _corpora import ROOT
from _serving import TOKEN, serve

HANDBOOK = (ROOT / "kb" / "docs" / "security-handbook.txt").read_bytes()
VERSIONED = "If a user is inactive for 20 minutes in v2.0, is their session valid?"
UNVERSIONED = "If a user is inactive for 20 minutes, is their session valid?"


def test_ingest_then_answer_both_ways(tmp_path):
    db = tmp_path / "kb.db"
    KnowledgeBase.open(db).close()
    with serve(db, rules=None, write_token=TOKEN) as c:
        r = c.post("/ingest", params={"doc-id": "security-handbook.txt", "at": "2026-01-01"}, content=HANDBOOK,
                   headers={"Content-Type": "text/plain"})
        assert r.status_code == 401  # no token, nothing read
        assert c.get("/stats").json()["facts"] == 0
        r = c.post("/ingest", params={"doc-id": "security-handbook.txt", "at": "2026-01-01"}, content=HANDBOOK,
                   headers={"Content-Type": "text/plain", "Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 200, r.text
        assert c.get("/stats").json()["facts"] > 0

        r = c.get("/answer", params={"question": VERSIONED})
        assert r.status_code == 200, r.text
        doc = r.json()
        assert (doc["verdict"], doc["text"]) == ("supported", "No")
        roles = [e["role"] for e in doc["factChain"]]
        assert roles[0] == "premise" and roles[-1] == "conclusion"
        for e in doc["factChain"]:
            for ev in e["evidence"]:
                chunk = doc["chunks"][f"{ev['document']}#{ev['chunk']}"]
                assert chunk[ev["charStart"]:ev["charEnd"]] == ev["text"]
        conflicting = c.get("/answer", params={"question": UNVERSIONED}).json()
        assert conflicting["verdict"] == "conflicting" and conflicting["text"] is None and conflicting["conflicts"]

        plan = json.dumps(doc["plan"])
        assert c.get("/answer", params={"plan": plan}).json()["verdict"] == "supported"
        assert c.get("/answer").status_code == 400
        assert c.get("/answer", params={"plan": "{not json"}).status_code == 400

    with KnowledgeBase.open(db) as kb:  # the HTTP answer is kb.answer's, byte for byte in the contract part
        direct = kb.answer(VERSIONED, as_of=AsOf.latest()).to_json()
    assert {k: v for k, v in doc.items() if k not in ("chunks", "prefixes")} == direct
