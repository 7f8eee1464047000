"""A plain ``holokb derive …`` line runs without typer (holokb.cli.derive_run): the plain reader must read
every line it accepts exactly as typer does, leave the rest to typer, and the command must print the
same bytes, store the same closure and exit with the same code either way."""
from __future__ import annotations

import inspect
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import _fast_entry as fast_entry
from holokb.cli import derive_run

ROOT = Path(__file__).resolve().parents[2]
PARAMS = list(inspect.signature(derive_run.run).parameters)

# Option names (known, misspelt, abbreviated, with values glued on) and values typer reads in different
# ways: numbers, option-like words, empty strings, '=' inside.
TOKENS = [*derive_run.OPTIONS, "--help", "-h", "--", "-", "--sh", "--store=1", "--no-store=", "--all-valid=no",
          "--show=0", "--show=x", "--max-depth=3", "--rules=r.hkr", "--db=", "--db=x.db", "--Rules", "r.hkr", "x y",
          "", "=", "5", "05", "-1", "1_000", " 7", "abc", "none", "2026-01-01", "json", "-x"]


def typer_reading(argv: list[str], monkeypatch) -> dict | None:
    """What the typer command passes to ``derive_run.run`` for this line, or None when typer rejects it."""
    return fast_entry.typer_reading("derive", "holokb.cli.derive_run", PARAMS, argv, monkeypatch)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=st.lists(st.sampled_from(TOKENS), max_size=7))
def test_the_plain_reader_reads_what_typer_reads_or_declines(argv, monkeypatch):
    fast = derive_run.parse_args(argv)  # None: the line is typer's (read or reported by typer)
    assert fast is None or typer_reading(argv, monkeypatch) == fast, argv


@pytest.mark.parametrize("argv", [
    [], ["--rules", "rules/owl2rl.hkr", "--show", "0", "--timeout", "none"], ["--db=x.db", "--no-store", "--all-valid"],
    ["--rules", "a.hkr", "--rules=b/", "--max-depth", "3", "--max-derived", "05", "--format", "json"],
    ["--as-of", "2026-01-01", "--valid", "2025-01-01", "--store", "--show=1_000"], ["--db", "x.db", "--db", "y.db"],
])
def test_common_lines_take_the_plain_reader_and_match_typer(argv, monkeypatch):
    fast = derive_run.parse_args(argv)
    assert fast is not None
    assert typer_reading(argv, monkeypatch) == fast


@pytest.mark.parametrize("argv", [["--help"], ["x"], ["--show"], ["--show", "x"], ["--sh", "3"], ["--db", "-x"],
                                  ["--store=1"], ["--", "--db", "x"]])
def test_other_lines_go_to_typer(argv):
    assert derive_run.parse_args(argv) is None


EX = "http://example.org/"
DATA = (f"@prefix ex: <{EX}> .\nex:alice ex:uses ex:editor .\nex:editor ex:provides ex:search .\n"
        "ex:bob ex:uses ex:editor .\nex:bob ex:banned ex:search .\n")
RULE = (f"@prefix ex: <{EX}> .\nrule cap: ex:hasCapability(?x, ?z) :- ex:uses(?x, ?y), ex:provides(?y, ?z).\n"
        "constraint no_banned: false :- ex:hasCapability(?x, ?z), ex:banned(?x, ?z).\n")
OK_RULE = f"@prefix ex: <{EX}> .\nrule cap: ex:hasCapability(?x, ?z) :- ex:uses(?x, ?y), ex:provides(?y, ?z).\n"
LINES = [
    ["derive", "--rules", "ok.hkr", "--db", "kb.db"],
    ["derive", "--rules", "ok.hkr", "--db", "kb.db", "--show", "1", "--format", "json"],
    ["derive", "--rules", "r.hkr", "--db", "kb.db", "--show", "0"],  # a violation: exit 1
    ["derive", "--rules", "ok.hkr", "--db", "kb.db", "--no-store", "--as-of", "2026-02-01"],
    ["derive", "--rules", "ok.hkr", "--db", "kb.db", "--all-valid", "--max-derived", "1"],
    ["derive", "--rules", "ok.hkr", "--db", "kb.db", "--timeout", "soon"],
    ["derive", "--rules", "ok.hkr", "--db", "kb.db", "--as-of", "yesterday-ish"],
    ["derive", "--rules", "ok.hkr", "--db", "missing.db"],
    ["derive", "--rules", "missing.hkr", "--db", "kb.db"],
]


def test_the_plain_entry_prints_and_stores_what_the_typer_command_does(tmp_path):
    from _cli import holokb

    base = tmp_path / "base"
    base.mkdir()
    (base / "data.ttl").write_text(DATA)
    (base / "r.hkr").write_text(RULE)
    (base / "ok.hkr").write_text(OK_RULE)
    holokb("load", "data.ttl", "--db", "kb.db", "--at", "2026-01-01", cwd=base)
    results, stored = {}, {}
    for fast in (False, True):
        folder = tmp_path / f"fast-{fast}"
        shutil.copytree(base, folder)
        results[fast] = fast_entry.run_lines(folder, "FAST_DERIVE", fast, LINES)
        db = sqlite3.connect(folder / "kb.db")
        stored[fast] = (db.execute("SELECT * FROM derived_blocks ORDER BY 1, 2").fetchall(),
                        db.execute("SELECT closure_id, rule_set_hash, n_derived, truncated FROM closures").fetchall())
        db.close()
    (typer_runs, typer_loaded), (fast_runs, _) = results[False], results[True]
    assert fast_runs == typer_runs
    assert stored[True] == stored[False] and stored[True][1]
    assert [r[0] for r in typer_runs] == [0, 0, 1, 0, 0, 2, 2, 1, 1]
    assert "derived 2 facts" in typer_runs[0][1] and "violation of no_banned" in typer_runs[2][1]
    assert json.loads(typer_runs[1][1])["derived"] == 2
    assert typer_loaded


def test_a_plain_derive_line_never_loads_typer(tmp_path):
    from _cli import holokb

    (tmp_path / "data.ttl").write_text(DATA)
    (tmp_path / "ok.hkr").write_text(OK_RULE)
    holokb("load", "data.ttl", "--db", "kb.db", "--at", "2026-01-01", cwd=tmp_path)
    code = ("import sys\nimport holokb.cli as c\nc.main(['derive', '--rules', 'ok.hkr', '--db', 'kb.db', '--show', '0'])\n"
            "print(any(m.split('.')[0] in ('typer', 'click') for m in sys.modules))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0].startswith("derived 2 facts") and p.stdout.splitlines()[-1] == "False"


def test_derive_restores_the_collector_threshold_it_raises(tmp_path, monkeypatch):
    """run() raises the young-generation threshold for the command and puts back what it found
    (tests and the typer path run it in the same process), also when the command fails."""
    import gc

    from holokb.cli import derive_run

    seen = []
    monkeypatch.setattr(derive_run, "_run", lambda *a: seen.append(gc.get_threshold()[0]) or 0)
    before = gc.get_threshold()
    assert derive_run.run(None, "kb.db", None, None, None, None, None, 0, True, False, "text") == 0
    assert seen == [max(before[0], derive_run.GC_YOUNG)] and gc.get_threshold() == before

    def fail(*a):
        raise RuntimeError("boom")

    monkeypatch.setattr(derive_run, "_run", fail)
    with pytest.raises(RuntimeError):
        derive_run.run(None, "kb.db", None, None, None, None, None, 0, True, False, "text")
    assert gc.get_threshold() == before
