"""holokb similar, search and prove --intuition on the example project: output, exit codes, bad input."""
from __future__ import annotations

import json

import pytest

from test_cli import project, run  # noqa: F401  (the example project, loaded once per module)


def test_similar_lists_the_closest_entities_with_scores(project):
    out = run("similar", "ex:AchillesIDE", "--k", "3", cwd=project).stdout
    lines = out.strip().splitlines()
    assert len(lines) == 4 and lines[1].split()[1] == "ex:HermesCLI"
    js = json.loads(run("similar", "ex:AchillesIDE", "--k", "3", "--format", "json", cwd=project).stdout)
    assert [e["score"] for e in js["entities"]] == sorted((e["score"] for e in js["entities"]), reverse=True)
    again = json.loads(run("similar", "ex:AchillesIDE", "--k", "3", "--format", "json", cwd=project).stdout)
    assert again["entities"] == js["entities"] and again["index"]["source"] == "disk"


def test_similar_facts_with_hrr(project):
    out = run("similar", "ex:AchillesIDE", "--facts", "--k", "2", "-r", "hrr", cwd=project).stdout
    assert "ex:AchillesIDE ex:uses ex:libsandbox" in out and "ex:AchillesIDE ex:uses ex:libindex" in out


def test_search_fuses_lanes_and_says_which_found_each_hit(project):
    js = json.loads(run("search", "sandboxing tools", "--k", "8", "--as-of", "2026-01-01", "--format", "json",
                        cwd=project).stdout)
    assert 0 < len(js["hits"]) <= 8
    top = js["hits"][0]
    assert top["document"] == "tools.txt" and {l["lane"] for l in top["lanes"]} == {"bm25", "vsa"}
    text = run("search", "sandboxing tools", "--k", "8", "--as-of", "2026-01-01", cwd=project).stdout
    assert "bm25 #1" in text and "libsandbox provides sandboxing" in text


def test_search_with_the_thinkingdb_profile_cuts_at_eight(project):
    js = json.loads(run("search", "policy session token inactivity AchillesIDE Lab", "--profile", "thinkingdb",
                        "--format", "json", cwd=project).stdout)
    assert len(js["hits"]) <= 8 and js["profile"] == "thinkingdb"
    assert set(js["lanesWithSignal"]) <= {"bm25", "structured"}


@pytest.mark.parametrize("args,code,needle", [
    (("similar", "ex:Nobody"), 1, "unknown entity"),
    (("similar", "ex:AchillesIDE", "--k", "0"), 2, "--k"),
    (("similar", "ex:AchillesIDE", "-r", "dense"), 2, "representation"),
    (("similar", "ex:AchillesIDE", "--dim", "100"), 2, "multiple of 64"),
    (("search", ""), 1, "HK710"),
    (("search", "x" * 100_000), 1, "HK711"),
    (("search", "tools", "--profile", "nope"), 1, "HK702"),
])
def test_bad_input_is_a_clear_error_never_a_traceback(project, args, code, needle):
    p = run(*args, cwd=project, ok=code)
    assert needle in p.stderr and "Traceback" not in p.stderr


def test_a_profile_file_with_unknown_lanes_or_negative_weights(project, tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"profiles": {"mine": {"lanes": {"ouija": {"weight": 1}, "bm25": {"weight": -1}}}}}))
    p = run("search", "tools", "--profiles", str(f), "--profile", "mine", cwd=project, ok=1)
    assert "HK706" in p.stderr and "HK707" in p.stderr and "Traceback" not in p.stderr
    f.write_text(json.dumps({"profiles": {"mine": {"lanes": {"bm25": {"weight": 2}}, "maxResults": 1}}}))
    js = json.loads(run("search", "libindex", "--profiles", str(f), "--profile", "mine", "--format", "json",
                        cwd=project).stdout)
    assert len(js["hits"]) == 1


def test_a_corrupt_index_file_is_rebuilt(project):
    run("similar", "ex:AchillesIDE", cwd=project)
    for f in (project / "holokb.db.vsa").glob("*.npz"):
        f.write_bytes(b"garbage")
    js = json.loads(run("similar", "ex:AchillesIDE", "--format", "json", cwd=project).stdout)
    assert js["index"]["source"] == "built" and js["entities"][0]["entity"].endswith("HermesCLI")


