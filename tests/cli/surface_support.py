"""Running the command line in-process on throw-away copies of a project, and watching the ledger.

``run`` calls :func:`holokb.cli.main` (the real entry point, with its failure handling) with the
working directory set to a project copy and stdout/stderr captured; in-process runs cost no
interpreter start, so the surface tests can afford hundreds of them.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shlex
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from holokb.cli import main
from holokb.cli.diagnostics import Example, LedgerState
from holokb.cli.introspect import CommandInfo, Param


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str

    @property
    def first_line(self) -> str:
        lines = [ln for ln in self.err.splitlines() if "error[" in ln]
        return lines[0] if lines else ""


def run(argv: Sequence[str], cwd: Path) -> Run:
    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    os.chdir(cwd)
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(argv))
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        os.chdir(old)
    return Run(code, out.getvalue(), err.getvalue())


def make_template(root: Path) -> Path:
    """A project made by ``holokb init`` with the example KB loaded (done once per session)."""
    proj = root / "template"
    r = run(["init", str(proj)], root)
    assert r.code == 0, r
    r = run(["load", "kb/", "--at", "2026-01-01"], proj)
    assert r.code == 0, r
    return proj


def fresh(template: Path, dest: Path) -> Path:
    shutil.copytree(template, dest)
    return dest


def ledger_state(db: Path) -> str:
    """What the ledger holds, logically (export + counts), or the file's bytes' hash when it is not a
    ledger holokb can open; 'absent' when there is no file."""
    if not db.exists():
        return "absent"
    from holokb.core import HolokbError
    from holokb.ledger import Ledger
    from holokb.rdf.export import export_ledger

    try:
        with contextlib.closing(Ledger.open(db)) as led:
            return repr(sorted(led.stats().items())) + export_ledger(led)
    except HolokbError:
        return "bytes:" + hashlib.sha256(db.read_bytes()).hexdigest()


@contextlib.contextmanager
def ledger_in_state(proj: Path, state: LedgerState, monkeypatch) -> Iterator[None]:
    """Put ``proj/holokb.db`` in ``state`` for the duration (a read-only ledger is opened read-only
    by SQLite itself, as a file without write permission is; root ignores file modes)."""
    db = proj / "holokb.db"
    if state is LedgerState.MISSING:
        db.unlink()
        yield
    elif state is LedgerState.NOT_A_LEDGER:
        db.write_bytes(b"this is not a database\n" * 100)
        yield
    elif state is LedgerState.TOO_NEW:
        with contextlib.closing(sqlite3.connect(db)) as c:
            c.execute("PRAGMA user_version = 999")
        yield
    elif state is LedgerState.READ_ONLY:
        real = sqlite3.connect
        target = str(db.resolve())

        def read_only(path, *args, **kwargs):
            if os.path.abspath(str(path)) == target:
                kwargs["uri"] = True
                return real(f"file:{target}?mode=ro", *args, **kwargs)
            return real(path, *args, **kwargs)

        monkeypatch.setattr(sqlite3, "connect", read_only)
        try:
            yield
        finally:
            monkeypatch.setattr(sqlite3, "connect", real)
    elif state is LedgerState.LOCKED:
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            holder.execute("ROLLBACK")
            holder.close()
    else:
        yield


def write_files(proj: Path, ex: Example) -> None:
    for name, content in ex.files:
        p = proj / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content() if callable(content) else content)


def argv_with(info: CommandInfo, param: Param, value: str) -> list[str]:
    """The command's example that uses ``param``, with ``value`` given for it."""
    ex = list(info.example_for(param))
    words = ex[len(info.path):]
    if param.kind == "option":
        out, i = [], 0
        while i < len(words):
            if words[i] in param.decls:
                i += 1 if param.is_flag else 2
                continue
            out.append(words[i])
            i += 1
        return [*info.path, *out, param.decls[0], value]
    # an argument: find the positional words and replace the ones that belong to it
    flags = {d for p in info.params if p.kind == "option" and p.is_flag for d in p.decls}
    positions, i = [], 0
    while i < len(words):
        w = words[i]
        if w.startswith("-") and w != "-":
            i += 1 if (w in flags or "=" in w) else 2
            continue
        positions.append(i)
        i += 1
    args = [p for p in info.params if p.kind == "argument"]
    k = args.index(param)
    mine = positions[k:] if param.many else positions[k:k + 1]
    if not mine:  # the example leaves this (optional) argument out
        return [*info.path, value, *words] if k == 0 else [*info.path, *words, value]
    out = [w for j, w in enumerate(words) if j not in mine]
    out.insert(mine[0], value)
    return [*info.path, *out]


def shown(argv: Sequence[str]) -> str:
    return "holokb " + " ".join(shlex.quote(a) for a in argv)
