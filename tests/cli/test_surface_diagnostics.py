"""The command line's diagnostics table, run as data; every command's failure classes; random bytes.

Each example in ``SURFACE_FAILURES`` runs in a fresh copy of a project (``holokb init`` + the example
KB loaded) and must end with its row's code and exit code, a one-line message (with file:line:col
where the example says so), a hint, no traceback, and the ledger exactly as it was.  The generic
tests go over every command the CLI registers (read from the CLI itself), so commands added later
are covered without being listed here.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.cli.diagnostics import (
    FAILURES_BY_CODE, INTERNAL, NO_LEDGER, NOT_A_LEDGER, LEDGER_TOO_NEW, SURFACE_FAILURES, LedgerState,
)
from holokb.cli.introspect import commands
from holokb.core import inputs

from surface_support import argv_with, fresh, ledger_in_state, ledger_state, make_template, run, shown, write_files

CASES = [pytest.param(f, ex, id=f"{f.code}-{'_'.join(ex.argv)[:40]}-{ex.ledger.value}")
         for f in SURFACE_FAILURES for ex in f.examples]
DIAG = re.compile(r"^(?:\S.*?: )?(error|warning)\[(HK[\w-]+)\]: \S")


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return make_template(tmp_path_factory.mktemp("surface"))


def check_no_traceback(r) -> None:
    assert "Traceback" not in r.err and "Traceback" not in r.out, r.err
    assert f"error[{INTERNAL}]" not in r.err, r.err


@pytest.mark.parametrize("failure, ex", CASES)
def test_table(failure, ex, template, tmp_path, monkeypatch):
    proj = fresh(template, tmp_path / "p")
    write_files(proj, ex)
    db = proj / "holokb.db"
    with ledger_in_state(proj, ex.ledger, monkeypatch):
        before = ledger_state(db)
        r = run(ex.argv, proj)
        after = ledger_state(db)
    check_no_traceback(r)
    assert r.code == failure.exit_code, (shown(ex.argv), r)
    line = r.first_line
    assert f"error[{failure.code}]" in line, (shown(ex.argv), r.err)
    assert DIAG.match(line), line
    if ex.where is not None:
        assert line.startswith(ex.where), (line, ex.where)
    if failure.code.startswith("HK6"):
        assert "  hint: " in r.err, r.err
    assert after == before, "a failed command changed the ledger"
    assert r.out == "" or failure.code in ("HK-SHACL-shape",), r.out


def test_every_code_in_the_table_is_distinct_and_documented():
    codes = [f.code for f in SURFACE_FAILURES]
    assert len(codes) == len(set(codes))
    for f in SURFACE_FAILURES:
        assert f.exit_code in (0, 1, 2) and f.hint and f.what
    for code in (inputs.NOT_FOUND, inputs.IS_FOLDER, inputs.PERMISSION, inputs.NOT_UTF8, inputs.UNKNOWN_EXTENSION,
                 inputs.TOO_LARGE, inputs.UNREADABLE, inputs.NOT_JSON, inputs.BAD_RECORD):
        assert code in FAILURES_BY_CODE


# -- every command, generically ---------------------------------------------------------------------

COMMANDS = commands()
DB_READERS = [pytest.param(c, id=c.name) for c in COMMANDS if c.needs_ledger]
DB_USERS = [pytest.param(c, id=c.name) for c in COMMANDS if c.takes_db]
FILE_PARAMS = [pytest.param(c, p, id=f"{c.name}-{p.name}") for c in COMMANDS for p in c.file_params()]


def test_the_cli_is_introspected():
    names = {c.name for c in COMMANDS}
    assert {"load", "facts", "query", "check", "eval deduction"} <= names
    assert {c.name for c in COMMANDS if c.creates_ledger} == {"load", "demo", "ingest"}
    assert all(c.examples for c in COMMANDS), [c.name for c in COMMANDS if not c.examples]


@pytest.mark.parametrize("info", DB_READERS)
def test_commands_refuse_a_missing_ledger_and_create_none(info, template, tmp_path, monkeypatch):
    proj = fresh(template, tmp_path / "p")
    argv = argv_with(info, info.option("--db"), "typo.db")
    r = run(argv, proj)
    check_no_traceback(r)
    assert r.code == 1 and f"error[{NO_LEDGER}]: no ledger at typo.db" in r.err, (shown(argv), r)
    assert not (proj / "typo.db").exists()


@pytest.mark.parametrize("state, code", [(LedgerState.NOT_A_LEDGER, NOT_A_LEDGER), (LedgerState.TOO_NEW, LEDGER_TOO_NEW)])
@pytest.mark.parametrize("info", DB_USERS)
def test_commands_refuse_a_file_that_is_not_a_ledger_they_can_read(info, state, code, template, tmp_path, monkeypatch):
    proj = fresh(template, tmp_path / "p")
    argv = argv_with(info, info.option("--db"), "holokb.db")
    with ledger_in_state(proj, state, monkeypatch):
        before = (proj / "holokb.db").read_bytes()
        r = run(argv, proj)
        assert (proj / "holokb.db").read_bytes() == before
    check_no_traceback(r)
    assert r.code == 1 and f"error[{code}]" in r.err, (shown(argv), r)


@pytest.mark.parametrize("info, param", FILE_PARAMS)
def test_every_file_parameter_names_a_missing_file(info, param, template, tmp_path):
    proj = fresh(template, tmp_path / "p")
    argv = argv_with(info, param, "no/such/file.x")
    before = ledger_state(proj / "holokb.db")
    r = run(argv, proj)
    check_no_traceback(r)
    assert r.code == 1, (shown(argv), r)
    assert r.first_line.startswith(f"no/such/file.x:1:1: error[{inputs.NOT_FOUND}]"), (shown(argv), r.err)
    assert "the folder no/such/ does not exist" in r.err
    assert ledger_state(proj / "holokb.db") == before


EXTENSIONS = (".ttl", ".trig", ".nt", ".nq", ".rdf", ".owl", ".nt.gz", ".txt", ".md", ".hkr", ".rq", ".json",
              ".jsonl", "")


@pytest.mark.parametrize("info, param", FILE_PARAMS)
def test_random_bytes_never_give_a_traceback(info, param, template, tmp_path_factory):
    """Whatever bytes a file-reading parameter gets, the command ends with 0, or with coded diagnostics
    (exit 1 or 2) and the ledger as it was."""
    counter = iter(range(10**6))

    @settings(max_examples=12, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(data=st.one_of(st.binary(max_size=400), st.text(max_size=200).map(str.encode),
                          st.sampled_from([b"", b"\xef\xbb\xbf", b"[]", b"{}", b"@prefix : <x> .", b"\x1f\x8b\x08"])),
           ext=st.sampled_from(EXTENSIONS))
    def one(data: bytes, ext: str) -> None:
        proj = fresh(template, tmp_path_factory.mktemp("fuzz") / f"p{next(counter)}")
        name = f"input{ext}"
        (proj / name).write_bytes(data)
        argv = argv_with(info, param, name)
        before = ledger_state(proj / "holokb.db")
        r = run(argv, proj)
        check_no_traceback(r)
        assert r.code in (0, 1, 2), (shown(argv), data, r)
        if r.code != 0:
            assert DIAG.match(r.first_line) or r.err.startswith("Usage:"), (shown(argv), data, r.err)
            assert ledger_state(proj / "holokb.db") == before, (shown(argv), data)

    one()
