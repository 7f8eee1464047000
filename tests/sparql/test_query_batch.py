"""`holokb query -f a.rq -f b.rq` (or -f folder/) runs every query on one snapshot: each result after
a line naming its file, byte for byte what one command per file prints; a bad file gets its own
diagnostic and the others still run; one --timeout covers them all."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from _cli import holokb

EX = "http://example.org/"
DATA = f"""@prefix ex: <{EX}> .
ex:alice ex:uses ex:editor ; ex:age 41 .
ex:bob ex:uses ex:shell .
ex:editor ex:provides ex:search .
ex:shell ex:provides ex:scripting .
"""
RULE = f"""@prefix ex: <{EX}> .
rule cap: ex:hasCapability(?x, ?z) :- ex:uses(?x, ?y), ex:provides(?y, ?z).
"""
QUERIES = {
    "a.rq": f"SELECT ?x ?c WHERE {{ ?x <{EX}hasCapability> ?c }}",
    "b.rq": f"ASK {{ <{EX}alice> <{EX}age> 41 }}",
    "c.rq": f"CONSTRUCT {{ ?x <{EX}can> ?c }} WHERE {{ ?x <{EX}hasCapability> ?c }}",
}
HEADER = re.compile(r"^==> (.*) <==$", re.M)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "data.ttl").write_text(DATA)
    (tmp_path / "r.hkr").write_text(RULE)
    (tmp_path / "qs").mkdir()
    for name, text in QUERIES.items():
        (tmp_path / "qs" / name).write_text(text)
    holokb("load", "data.ttl", "--db", "kb.db", "--at", "2026-01-01", cwd=tmp_path)
    return tmp_path


def sections(out: str) -> dict[str, str]:
    parts = HEADER.split(out)
    assert parts[0] == ""  # nothing before the first header
    return dict(zip(parts[1::2], (p[1:] for p in parts[2::2])))  # p[1:]: the header's line break


@pytest.mark.parametrize("fmt", ["tsv", "table"])
def test_a_batch_prints_what_one_command_per_file_prints(project, fmt):
    common = ("--rules", "r.hkr", "--db", "kb.db", "--format", fmt)
    fmt_of = {"c.rq": "ntriples" if fmt == "tsv" else "table"}
    single = {f"qs/{n}": holokb("query", "-f", f"qs/{n}", *common[:-1], fmt_of.get(n, fmt), cwd=project).stdout
              for n in QUERIES if n != "c.rq"}
    batch = holokb("query", "-f", "qs/a.rq", "-f", "qs/b.rq", *common, cwd=project)
    assert sections(batch.stdout) == single
    assert batch.stderr.count("rules: closed under") == 1
    # a folder: its .rq files in name order; tsv does not fit c.rq's graph, so under tsv it fails,
    # reported by name, while a and b still run
    folder = holokb("query", "-f", "qs", *common, cwd=project, ok=0 if fmt == "table" else 1)
    got = sections(folder.stdout)
    assert list(got) == ["qs/a.rq", "qs/b.rq", "qs/c.rq"]
    assert {k: got[k] for k in single} == single
    if fmt == "table":
        assert got["qs/c.rq"] == holokb("query", "-f", "qs/c.rq", *common, cwd=project).stdout
    else:
        assert got["qs/c.rq"] == "" and "qs/c.rq: " in folder.stderr and "does not fit" in folder.stderr


def test_a_file_that_does_not_parse_or_read_is_reported_and_the_others_run(project):
    (project / "bad.rq").write_text("SELECT ?x WHERE {\n  ?x ?p \n")
    p = holokb("query", "-f", "bad.rq", "-f", "qs/a.rq", "-f", "missing.rq", "--rules", "r.hkr", "--db", "kb.db",
               "--format", "tsv", cwd=project, ok=2)
    got = sections(p.stdout)
    assert got["bad.rq"] == "" and got["missing.rq"] == ""
    assert got["qs/a.rq"].splitlines()[0] == "?x\t?c" and len(got["qs/a.rq"].splitlines()) == 3
    assert "bad.rq:" in p.stderr and "HK500" in p.stderr and "missing.rq" in p.stderr
    # every file bad: no snapshot is built, the worst exit code stands
    p = holokb("query", "-f", "bad.rq", "-f", "bad.rq", "--rules", "r.hkr", "--db", "kb.db", cwd=project, ok=2)
    assert "snapshot rebuilt" not in p.stderr and "rules:" not in p.stderr


def test_an_empty_folder_is_refused(project):
    (project / "none").mkdir()
    p = holokb("query", "-f", "none", "--db", "kb.db", cwd=project, ok=1)
    assert "HK602" in p.stderr and "no .rq files" in p.stderr


def test_one_deadline_covers_the_batch(project):
    # An expired budget: every query of the batch reports the timeout, none runs past it.
    p = holokb("query", "-f", "qs/a.rq", "-f", "qs/b.rq", "--rules", "r.hkr", "--db", "kb.db", "--timeout", "0.000001",
               "--format", "tsv", cwd=project)
    assert list(sections(p.stdout)) == ["qs/a.rq", "qs/b.rq"]
    assert "qs/a.rq: truncated: the timeout budget was hit" in p.stderr
