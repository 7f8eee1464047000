"""The command line, end to end on the example KB: exit codes, as-of answers with provenance."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path, ok: int = 0) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-m", "holokb", *args], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == ok, (p.returncode, p.stdout, p.stderr)
    return p


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("proj")
    run("init", str(d), cwd=d)
    run("load", "kb/", "--at", "2026-01-01", cwd=d)
    return d


def test_init_scaffolds_the_three_folders(project):
    for name in ("kb", "rules", "shapes"):
        assert any((project / name).iterdir())


def test_facts_as_of_shows_the_location_then_with_its_source_text(project):
    out = run("facts", "ex:Alice", "--as-of", "2026-01-01T10:00Z", cwd=project).stdout
    assert "ex:locatedIn ex:Lab" in out
    assert "ex:Cafeteria" not in out
    assert '"At 09:00 Alice arrived at the Lab"' in out
    later = run("facts", "ex:Alice", "--as-of", "2026-01-01T12:45Z", cwd=project).stdout
    assert "ex:locatedIn ex:Cafeteria" in later and "ex:Lab" not in later


def test_system_time_before_the_load_sees_nothing(project):
    out = run("facts", "ex:Alice", "--as-of", "2025-12-31", "--format", "json", cwd=project).stdout
    assert json.loads(out)["facts"] == []


def test_stats_json_counts(project):
    s = json.loads(run("stats", "--json", cwd=project).stdout)
    assert s["documents"] == 3 and s["facts"] > 30 and s["evidence"] >= 10 and s["entities"] > 0


def test_history_lists_both_spans_of_alice_in_the_lab(project):
    out = run("history", "ex:Alice", "ex:locatedIn", "--format", "json", cwd=project).stdout
    spans = json.loads(out)
    lab = [s for s in spans if s["object"]["value"].endswith("/Lab")]
    assert len(lab) == 2 and len(spans) == 3


def test_validate_passes_on_the_example(project):
    out = run("validate", cwd=project).stdout
    assert "domain shapes: conforms" in out and "annotation shapes: conforms" in out


def test_rejected_load_exits_1_names_file_line_and_changes_nothing(project):
    before = run("stats", "--json", cwd=project).stdout
    bad = project / "bad.ttl"
    bad.write_text("@prefix ex: <http://example.org/> .\n\nex:Carol a ex:Person .\n")  # no ex:name
    p = run("load", str(bad), "--at", "2026-01-02", cwd=project, ok=1)
    assert "bad.ttl:3" in p.stderr and "minCount" in p.stderr
    assert run("stats", "--json", cwd=project).stdout == before


def test_syntax_error_exits_1_with_file_line_column(project):
    bad = project / "broken.ttl"
    bad.write_text("@prefix ex: <http://example.org/> .\nex:a ex:b .\n")
    p = run("load", str(bad), cwd=project, ok=1)
    assert "broken.ttl:2:" in p.stderr


def test_usage_errors_exit_2(project):
    assert "known prefix" in run("facts", "nope:Alice", cwd=project, ok=2).stderr
    assert "2026-01-01T10:00Z" in run("facts", "ex:Alice", "--as-of", "someday", cwd=project, ok=2).stderr
    assert "no-such-command" in run("no-such-command", cwd=project, ok=2).stderr


def test_export_is_deterministic_and_reimports_byte_identically(project, tmp_path):
    a = run("export", cwd=project).stdout
    assert a == run("export", cwd=project).stdout
    (tmp_path / "ledger.trig").write_text(a)
    run("load", str(tmp_path / "ledger.trig"), "--db", str(tmp_path / "copy.db"), "--shapes", str(tmp_path),
        cwd=project)
    assert run("export", "--db", str(tmp_path / "copy.db"), cwd=project).stdout == a


def test_demo_is_deterministic():
    a = run("demo", cwd=ROOT).stdout
    assert "ex:Alice ex:locatedIn ex:Lab" in a
    assert "valid 2026-04-01: entailed" in a and "consistent over" in a
    assert '"At 12:30 Alice went to the Cafeteria"' in a
    assert a == run("demo", cwd=ROOT).stdout


def test_every_command_has_help_with_an_example(tmp_path):
    from holokb.cli import app, eval_app

    names = [c.name or c.callback.__name__ for c in app.registered_commands]
    assert {"init", "load", "facts", "history", "export", "validate", "stats", "check", "derive", "ask",
            "explain", "query", "prove", "demo"} <= set(names)
    for c in list(app.registered_commands) + list(eval_app.registered_commands):
        assert "Example: holokb" in (c.callback.__doc__ or ""), c.callback.__name__
