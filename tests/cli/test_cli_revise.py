"""holokb retract / holokb supersede (issue 8): spans close, history stays, mistakes are coded."""
from __future__ import annotations

import json

import pytest

from test_cli import run


@pytest.fixture
def project(tmp_path):
    run("init", str(tmp_path), cwd=tmp_path)
    run("load", "kb/", "--at", "2026-01-01", cwd=tmp_path)
    return tmp_path


def test_retract_closes_the_span_and_keeps_history(project):
    out = run("retract", 'ex:Bob ex:name "Bob"', "--at", "2026-02-01", cwd=project).stdout
    assert "closed 1 span(s)" in out
    again = run("retract", 'ex:name(ex:Bob, "Bob")', "--at", "2026-02-02", "--format", "json", cwd=project).stdout
    assert json.loads(again)["closedSpans"] == 0  # idempotent
    hist = run("history", "ex:Bob", "ex:name", cwd=project).stdout
    assert "recorded [2026-01-01T00:00:00Z, 2026-02-01T00:00:00Z)" in hist
    now = run("facts", "ex:Bob", cwd=project).stdout
    assert "ex:name" not in now


def test_supersede_replaces_the_value_through_the_shapes_gate(project):
    out = json.loads(run("supersede", 'ex:Bob ex:name "Robert"', "--at", "2026-03-01", "--format", "json",
                         cwd=project).stdout)
    assert (out["newSpans"], out["closedSpans"]) == (1, 1)
    now = run("facts", "ex:Bob", cwd=project).stdout
    assert '"Robert"' in now and '"Bob"' not in now
    before = run("facts", "ex:Bob", "--as-of", "2026-02-01", cwd=project).stdout
    assert '"Bob"' in before and '"Robert"' not in before
    # the gate still runs: a person's name must be a string
    bad = run("supersede", "ex:Bob ex:name 42", "--at", "2026-03-02", cwd=project, ok=1)
    assert "HK-SHACL" in bad.stderr


@pytest.mark.parametrize("args, code, rc", [
    (("retract", 'ex:Bob ex:name "Bobby"', "--at", "2026-02-01"), "HK504", 1),
    (("retract", 'ex:Bob ex:name "Bob"', "--at", "2025-02-01"), "HK505", 1),
    (("supersede", 'ex:Bob ex:name "B"', "--at", "2025-02-01"), "HK501", 1),
    (("retract", "ex:Bob ex:nme"), "HK620", 2),
    (("supersede", "ex:p(ex:a)"), "HK620", 2),
    (("supersede", 'ex:Bob ex:name "B"', "--valid-from", "2026-02-01", "--valid-to", "2026-01-01"), "HK620", 2),
])
def test_mistakes_are_coded_and_change_nothing(project, args, code, rc):
    before = run("stats", cwd=project).stdout
    p = run(*args, cwd=project, ok=rc)
    assert f"[{code}]" in p.stderr and "Traceback" not in p.stderr
    assert run("stats", cwd=project).stdout == before
