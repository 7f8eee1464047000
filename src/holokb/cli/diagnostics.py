"""The command line's diagnostics table: every way a command can fail → a code, a hint, an exit code.

``SURFACE_FAILURES`` is a table in the manner of the rule language's ``SYNTAX_ERRORS``: each row is
a failure class (a file that is missing, a ledger that is read-only, ...) with its code, exit code,
the general hint, and example command lines that must end with that code.  The table doubles as the
test (``tests/cli/test_surface_diagnostics.py`` runs every example) and as the reference in
``docs/cli.md``.

:func:`outcome` maps *any* exception that reaches the command line to what the user sees: holokb's
own errors render their diagnostics; operating-system, SQLite, memory and interrupt failures get the
code of their row here; anything else is ``HK600`` (a bug in holokb), still without a traceback
unless ``HOLOKB_TRACEBACK=1``.  Every command is covered without doing anything: the mapping sits in
:func:`holokb.cli.main`.
"""
from __future__ import annotations

import enum
import errno
import os
from dataclasses import dataclass
from typing import Callable

from ..core import (
    Diagnostic, HolokbError, LedgerError, LedgerTooNewError, Location, SchemaVersionError, SolverError,
    WriterBusyError,
)
from ..core import inputs

# -- codes that the command line itself gives (HK6xx; files are core.inputs' HK601-HK609) ------------

INTERNAL = "HK600"
NO_LEDGER = "HK610"
LEDGER_READ_ONLY = "HK611"
LEDGER_BUSY = "HK612"
NOT_A_LEDGER = "HK613"
LEDGER_TOO_NEW = "HK614"
LEDGER_FAILED = "HK615"
DISK_FULL = "HK616"
USAGE = "HK620"
BAD_TIME = "HK621"
BAD_NAME = "HK622"
INTERRUPTED = "HK630"
CLOSED_PIPE = "HK631"
SOLVER_FAILED = "HK640"
REJECTED = "HK690"


class LedgerState(enum.Enum):
    """The state of ``./holokb.db`` an example runs against."""

    LOADED = "loaded"        # a project with the example KB loaded
    MISSING = "missing"      # no ledger file
    READ_ONLY = "read-only"  # the loaded ledger, which may not be written
    LOCKED = "locked"        # the loaded ledger with another process holding the write lock
    NOT_A_LEDGER = "not-a-ledger"  # a file that is not a SQLite database
    TOO_NEW = "too-new"      # a ledger written by a newer holokb


@dataclass(frozen=True, slots=True)
class Example:
    """A command line (without ``holokb``) run in a fresh project, after writing ``files`` there."""

    argv: tuple[str, ...]
    #: (path, content); content may be a function that makes it (for large inputs)
    files: tuple[tuple[str, bytes | Callable[[], bytes]], ...] = ()
    ledger: LedgerState = LedgerState.LOADED
    #: the first diagnostic line must name this ``file:line:col`` prefix (None: no location expected)
    where: str | None = None


@dataclass(frozen=True, slots=True)
class Failure:
    """One row: a failure class, its code, exit code, general hint and examples."""

    code: str
    what: str
    exit_code: int
    hint: str
    examples: tuple[Example, ...] = ()


def _huge_literal() -> bytes:
    """A literal longer than pyoxigraph's 16 MiB token buffer."""
    return b"<http://x/a> <http://x/b> \"" + b"x" * (17 << 20) + b"\" .\n"


_PERSON_SHAPE = (b"@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix ex: <http://example.org/> .\n"
                 b"ex:NameShape a sh:NodeShape ; sh:targetClass ex:Person ;\n"
                 b"    sh:property [ sh:path ex:name ; sh:pattern \"([a-\" ] .\n")