def test_prove_with_intuition_reports_rounds_and_candidate_set(project):
    js = json.loads(run("prove", "ex:hasCapability(ex:AchillesIDE, ex:sandboxing)", "--intuition", "hdc",
                        "--format", "json", cwd=project).stdout)
    assert js["status"] == "entailed" and js["candidates"] < js["kbFacts"] and js["rounds"]
    out = run("prove", "ex:hasCapability(ex:AchillesIDE, ex:sandboxing)", "--intuition", "hrr", "--solver", "cvc5",
              cwd=project).stdout
    assert out.startswith("entailed") and "candidate set" in out
    p = run("prove", "ex:hasCapability(ex:AchillesIDE, ex:sandboxing)", "--intuition", "magic", cwd=project, ok=2)
    assert "none, hrr or hdc" in p.stderr


def test_answer_with_intuition_says_rounds_and_candidate_set(project):
    (project / "pw.txt").write_text("Bob is big. Bob is round. Round people are kind. Anne is green.\n")
    run("ingest", "pw.txt", "--at", "2026-01-02", cwd=project)
    js = json.loads(run("answer", "Bob is kind.", "--intuition", "hdc", "--format", "json", cwd=project).stdout)
    base = json.loads(run("answer", "Bob is kind.", "--format", "json", cwd=project).stdout)
    assert (js["verdict"], js["text"]) == (base["verdict"], base["text"]) == ("supported", "Yes")
    i = js["intuition"]
    assert i["strategy"] == "hdc" and i["rounds"] >= 1 and i["candidates"] < i["kbFacts"] and i["stop"] == "decided"
    out = run("answer", "Bob is kind.", "--intuition", "hrr", cwd=project).stdout
    assert out.startswith("Yes") and "intuition: hrr" in out and "candidate set" in out
    p = run("answer", "Bob is kind.", "--intuition", "psychic", cwd=project, ok=2)
    assert "none, hrr or hdc" in p.stderr and "Traceback" not in p.stderr


@pytest.fixture(scope="module")
def noisy(tmp_path_factory):
    """Thirty facts about other people, then the one premise the question needs (last in source order)."""
    from test_cli_answer import run as run_answer

    d = tmp_path_factory.mktemp("fusedcli")
    (d / "a-noise.txt").write_text(" ".join(f"Person{i} is green." for i in range(30)), encoding="utf-8")
    (d / "zz-bob.txt").write_text("Bob is big. If Bob is big then the cat is red.", encoding="utf-8")
    run_answer("ingest", "a-noise.txt", "zz-bob.txt", "--at", "2026-01-01", cwd=d)
    return d


def test_answer_with_fused_retrieval_keeps_the_relevant_facts_under_a_tight_cap(noisy):
    from test_cli_answer import run as run_answer

    ask = ("answer", "The cat is red.", "--limit-facts", "2", "--format", "json")
    fused = json.loads(run_answer(*ask, "--retrieval", "fused", cwd=noisy).stdout)
    base = json.loads(run_answer(*ask, cwd=noisy).stdout)
    full = json.loads(run_answer("answer", "The cat is red.", "--format", "json", cwd=noisy).stdout)
    assert (full["verdict"], full["text"]) == ("supported", "Yes")
    assert (fused["verdict"], fused["text"]) == ("supported", "Yes")
    assert base["text"] != "Yes"  # the baseline's order spends the cap on the noise
    again = run_answer(*ask, "--profile", "default", cwd=noisy).stdout  # a profile implies fused retrieval
    assert json.loads(again) == fused


def test_answer_retrieval_option_errors(noisy):
    from test_cli_answer import run as run_answer

    assert "structured or fused" in run_answer("answer", "The cat is red.", "--retrieval", "magic", cwd=noisy, ok=2).stderr
    assert "go with --retrieval fused" in run_answer("answer", "The cat is red.", "--retrieval", "structured",
                                                     "--profile", "thinkingdb", cwd=noisy, ok=2).stderr
    assert "give one" in run_answer("answer", "The cat is red.", "--retrieval", "fused", "--intuition", "hdc",
                                    cwd=noisy, ok=2).stderr
    err = run_answer("answer", "The cat is red.", "--retrieval", "fused", "--profile", "nope", cwd=noisy, ok=1).stderr
    assert "HK702" in err
