"""The silent surprises of issue 14, each pinned: what the CLI now says or refuses instead."""
from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from holokb.cli.diagnostics import (
    CLOSED_PIPE, DISK_FULL, FAILURES_BY_CODE, INTERNAL, INTERRUPTED, LEDGER_BUSY, LEDGER_FAILED, LEDGER_READ_ONLY,
    NOT_A_LEDGER, SOLVER_FAILED, outcome,
)
from holokb.core import SolverError, inputs

from surface_support import fresh, ledger_state, make_template, run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return make_template(tmp_path_factory.mktemp("surprises"))


@pytest.fixture
def proj(template, tmp_path) -> Path:
    return fresh(template, tmp_path / "p")


# -- the table's rows that no command line can provoke here, through the same mapping --------------

@pytest.mark.parametrize("exc, code, exit_code", [
    (PermissionError(errno.EACCES, "Permission denied", "secret.ttl"), inputs.PERMISSION, 1),
    (OSError(errno.EIO, "Input/output error", "disk.ttl"), inputs.UNREADABLE, 1),
    (OSError(errno.ENOSPC, "No space left on device", "holokb.db"), DISK_FULL, 1),
    (OSError(errno.EROFS, "Read-only file system", "holokb.db"), LEDGER_READ_ONLY, 1),
    (sqlite3.OperationalError("attempt to write a readonly database"), LEDGER_READ_ONLY, 1),
    (sqlite3.OperationalError("database is locked"), LEDGER_BUSY, 1),
    (sqlite3.DatabaseError("database disk image is malformed"), NOT_A_LEDGER, 1),
    (sqlite3.OperationalError("disk I/O error"), LEDGER_FAILED, 1),
    (sqlite3.OperationalError("database or disk is full"), DISK_FULL, 1),
    (MemoryError(), inputs.TOO_LARGE, 1),
    (RecursionError(), inputs.TOO_LARGE, 1),
    (KeyboardInterrupt(), INTERRUPTED, 1),
    (SolverError("cvc5 is not installed"), SOLVER_FAILED, 1),
    (ZeroDivisionError("a bug"), INTERNAL, 1),
])
def test_every_failure_class_maps_to_its_code(exc, code, exit_code):
    o = outcome(exc, ledger="holokb.db")
    assert f"error[{code}]" in o.text and o.exit_code == exit_code == FAILURES_BY_CODE[code].exit_code
    assert "  hint: " in o.text and "Traceback" not in o.text


def test_a_broken_pipe_is_quiet():
    o = outcome(BrokenPipeError(errno.EPIPE, "Broken pipe"))
    assert o.closed_pipe and o.text == "" and o.exit_code == FAILURES_BY_CODE[CLOSED_PIPE].exit_code == 0