SURFACE_FAILURES: tuple[Failure, ...] = (
    Failure(inputs.NOT_FOUND, "a named file does not exist", 1, "check the spelling; paths are relative to the "
            "current folder", (
                Example(("query", "--file", "missing.rq"), where="missing.rq:1:1"),
                Example(("load", "nope.ttl"), where="nope.ttl:1:1"),
                Example(("check", "rules/nope.hkr"), where="rules/nope.hkr:1:1"),
                Example(("eval", "deduction", "nofile.json"), where="nofile.json:1:1"),
                Example(("eval", "folio", "nofile.jsonl"), where="nofile.jsonl:1:1"),
            )),
    Failure(inputs.IS_FOLDER, "a folder where a file is read", 1, "name a file inside the folder", (
        Example(("query", "--file", "kb"), where="kb:1:1"),
        Example(("eval", "deduction", "kb"), where="kb:1:1"),
    )),
    Failure(inputs.PERMISSION, "a file that may not be read", 1, "check the file's permissions", ()),
    Failure(inputs.NOT_UTF8, "a text file that is not UTF-8", 1, "save the file as UTF-8", (
        Example(("load", "notes.txt"), (("notes.txt", b"caf\xe9 au lait\n"),), where="notes.txt:1:4"),
        Example(("query", "--file", "q.rq"), (("q.rq", b"SELECT *\nWHERE { ?s ?p \xff }"),), where="q.rq:2:15"),
        Example(("load", "data.ttl"), (("data.ttl", b"<http://x/a> <http://x/b> \"\xe9\" .\n"),),
                where="data.ttl:1:28"),
    )),
    Failure(inputs.UNKNOWN_EXTENSION, "a file name whose extension holokb cannot read", 1,
            "RDF: .ttl .trig .nt .nq .owl .rdf (optionally .gz); documents: .txt .md, or --as-text", (
                Example(("load", "data.tll"), (("data.tll", b"ex:a ex:b ex:c .\n"),), where="data.tll:1:1"),
                Example(("load", "data.json"), (("data.json", b"{}"),), where="data.json:1:1"),
            )),
    Failure(inputs.TOO_LARGE, "something larger than a parser can hold", 1,
            "split the value or the file", (
                Example(("load", "big.nt"), (("big.nt", _huge_literal),), where="big.nt:1:1"),
            )),
    Failure(inputs.UNREADABLE, "any other operating-system failure while reading", 1,
            "check the disk, the mount, and that the path is a regular file", ()),
    Failure(inputs.NOT_JSON, "a JSON input that does not parse", 1, "check the file is JSON", (
        Example(("eval", "deduction", "d.json"), (("d.json", b"[{\"id\": 1,}]"),), where="d.json:1:11"),
        Example(("eval", "folio", "f.jsonl"), (("f.jsonl", b"{}\n{oops}\n"),), where="f.jsonl:2:2"),
    )),
    Failure(inputs.BAD_RECORD, "JSON of the wrong shape for the command", 1,
            "see the command's --help for the records it reads", (
                Example(("eval", "deduction", "d.json"), (("d.json", b"{\"a\": 1}"),), where="d.json:1:1"),
                Example(("eval", "folio", "f.jsonl"), (("f.jsonl", b"[1, 2]\n"),), where="f.jsonl:1:1"),
            )),
    Failure(NO_LEDGER, "a read command pointed at a ledger that does not exist", 1,
            "`holokb load` creates one; check --db", (
                Example(("stats", "--db", "typo.db")),
                Example(("facts", "ex:Alice"), ledger=LedgerState.MISSING),
                Example(("query", "SELECT * WHERE { ?s ?p ?o }", "--db", "typo.db")),
            )),
    Failure(LEDGER_READ_ONLY, "a write to a ledger that may not be written", 1,
            "make the file and its folder writable, or copy it", (
                Example(("load", "kb/"), ledger=LedgerState.READ_ONLY),
                Example(("derive",), ledger=LedgerState.READ_ONLY),
            )),
    Failure(LEDGER_BUSY, "another process holds the ledger's write lock", 1,
            "wait for the other writer to finish and run the command again", (
                Example(("load", "kb/"), ledger=LedgerState.LOCKED),
            )),
    Failure(NOT_A_LEDGER, "a --db file that is not a holokb ledger (or is damaged)", 1,
            "check --db; a damaged file can be checked with sqlite3 FILE 'PRAGMA integrity_check'", (
                Example(("stats",), ledger=LedgerState.NOT_A_LEDGER),
                Example(("load", "kb/"), ledger=LedgerState.NOT_A_LEDGER),
            )),
    Failure(LEDGER_TOO_NEW, "a ledger written by a newer holokb", 1, "upgrade holokb", (
        Example(("stats",), ledger=LedgerState.TOO_NEW),
    )),
    Failure(LEDGER_FAILED, "any other SQLite failure (I/O error, ...)", 1,
            "check the disk; run sqlite3 FILE 'PRAGMA integrity_check'", ()),
    Failure(DISK_FULL, "the disk is full", 1, "free some space; the unfinished write was rolled back", ()),
    Failure(USAGE, "a command line holokb cannot read", 2, "see holokb COMMAND --help", (
        Example(("load", "kb", "--as-of", "2026-01-01")),
        Example(("query",)),
        Example(("frobnicate",)),
    )),
    Failure(BAD_TIME, "a time that is not ISO-8601 or latest", 2,
            "write times as 2026-01-01, 2026-01-01T10:00Z or latest", (
                Example(("facts", "ex:Alice", "--as-of", "")),
                Example(("facts", "ex:Alice", "--valid", "yesterday")),
                Example(("load", "kb/", "--at", "")),
            )),
    Failure(BAD_NAME, "a name that is neither <IRI> nor a known prefix", 2,
            "use <http://...> or a prefix declared in kb/ or rules/", (
                Example(("facts", "zz:Alice")),
            )),
    Failure(INTERRUPTED, "Ctrl-C", 1, "an unfinished write was rolled back; run the command again", ()),
    Failure(CLOSED_PIPE, "the reader of the output went away (| head)", 0,
            "ends quietly with exit code 0: the output was not wanted any more", ()),
    Failure(SOLVER_FAILED, "a solver that failed or is not installed", 1, "try --solver z3", ()),
    Failure(REJECTED, "input holokb refuses for a reason without a more specific code", 1,
            "the message says why", ()),
    Failure(INTERNAL, "a bug in holokb", 1, "please report it with the command line; HOLOKB_TRACEBACK=1 "
            "shows the Python traceback", ()),
    # rows for codes that other stages give, with the inputs the issue tracker reported
    Failure("HK-SHACL-shape", "a malformed SHACL shape (cites the W3C clause)", 1, "fix the shape", (
        Example(("load", "kb/", "--shapes", "bad-shapes"), (("bad-shapes/s.ttl", _PERSON_SHAPE),),
                where="bad-shapes/s.ttl:3:1"),
    )),
    Failure("HK300", "RDF that does not parse", 1, "the message names the token", (
        Example(("load", "b.ttl"), (("b.ttl", b"@prefix ex: <http://example.org/> .\nex:a ex:b .\n"),),
                where="b.ttl:2:"),
        Example(("load", "b.ttl"), (("b.ttl", b"\xef\xbb\xbf\xef\xbb\xbf<http://x/a> <http://x/b> 1 .\n"),),
                where="b.ttl:1:1"),
    )),
    Failure("HK108", "a rule file that cannot be read (the rule language's code)", 1, "save it as UTF-8", (
        Example(("check", "r.hkr"), (("r.hkr", b"\xfe\xff"),), where="r.hkr:1:1"),
        Example(("derive", "--rules", "r.hkr"), (("r.hkr", b"@prefix ex: <http://example.org/> .\n# caf\xe9\n"),),
                where="r.hkr:2:6"),
    )),
    Failure("HK500", "SPARQL that does not parse", 2, "the caret points at the problem", (
        Example(("query", "SELECT ?x WHERE { ?x ex:p }")),
    )),
)

