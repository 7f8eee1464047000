"""holokb ingest / holokb answer: exit codes, JSON contract on stdout, quoted sources in text."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNITS = """## Context Unit spec::u0
Claim: A session token expires after 15 minutes of inactivity.
Subject: session token
Relation: expires after
Object: 15 minutes
Confidence: 0.95
"""
PLAN = {"version": "v2.0", "goal": {"subject": "session token", "predicate": "expires after", "object": "?d"},
        "params": {"inactivityMinutes": 20},
        "check": {"tests": [{"left": {"param": "inactivityMinutes", "unit": "minutes"}, "op": ">", "right": "?d"}],
                  "derives": {"subject": "session token", "predicate": "session expired"}, "yesWhen": "fails"},
        "question": "If a user is inactive for 20 minutes in v2.0, is their session valid?"}


def run(*args: str, cwd: Path, ok: int = 0) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-m", "holokb", *args], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == ok, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    return p


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("ans")
    (d / "spec-v2.txt").write_text(UNITS, encoding="utf-8")
    (d / "plan.json").write_text(json.dumps(PLAN), encoding="utf-8")
    out = run("ingest", "spec-v2.txt", "--extractor", "context-units", "--version", "v2.0", "--at", "2026-01-01",
              "--format", "json", cwd=d).stdout
    report = json.loads(out)
    assert (report["docId"], report["facts"], report["chunksIngested"]) == ("spec-v2.txt", 1, 1)
    return d


def test_answer_json_is_the_contract_and_stable(project):
    a = run("answer", "--plan", "plan.json", "--format", "json", cwd=project).stdout
    b = run("answer", "--plan", "plan.json", "--format", "json", cwd=project).stdout
    assert a == b
    d = json.loads(a)
    assert (d["text"], d["verdict"], d["chunksUsed"]) == ("No", "supported", ["spec-v2.txt#p0"])
    assert [e["role"] for e in d["factChain"]] == ["premise", "derived", "conclusion"]
    assert d["factChain"][0]["evidence"][0]["text"].startswith("## Context Unit spec::u0")


def test_answer_text_quotes_the_source(project):
    out = run("answer", "--plan", "plan.json", cwd=project).stdout
    assert out.startswith("No    [supported]")
    assert "Claim: A session token expires after 15 minutes" in out
    assert "by builtin:compare" in out


def test_as_of_before_ingestion(project):
    d = json.loads(run("answer", "--plan", "plan.json", "--as-of", "2025-12-31", "--format", "json", cwd=project).stdout)
    assert d["verdict"] == "unsupported" and d["text"] is None


def test_bad_plan_files_and_usage(project):
    (project / "bad.json").write_text('{"goal": {"subject": "x"\n', encoding="utf-8")
    err = run("answer", "--plan", "bad.json", cwd=project, ok=1).stderr
    assert "bad.json:2:1: error[HK801]" in err
    (project / "odd.json").write_text('{"goal": {"subject": "x"}, "colour": 1}', encoding="utf-8")
    err = run("answer", "--plan", "odd.json", cwd=project, ok=1).stderr
    assert "HK803" in err and "HK804" in err
    assert "one of them" in run("answer", cwd=project, ok=2).stderr
    assert "one of them" in run("answer", "q?", "--plan", "plan.json", cwd=project, ok=2).stderr


def test_ingest_refuses_bad_documents_without_a_traceback(project):
    (project / "latin1.txt").write_bytes(b"caf\xe9")
    assert "HK820" in run("ingest", "latin1.txt", "--extractor", "context-units", cwd=project, ok=1).stderr
    (project / "empty.txt").write_text("", encoding="utf-8")
    assert "HK822" in run("ingest", "empty.txt", "--extractor", "context-units", cwd=project, ok=1).stderr
    assert "HK829" in run("ingest", "empty.txt", "--extractor", "nope", cwd=project, ok=1).stderr
    assert "exactly one of --llm-url" in run("ingest", "empty.txt", "--extractor", "llm", cwd=project, ok=2).stderr
