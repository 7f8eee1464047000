"""check / derive / ask / explain / prove / check --consistency on the example project, end to end."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_cli import run


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("reasoning")
    run("init", str(d), cwd=d)
    run("load", "kb/", "--at", "2026-01-01", cwd=d)
    return d


def test_check_reports_every_mistake_with_location_and_exit_1(project, tmp_path):
    bad = tmp_path / "bad.hkr"
    bad.write_text("@prefix ex: <http://example.org/> .\n"
                   "rule r1: ex:p(?x, ?y) :- ex:q(?x).\n"
                   "rule r2: ex:a(?x) :- ex:b(?x), not ex:c(?x, ?z), ?w > 3.\n")
    p = run("check", str(bad), cwd=project, ok=1)
    assert "bad.hkr:2:" in p.stderr and "bad.hkr:3:" in p.stderr
    assert p.stderr.count("error[") >= 3


def test_derive_at_two_valid_times_differs_by_policy_version(project):
    before = json.loads(run("derive", "--valid", "2026-02-01", "--format", "json", cwd=project).stdout)
    after = json.loads(run("derive", "--valid", "2026-04-01", "--format", "json", cwd=project).stdout)
    assert before["ruleCounts"]["token_expired"] == 0
    assert after["ruleCounts"]["token_expired"] == 1
    assert before["ruleSetHash"] == after["ruleSetHash"] and not after["truncated"]


def test_derive_budget_reports_truncation_instead_of_failing(project):
    out = json.loads(run("derive", "--max-derived", "1", "--format", "json", cwd=project).stdout)
    assert out["truncated"] is True and out["limitHit"] == "max_derived"


def test_ask_is_goal_directed_and_matches_the_data(project):
    out = run("ask", "?- ex:hasCapability(ex:AchillesIDE, ?c).", cwd=project).stdout
    assert "?c = ex:codeSearch" in out and "?c = ex:sandboxing" in out
    none = run("ask", "?- ex:hasCapability(ex:HermesCLI, ex:sandboxing).", cwd=project).stdout
    assert "no answers" in none


def test_explain_goes_down_to_source_text_with_the_interval(project):
    out = run("explain", "ex:expired(ex:supportConsoleToken)", "--valid", "2026-04-01", cwd=project).stdout
    assert "holds over [2026-03-01T00:00:00Z, +inf)" in out
    assert "by rule token_expired" in out
    assert '"Policy v2.0 takes effect on 2026-03-01 and shortens the inactivity timeout to 15 minutes"' in out
    proof = json.loads(run("explain", "ex:expired(ex:supportConsoleToken)", "--valid", "2026-04-01",
                           "--format", "json", cwd=project).stdout)
    leaves = [n for n in proof["proof"]["nodes"].values() if n["rule"] is None]
    assert len(leaves) == 3 and all("factId" in n for n in leaves)
    run("explain", "ex:expired(ex:supportConsoleToken)", "--valid", "2026-02-01", cwd=project, ok=1)


def test_prove_entailed_then_unknown_before_the_policy_change(project):
    yes = json.loads(run("prove", "ex:expired(ex:supportConsoleToken)", "--valid", "2026-04-01",
                         "--format", "json", cwd=project).stdout)
    assert yes["status"] == "entailed" and "rule token_expired" in yes["constraints"]
    assert {f["predicate"].rsplit("/", 1)[1] for f in yes["facts"]} == {"inactiveFor", "governedBy", "sessionTimeout"}
    no = json.loads(run("prove", "ex:expired(ex:supportConsoleToken)", "--valid", "2026-02-01",
                        "--format", "json", cwd=project).stdout)
    assert no["status"] == "unknown"


def test_consistency_finds_the_conflicting_facts_with_evidence(project, tmp_path):
    run("check", "--consistency", "--valid", "2026-01-01T10:00Z", cwd=project)
    badge = tmp_path / "badge.trig"
    badge.write_text(
        "@prefix ex: <http://example.org/> .\n@prefix hk: <https://w3id.org/holokb/> .\n"
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:g { ex:Alice ex:locatedIn ex:ServerRoom . }\n"
        'ex:g hk:document "badge-reader.log" ; hk:confidence 0.6 ;\n'
        '  hk:validFrom "2026-01-01T09:30:00Z"^^xsd:dateTime ; hk:validTo "2026-01-01T11:00:00Z"^^xsd:dateTime .\n')
    db = tmp_path / "copy.db"
    run("load", "kb/", str(badge), "--at", "2026-01-02", "--db", str(db), cwd=project)
    p = run("check", "--consistency", "--valid", "2026-01-01T10:00Z", "--db", str(db), "--format", "json",
            cwd=project, ok=1)
    out = json.loads(p.stdout)
    assert out["status"] == "inconsistent" and out["constraints"] == ["constraint one_location"]
    places = sorted(f["args"][1].rsplit("/", 1)[1] for f in out["conflict"])
    assert places == ["Lab", "ServerRoom"]
    assert ["badge-reader.log"] in [f["evidence"] for f in out["conflict"]]
    # after Alice left the server room the facts agree again
    run("check", "--consistency", "--valid", "2026-01-01T11:30Z", "--db", str(db), cwd=project)


def test_eval_deduction_prints_the_accuracy_line(corpora, tmp_path, project):
    out = tmp_path / "preds.jsonl"
    p = run("eval", "deduction", str(corpora / "logical_deduction" / "train.json"), "--limit", "5",
            "--out", str(out), cwd=project)
    assert p.stdout.strip() == "accuracy=1.0000 n=5"
    assert len(out.read_text().splitlines()) == 5


def test_derive_stores_the_closure_and_new_assertions_make_it_stale(project, tmp_path):
    db = str(tmp_path / "stored.db")
    run("load", "kb/", "--at", "2026-01-01", "--db", db, cwd=project)
    args = ("--valid", "2026-04-01", "--as-of", "2026-01-02", "--db", db)
    first = json.loads(run("facts", "--derived", *args, "--format", "json", cwd=project).stdout)
    assert first["source"] == "computed"
    stored = json.loads(run("derive", *args, "--format", "json", cwd=project).stdout)
    assert isinstance(stored["storedClosure"], int)
    again = json.loads(run("facts", "--derived", *args, "--format", "json", cwd=project).stdout)
    assert again["source"] == "stored"
    canon = lambda facts: sorted(json.dumps(f, sort_keys=True) for f in facts)  # noqa: E731
    assert canon(again["facts"]) == canon(first["facts"]) and len(first["facts"]) == 6
    extra = tmp_path / "extra.ttl"
    extra.write_text("@prefix ex: <http://example.org/> .\nex:NewTool ex:uses ex:libsandbox .\n")
    run("load", str(extra), "--at", "2026-01-03", "--db", db, cwd=project)
    # a write at a later system time than the closure's AsOf cannot change it (issue 8): still fresh
    later = json.loads(run("facts", "--derived", *args, "--format", "json", cwd=project).stdout)
    assert later["source"] == "stored"
    latest = ("--valid", "2026-04-01", "--db", db)
    run("derive", *latest, cwd=project)
    more = tmp_path / "more.ttl"
    more.write_text("@prefix ex: <http://example.org/> .\nex:OtherTool ex:uses ex:libsandbox .\n")
    run("load", str(more), "--at", "2026-01-04", "--db", db, cwd=project)
    stale = json.loads(run("facts", "--derived", *latest, "--format", "json", cwd=project).stdout)
    assert stale["source"] == "stale"
    text = run("facts", "--derived", *latest, cwd=project).stdout
    assert "is stale" in text and "holokb derive" in text


def test_a_conclusion_through_not_holds_only_while_the_negated_fact_is_absent(project):
    # Issue 8 #2: Alice is in the Lab on 2026-01-01 09:00–18:00, so ex:unplaced(ex:Alice) holds before
    # and after, never [-inf, +inf), and the explanation names the absent premise with its interval.
    out = run("explain", "ex:unplaced(ex:Alice)", "--valid", "2026-04-01", cwd=project).stdout
    assert "holds over [2026-01-01T18:00:00Z, +inf)" in out
    assert "not ex:locatedIn(ex:Alice, ?_)  absent throughout [2026-01-01T18:00:00Z, +inf)" in out
    run("explain", "ex:unplaced(ex:Alice)", "--valid", "2026-01-01T10:00Z", cwd=project, ok=1)
    asked = run("ask", "?- ex:unplaced(ex:Alice).", "--valid", "2026-01-01T10:00Z", cwd=project).stdout
    assert "no answers" in asked
    proof = json.loads(run("explain", "ex:unplaced(ex:Alice)", "--valid", "2026-04-01", "--format", "json",
                           cwd=project).stdout)
    absent = [n for n in proof["proof"]["nodes"].values() if n["absent"]]
    assert len(absent) == 1 and absent[0]["args"][1] == {"type": "any"}


def test_derive_all_valid_lists_every_maximal_interval(project):
    out = run("derive", "--all-valid", "--show", "100", cwd=project).stdout
    alice = [line for line in out.splitlines() if "rdf:type(ex:Alice, ex:unplaced)" in line]
    assert [line.split("valid ")[1].split("  by")[0] for line in alice] == [
        "[-inf, 2026-01-01T09:00:00Z)", "[2026-01-01T18:00:00Z, +inf)"]
    assert "over all valid time" in out and "stored as closure" not in out


def test_derive_ask_and_query_take_a_default_deadline_that_none_lifts(project):
    out = json.loads(run("derive", "--timeout", "none", "--no-store", "--format", "json", cwd=project).stdout)
    assert out["truncated"] is False and out["derived"] == sum(out["ruleCounts"].values())
    for cmd in (["derive"], ["ask", "?- ex:unplaced(?x)."], ["query", "SELECT * WHERE { ?s ?p ?o } LIMIT 1"]):
        p = run(*cmd, "--timeout", "soon", cwd=project, ok=2)
        assert "--timeout takes seconds or 'none'" in p.stderr
    assert "Default: 300.0" in run("derive", "--help", cwd=project).stdout


def test_a_derive_whose_deadline_passes_stores_a_truncated_closure(project, tmp_path):
    import shutil

    db = tmp_path / "copy.db"
    shutil.copy(project / "holokb.db", db)
    out = json.loads(run("derive", "--timeout", "0.000001", "--db", str(db), "--format", "json", cwd=project).stdout)
    assert out["truncated"] is True and out["limitHit"] == "timeout" and out["storedClosure"] is not None


def test_derive_reads_the_program_from_the_cache_and_an_edit_is_seen(tmp_path, monkeypatch):
    """The second derive with the same rule file uses the cached program (same output); an edit that
    keeps the file's size and time stamp is a miss (the entry is keyed by the bytes)."""
    import os

    monkeypatch.setenv("HOLOKB_CACHE_DIR", str(tmp_path / "cache"))
    d = tmp_path / "p"
    d.mkdir()
    (d / "kb.ttl").write_text("@prefix ex: <http://example.org/> .\nex:a ex:p ex:b .\n")
    rules = d / "r.hkr"
    rules.write_text("@prefix ex: <http://example.org/> .\nrule r: ex:q(?x, ?y) :- ex:p(?x, ?y).\n")
    run("load", "kb.ttl", "--at", "2026-01-01", "--db", "kb.db", cwd=d)
    first = json.loads(run("derive", "--rules", "r.hkr", "--db", "kb.db", "--format", "json", cwd=d).stdout)
    entries = list((tmp_path / "cache" / "programs").glob("program-*.pickle"))
    assert len(entries) == 1
    second = json.loads(run("derive", "--rules", "r.hkr", "--db", "kb.db", "--format", "json", cwd=d).stdout)
    first.pop("storedClosure"), second.pop("storedClosure")  # the second replaces the first closure
    assert second == first and second["ruleCounts"] == {"r": 1}
    st = rules.stat()
    rules.write_text(rules.read_text().replace("rule r:", "rule s:"))
    os.utime(rules, ns=(st.st_atime_ns, st.st_mtime_ns))
    third = json.loads(run("derive", "--rules", "r.hkr", "--db", "kb.db", "--format", "json", cwd=d).stdout)
    assert third["ruleCounts"] == {"s": 1} and third["ruleSetHash"] != first["ruleSetHash"]
    assert len(list((tmp_path / "cache" / "programs").glob("program-*.pickle"))) == 2