#: Every code the command line can end with, by code.
FAILURES_BY_CODE: dict[str, Failure] = {f.code: f for f in SURFACE_FAILURES}


def diagnostic(code: str, message: str, *, location: Location | None = None, hint: str | None = None,
               notes: tuple[str, ...] = ()) -> Diagnostic:
    """A diagnostic of one of this table's codes; the row's general hint when none is given."""
    row = FAILURES_BY_CODE.get(code)
    return Diagnostic(code, message, location, hint if hint is not None else (row.hint if row else None),
                      notes=notes)


class SurfaceError(HolokbError):
    """A failure of the command line itself (no ledger, a bad option value) with its exit code."""

    def __init__(self, code: str, message: str, *, hint: str | None = None, exit_code: int | None = None,
                 location: Location | None = None):
        d = diagnostic(code, message, location=location, hint=hint)
        super().__init__(message, (d,))
        row = FAILURES_BY_CODE.get(code)
        self.exit_code = exit_code if exit_code is not None else (row.exit_code if row else 1)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the user sees: text for stderr (empty: nothing) and the exit code."""

    text: str
    exit_code: int
    closed_pipe: bool = False


def outcome(exc: BaseException, *, ledger: str | None = None) -> Outcome:
    """The coded diagnostic and exit code for any exception that reached the command line."""
    for kind, handler in _HANDLERS:
        if isinstance(exc, kind):
            return handler(exc, ledger)
    return _internal(exc)


def usage_outcome(e: BaseException) -> Outcome | None:
    """click's own exceptions (typer runs on click): usage errors, ``Exit`` and ``Abort`` (Ctrl-C)."""
    kind = type(e).__name__
    module = type(e).__module__
    if "click" not in module and "typer" not in module:
        return None
    if kind == "Exit":
        return Outcome("", int(getattr(e, "exit_code", 0) or 0))
    if kind == "Abort":
        return _interrupt(e, None)
    message = getattr(e, "format_message", None)
    exit_code = getattr(e, "exit_code", None)
    if message is None or not isinstance(exit_code, int):
        return None
    ctx = getattr(e, "ctx", None)
    usage = ctx.get_usage() if ctx is not None else ""
    where = ctx.command_path if ctx is not None else "holokb"
    d = diagnostic(USAGE, message(), hint=f"see {where} --help")
    return Outcome((usage + "\n" if usage else "") + d.render(), exit_code)


