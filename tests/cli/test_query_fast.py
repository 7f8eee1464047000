"""A plain ``holokb query …`` line runs without typer (holokb.cli.query_run): the plain reader must
read every line it accepts exactly as typer does, leave the rest to typer, and the command must
print the same bytes and exit with the same code either way."""
from __future__ import annotations

import inspect
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import _fast_entry as fast_entry
from holokb.cli import query_run

ROOT = Path(__file__).resolve().parents[2]
PARAMS = list(inspect.signature(query_run.run).parameters)

# Option names (known, misspelt, abbreviated, with values glued on) and values that typer reads in
# different ways: numbers, option-like words, empty strings, '=' inside.
TOKENS = [*query_run.OPTIONS, "--help", "-h", "--", "-", "-fq.rq", "--lim", "--db=", "--db=x.db", "--limit=3",
          "--limit=x", "--no-rules=1", "--ledger=no", "--file=q.rq", "--Rules", "a.rq", "q.rq", "x y", "", "=",
          "k=v", "5", "05", "-1", "1_000", " 7", "abc", "none", "2026-01-01", "SELECT * WHERE { ?s ?p ?o }", "-x"]


def typer_reading(argv: list[str], monkeypatch) -> dict | None:
    """What the typer command passes to ``run`` for this line, or None when typer rejects it."""
    return fast_entry.typer_reading("query", "holokb.cli.query", PARAMS, argv, monkeypatch)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=st.lists(st.sampled_from(TOKENS), max_size=7))
def test_the_plain_reader_reads_what_typer_reads_or_declines(argv, monkeypatch):
    fast = query_run.parse_args(argv)
    if fast is None:
        return  # typer reads it (or reports it)
    assert typer_reading(argv, monkeypatch) == fast, argv


@pytest.mark.parametrize("argv", [
    ["-f", "q.rq"], ["SELECT 1"], ["-f", "a.rq", "--file=b.rq", "--db=x.db", "--limit", "05", "--timeout", "none"],
    ["--rules", "r.hkr", "--rules", "s/", "--format", "tsv", "-f", "q.rq"], ["--no-rules", "--ledger", "x"],
    ["--as-of", "2026-01-01", "--valid", "2025-01-01", "q"], ["--db", "x.db", "--db", "y.db", "q"],
])
def test_common_lines_take_the_plain_reader_and_match_typer(argv, monkeypatch):
    fast = query_run.parse_args(argv)
    assert fast is not None
    assert typer_reading(argv, monkeypatch) == fast


@pytest.mark.parametrize("argv", [["--help"], ["-f"], ["-fq.rq"], ["a", "b"], ["--limit", "x", "q"], ["--lim", "3", "q"],
                                  ["--db", "-x", "q"], ["--ledger=1", "q"], ["--", "q"]])
def test_other_lines_go_to_typer(argv):
    assert query_run.parse_args(argv) is None


EX = "http://example.org/"
DATA = f"@prefix ex: <{EX}> .\nex:alice ex:uses ex:editor .\nex:editor ex:provides ex:search .\n"
RULE = f"@prefix ex: <{EX}> .\nrule cap: ex:hasCapability(?x, ?z) :- ex:uses(?x, ?y), ex:provides(?y, ?z).\n"
LINES = [
    ["query", "-f", "q.rq", "--rules", "r.hkr", "--db", "kb.db", "--format", "tsv"],  # builds the snapshot
    ["query", "-f", "q.rq", "--rules", "r.hkr", "--db", "kb.db", "--format", "tsv"],  # warm
    ["query", f"SELECT ?x WHERE {{ ?x <{EX}uses> ?y }}", "--db", "kb.db", "--no-rules"],
    ["query", "-f", "q.rq", "-f", "bad.rq", "--rules", "r.hkr", "--db", "kb.db"],
    ["query", "-f", "q.rq", "--db", "missing.db"],
    ["query", "-f", "q.rq", "--rules", "r.hkr", "--db", "kb.db", "--timeout", "soon"],
    ["query", "-f", "q.rq", "--rules", "r.hkr", "--no-rules", "--db", "kb.db"],
    ["query", "--ledger", "--db", "kb.db", "--limit", "1", "SELECT ?s WHERE { ?s ?p ?o }"],
    ["query", "--db", "kb.db"],
]


def _run_lines(folder: Path, fast: bool, lines: list[list[str]] = LINES) -> tuple[list[tuple[int, str, str]], bool]:
    return fast_entry.run_lines(folder, "FAST_QUERY", fast, lines)


def test_the_plain_entry_prints_what_the_typer_command_prints(tmp_path):
    from _cli import holokb

    base = tmp_path / "base"
    base.mkdir()
    (base / "data.ttl").write_text(DATA)
    (base / "r.hkr").write_text(RULE)
    (base / "q.rq").write_text(f"SELECT ?x ?c WHERE {{ ?x <{EX}hasCapability> ?c }}")
    (base / "bad.rq").write_text("SELECT WHERE {")
    holokb("load", "data.ttl", "--db", "kb.db", "--at", "2026-01-01", cwd=base)
    results = {}
    for fast in (False, True):
        folder = tmp_path / f"fast-{fast}"
        shutil.copytree(base, folder)
        results[fast] = _run_lines(folder, fast)
    (typer_runs, _), (fast_runs, _) = results[False], results[True]
    assert fast_runs == typer_runs
    assert [r[0] for r in typer_runs] == [0, 0, 0, 2, 1, 2, 2, 0, 2]
    row = f"<{EX}alice>\t<{EX}search>\n"
    assert row in typer_runs[0][1] and row in typer_runs[1][1]
    assert "snapshot rebuilt" in typer_runs[0][2] and "snapshot rebuilt" not in typer_runs[1][2]
    # a query on the warm snapshot never loads typer
    (warm,), typer_loaded = _run_lines(tmp_path / "fast-True", True, LINES[1:2])
    assert warm == typer_runs[1] and not typer_loaded
    assert _run_lines(tmp_path / "fast-True", False, LINES[1:2]) == ([warm], True)