def test_a_reader_that_goes_away_ends_the_command_quietly(template):
    """`holokb export | head -c 100`: the command ends with 0 and says nothing on stderr."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.Popen([sys.executable, "-m", "holokb", "export"], cwd=template, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stderr is not None
    p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 0 and err == ""


# -- no silent surprises ----------------------------------------------------------------------------

def test_stats_on_a_typo_refuses_and_creates_nothing(proj):
    r = run(["stats", "--db", "typo.db"], proj)
    assert r.code == 1 and "no ledger at typo.db" in r.err and "holokb load" in r.err
    assert not (proj / "typo.db").exists()


@pytest.mark.parametrize("name", ["data.tll", "data.json", "notes"])
def test_load_refuses_unknown_extensions_and_lists_the_known_ones(proj, name):
    (proj / name).write_text("ex:a ex:b ex:c .\n")
    before = ledger_state(proj / "holokb.db")
    r = run(["load", name], proj)
    assert r.code == 1 and f"error[{inputs.UNKNOWN_EXTENSION}]" in r.err
    assert ".ttl" in r.err and ".txt" in r.err and "--as-text" in r.err
    assert ledger_state(proj / "holokb.db") == before


def test_as_text_loads_any_named_file_as_a_document(proj):
    (proj / "notes.log").write_text("First paragraph.\n\nSecond paragraph.\n")
    r = run(["load", "notes.log", "--as-text", "--at", "2026-01-02", "--format", "json"], proj)
    assert r.code == 0, r
    got = json.loads(r.out)
    assert got["documents"] == 1 and got["chunks"] == 2 and got["facts"] == 0


def test_load_counts_say_what_they_count(proj):
    (proj / "more.ttl").write_text("@prefix ex: <http://example.org/> .\nex:Carol ex:knows ex:Alice, ex:Bob .\n"
                                   "ex:Carol ex:knows ex:Alice .\n")
    r = run(["load", "more.ttl", "--at", "2026-01-02"], proj)
    assert r.code == 0, r
    assert "new in the ledger: 2 fact(s) (distinct statements), 2 span(s)" in r.out
    assert "at 2026-01-02T00:00:00Z" in r.out


def test_folders_say_which_files_they_skip(proj):
    (proj / "kb" / "readme.pdf").write_bytes(b"%PDF-1.4")
    r = run(["load", "kb/", "--at", "2026-01-02"], proj)
    assert r.code == 0 and "skipped 1 file(s) under kb/" in r.err and "readme.pdf" in r.err


def test_a_utf8_byte_order_mark_is_not_an_error(proj):
    (proj / "bom.ttl").write_bytes(b"\xef\xbb\xbf@prefix ex: <http://example.org/> .\nex:Dan ex:knows ex:Eve .\n")
    (proj / "bom.rq").write_bytes(b"\xef\xbb\xbfSELECT ?o WHERE { ex:Dan ex:knows ?o }")
    assert run(["load", "bom.ttl", "--at", "2026-01-02"], proj).code == 0
    r = run(["query", "--file", "bom.rq", "--format", "csv"], proj)
    assert r.code == 0 and "http://example.org/Eve" in r.out


def test_an_invisible_character_in_a_message_is_spelled_out(proj):
    (proj / "two.ttl").write_bytes(b"\xef\xbb\xbf\xef\xbb\xbf<http://x/a> <http://x/b> 1 .\n")
    r = run(["load", "two.ttl"], proj)
    assert r.code == 1 and "U+FEFF" in r.err and "\ufeff" not in r.err


@pytest.mark.parametrize("option", ["--as-of", "--valid"])
def test_an_empty_time_is_a_usage_error_not_latest(proj, option):
    r = run(["facts", "ex:Alice", option, ""], proj)
    assert r.code == 2 and "is empty" in r.err


def test_sparql_gets_the_project_prefixes_and_the_help_example_works(proj):
    r = run(["query", "SELECT ?c WHERE { ex:AchillesIDE ex:hasCapability ?c }", "--valid", "2026-04-01",
             "--format", "csv"], proj)
    assert r.code == 0, r
    assert "http://example.org/sandboxing" in r.out


def test_query_says_which_rule_set_it_closed_and_no_rules_turns_it_off(proj):
    q = ["query", "SELECT ?c WHERE { ex:AchillesIDE ex:hasCapability ?c }", "--valid", "2026-04-01", "--format", "csv"]
    with_rules = run(q, proj)
    assert "rules: closed under ./rules" in with_rules.err and "sandboxing" in with_rules.out
    without = run([*q, "--no-rules"], proj)
    assert "rules: none (--no-rules)" in without.err and "sandboxing" not in without.out
    import shutil

    shutil.rmtree(proj / "rules")
    none = run(q, proj)
    assert "rules: none (no --rules, no ./rules, no stored derive)" in none.err


def test_ask_warns_about_a_typo_with_did_you_mean(proj):
    r = run(["ask", "?- ex:hasCapabilty(ex:AchillesIDE, ?c)."], proj)
    assert r.code == 0 and "no answers" in r.out
    assert "warning[HK250]" in r.err and "did you mean ex:hasCapability?" in r.err


def test_check_warns_about_rules_that_cannot_fire(proj):
    (proj / "rules" / "extra.hkr").write_text(
        "@prefix ex: <http://example.org/> .\nvocabulary: ex:mentors/2, ex:mentee/1.\n"
        "rule mentor: ex:mentee(?b) :- ex:mentors(?a, ?b).\n")
    r = run(["check", "rules/"], proj)
    assert r.code == 0
    assert "warning[HK251]: ex:mentors is declared but nothing produces it" in r.err
    assert "warning[HK252]: rule 'mentor' can never fire" in r.err
    data = json.loads(run(["check", "rules/", "--format", "json"], proj).out)
    assert {w["code"] for w in data["warnings"]} == {"HK251", "HK252"}


def test_init_scaffolds_provenance_query_and_rule_sets(tmp_path):
    r = run(["init", "proj", "--with", "owl2rl", "--with", "rdfs"], tmp_path)
    assert r.code == 0, r
    for name in ("provenance.rq", "rules/owl2rl.hkr", "rules/rdfs.hkr", "rules/example.hkr"):
        assert (tmp_path / "proj" / name).is_file(), name
    assert not (tmp_path / "proj" / "kb" / "queries").exists()
    bad = run(["init", "other", "--with", "owl3"], tmp_path)
    assert bad.code == 2 and "rdfs, owl2rl" in bad.err


def test_eval_with_a_missing_file_is_a_diagnostic(proj):
    for sub in ("deduction", "folio"):
        r = run(["eval", sub, "nothere.json"], proj)
        assert r.code == 1 and r.err.startswith(f"nothere.json:1:1: error[{inputs.NOT_FOUND}]"), r.err


def test_an_item_without_a_prediction_is_never_counted_correct(proj):
    (proj / "d.json").write_text('[{"id": 1, "context": "nothing to parse here", "options": ["A) x"]}]')
    r = run(["eval", "deduction", "d.json"], proj)
    assert r.code == 0 and r.out.strip() == "accuracy=0.0000 n=1"
