"""What the command line offers, read from the command line itself: commands, their help, their
``Example:`` lines and the parameters that read files.

Read from typer's registrations and the command functions' signatures (not from click objects, whose
shape changes between typer versions), so the result is the same wherever holokb runs.  The docs
generator (:mod:`.docs`) and the surface tests (diagnostics table, random-bytes fuzzing, the README
tour) use it: a command added in a new module is documented and tested without listing it anywhere.

Conventions a command follows to be covered:

- its docstring has one or more ``Example: holokb …`` lines (after a ``\\b`` line, so click prints
  them as written); the first example that names a parameter is the one its tests start from;
- a parameter that reads a file or folder is annotated ``Path`` (or ``list[Path]``); one that writes
  is declared with ``writable=True`` (``common.OUT``);
- ``--db`` is ``common.DB`` (must exist), ``common.DB_NEW`` (created if missing) or
  ``common.DB_IF_PRESENT`` (read when it exists).
"""
from __future__ import annotations

import inspect
import shlex
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

#: The markers in ``DB_NEW``'s and ``DB_IF_PRESENT``'s help: a command that creates the ledger, or
#: one that reads it only when it exists.
CREATES_MARK = "created if missing"
OPTIONAL_MARK = "read if present"


@dataclass(frozen=True)
class Param:
    """One argument or option of a command, as declared in its function."""

    name: str                  # the Python parameter name
    kind: str                  # "argument" or "option"
    decls: tuple[str, ...]     # option names (--file, -f); () for arguments
    help: str
    metavar: str
    default: Any               # ... when required
    reads_path: bool           # annotated Path / list[Path] and not writable
    writes_path: bool
    many: bool                 # list-typed (repeatable option, or an argument taking several)
    is_flag: bool

    @property
    def required(self) -> bool:
        return self.default is ...

    @property
    def flag_name(self) -> str:
        return self.decls[0] if self.decls else self.name.upper()


@dataclass(frozen=True)
class CommandInfo:
    """One runnable command: its words after ``holokb``, its function, help and examples."""

    path: tuple[str, ...]
    function: Any
    help: str
    params: tuple[Param, ...]
    examples: tuple[tuple[str, ...], ...]
    example_lines: tuple[str, ...]   # as written after "Example:"

    @property
    def name(self) -> str:
        return " ".join(self.path)

    @property
    def summary(self) -> str:
        return self.help.strip().split("\n\n", 1)[0].replace("\n", " ")

    def file_params(self) -> list[Param]:
        return [p for p in self.params if p.reads_path]

    def option(self, decl: str) -> Param | None:
        return next((p for p in self.params if decl in p.decls), None)

    @property
    def takes_db(self) -> bool:
        return self.option("--db") is not None

    @property
    def creates_ledger(self) -> bool:
        db = self.option("--db")
        return db is not None and CREATES_MARK in db.help

    @property
    def needs_ledger(self) -> bool:
        """Reads a ledger that must exist (``common.DB``)."""
        db = self.option("--db")
        return db is not None and CREATES_MARK not in db.help and OPTIONAL_MARK not in db.help

    def example_for(self, param: Param) -> tuple[str, ...]:
        """The first example that names ``param`` (an option), else the first example."""
        for ex in self.examples:
            if any(d in ex for d in param.decls):
                return ex
        return self.examples[0] if self.examples else self.path


def commands() -> list[CommandInfo]:
    """Every runnable command, in help order (groups such as ``eval`` expanded)."""
    from . import app  # the whole CLI, every command module registered (even after a lone command)

    return list(_walk(app, ()))


def _walk(typer_app: Any, prefix: tuple[str, ...]) -> Iterator[CommandInfo]:
    for c in typer_app.registered_commands:
        if getattr(c, "hidden", False):
            continue
        name = c.name or c.callback.__name__.replace("_", "-")
        yield _command(prefix + (name,), c.callback)
    for g in typer_app.registered_groups:
        yield from _walk(g.typer_instance, prefix + (g.name,))


def _command(path: tuple[str, ...], fn: Any) -> CommandInfo:
    doc = inspect.getdoc(fn) or ""
    hints = typing.get_type_hints(fn)
    params = []
    for p in inspect.signature(fn).parameters.values():
        info = p.default
        kind = "argument" if type(info).__name__ == "ArgumentInfo" else "option"
        ann = hints.get(p.name, str)
        base, many = _unwrap(ann)
        writable = bool(getattr(info, "writable", False))
        is_path = base is Path
        decls = tuple(getattr(info, "param_decls", None) or ()) if kind == "option" else ()
        if kind == "option" and not decls:
            decls = ("--" + p.name.rstrip("_").replace("_", "-"),)
        params.append(Param(
            name=p.name, kind=kind, decls=decls, help=getattr(info, "help", None) or "",
            metavar=getattr(info, "metavar", None) or _metavar(base, p.name, kind),
            default=getattr(info, "default", None), reads_path=is_path and not writable,
            writes_path=is_path and writable, many=many, is_flag=base is bool,
        ))
    lines = tuple(line.strip()[len("Example:"):].strip() for line in doc.splitlines()
                  if line.strip().startswith("Example:"))
    return CommandInfo(path, fn, doc.replace("\b\n", ""), tuple(params), examples(doc), lines)


def _unwrap(ann: Any) -> tuple[Any, bool]:
    """(base type, is a list) of ``Optional[list[Path]]`` and the like."""
    many = False
    while True:
        origin = typing.get_origin(ann)
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        if origin is list:
            many, ann = True, args[0]
        elif origin is typing.Union and len(args) == 1:
            ann = args[0]
        else:
            return ann, many


def _metavar(base: Any, name: str, kind: str) -> str:
    if kind == "argument":
        return name.upper()
    return {Path: "PATH", int: "N", float: "NUMBER", bool: ""}.get(base, "TEXT")


def examples(help_text: str) -> tuple[tuple[str, ...], ...]:
    """The argv (after ``holokb``) of each ``Example: holokb …`` line; of a chain written with
    ``&&`` only the first holokb command counts."""
    out = []
    for line in help_text.splitlines():
        line = line.strip()
        if not line.startswith("Example:"):
            continue
        words = shlex.split(line[len("Example:"):])
        if "&&" in words:
            words = words[:words.index("&&")]
        if words and words[0] == "holokb":
            out.append(tuple(words[1:]))
    return tuple(out)