def _holokb(e: HolokbError, ledger: str | None) -> Outcome:
    code = getattr(e, "exit_code", None)
    if e.diagnostics:
        return Outcome(e.render(), code if isinstance(code, int) else 1)
    for kind, c in _CLASS_CODES:
        if isinstance(e, kind):
            return _one(c, e.message)
    return _one(REJECTED, e.message)


def _one(code: str, message: str, *, hint: str | None = None, location: Location | None = None) -> Outcome:
    row = FAILURES_BY_CODE[code]
    return Outcome(diagnostic(code, message, location=location, hint=hint).render(), row.exit_code)


def _os(e: OSError, ledger: str | None) -> Outcome:
    if isinstance(e, BrokenPipeError) or e.errno == errno.EPIPE:
        return Outcome("", FAILURES_BY_CODE[CLOSED_PIPE].exit_code, closed_pipe=True)
    if e.errno == errno.ENOSPC:
        return _one(DISK_FULL, f"{e.filename or 'the disk'}: no space left on the device")
    if e.errno == errno.EROFS:
        return _one(LEDGER_READ_ONLY, f"{e.filename or ledger or 'the file'}: the file system is read-only")
    err = inputs.os_error(e, e.filename if e.filename is not None else None)
    return Outcome(err.render(), 1)


def _sqlite(e: Exception, ledger: str | None) -> Outcome:
    """SQLite's errors carry only a message; the class of failure is read from it."""
    name = ledger or "the ledger"
    text = str(e)
    low = text.lower()
    if "readonly" in low or "read-only" in low:
        return _one(LEDGER_READ_ONLY, f"{name} is read-only: {text}")
    if "locked" in low or "busy" in low:
        return _one(LEDGER_BUSY, f"{name} is locked by another process: {text}")
    if "not a database" in low or "malformed" in low or "corrupt" in low:
        return _one(NOT_A_LEDGER, f"{name} is not a holokb ledger or is damaged: {text}")
    if "full" in low:
        return _one(DISK_FULL, f"{name}: {text}")
    if "unable to open" in low:
        return _one(LEDGER_FAILED, f"cannot open {name}: {text}",
                    hint="check that the folder exists and that --db names a file, not a folder")
    return _one(LEDGER_FAILED, f"{name}: {text}")


def _memory(e: BaseException, ledger: str | None) -> Outcome:
    why = str(e) or "out of memory"
    return _one(inputs.TOO_LARGE, f"ran out of memory ({why})",
                hint="split the input, or use budgets such as --max-derived / --limit")


def _recursion(e: BaseException, ledger: str | None) -> Outcome:
    return _one(inputs.TOO_LARGE, "the input nests too deeply to process", hint="flatten the input")


def _interrupt(e: BaseException, ledger: str | None) -> Outcome:
    return _one(INTERRUPTED, "interrupted")


def _internal(e: BaseException) -> Outcome:
    import traceback

    text = _one(INTERNAL, f"internal error: {type(e).__name__}: {str(e)[:300]}").text
    if os.environ.get("HOLOKB_TRACEBACK"):
        text = "".join(traceback.format_exception(e)) + text
    return Outcome(text, 1)


def _is_sqlite(e: BaseException) -> bool:
    import sqlite3

    return isinstance(e, sqlite3.Error)


class _SqliteMeta(type):
    def __instancecheck__(cls, e: object) -> bool:
        return isinstance(e, BaseException) and _is_sqlite(e)


class _AnySqliteError(metaclass=_SqliteMeta):
    pass


_CLASS_CODES: tuple[tuple[type, str], ...] = (
    (WriterBusyError, LEDGER_BUSY),
    (LedgerTooNewError, LEDGER_TOO_NEW),
    (SchemaVersionError, NOT_A_LEDGER),
    (LedgerError, LEDGER_FAILED),
    (SolverError, SOLVER_FAILED),
)

_HANDLERS: tuple[tuple[type, Callable[[BaseException, str | None], Outcome]], ...] = (
    (HolokbError, _holokb),  # type: ignore[list-item]
    (OSError, _os),  # type: ignore[list-item]
    (_AnySqliteError, _sqlite),  # type: ignore[list-item]
    (MemoryError, _memory),
    (RecursionError, _recursion),
    (KeyboardInterrupt, _interrupt),
)
