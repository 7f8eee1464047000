"""The shared helpers a command needs before it knows it has work to do, importing neither typer nor
the diagnostics table (they load only when a helper has an error to raise).

``holokb query`` on a warm snapshot runs from here without typer (see :mod:`.query_fast`): each
import it skips is start-up time paid by every command of a query sequence.  :mod:`.common`
re-exports these names, so command modules keep importing them from there.
"""
from __future__ import annotations

import contextlib
import functools
import json
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ..core.vocab import HK, OWL, RDF, RDFS, XSD

if TYPE_CHECKING:
    from ..core.terms import Term
    from ..kb import KnowledgeBase

DEFAULT_PREFIXES = {"rdf": RDF, "rdfs": RDFS, "owl": OWL, "xsd": XSD, "hk": HK, "ex": "http://example.org/"}

#: Default deadlines (seconds) of the commands that close rules or run queries, so that nothing a
#: user types can hang; ``--timeout none`` lifts them.
DERIVE_TIMEOUT_S = 300.0
ASK_TIMEOUT_S = 60.0
QUERY_TIMEOUT_S = 60.0
TIMEOUT_HELP = "Seconds for the whole command (closing, decoding, storing), or 'none'. Default: {}."


@contextlib.contextmanager
def working(label: str, format: str = "text"):
    """A transient progress spinner with elapsed time on stderr, only when it is a terminal (never in
    --format json, pipes or CI), so stdout stays machine-readable."""
    if format == "json" or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        bar.add_task(label, total=None)
        yield


def prefixes() -> dict[str, str]:
    """Standard prefixes plus those declared in ./kb and ./rules files (so ``ex:Alice`` works)."""
    return _prefixes(str(Path.cwd()))


@functools.lru_cache(maxsize=4)
def _prefixes(cwd: str) -> dict[str, str]:
    out = dict(DEFAULT_PREFIXES)
    for folder in (Path(cwd) / "kb", Path(cwd) / "rules"):
        if folder.is_dir():
            for f in sorted(folder.rglob("*")):
                if f.suffix in (".ttl", ".trig", ".hkr"):
                    try:
                        text = f.read_text(encoding="utf-8", errors="replace")
                    except OSError:
                        continue  # an unreadable file is reported by the command that reads it
                    for p, ns in re.findall(r"@prefix\s+([\w-]*):\s*<([^>]*)>", text):
                        out.setdefault(p, ns)
    return out


def check_ledger_path(db: str, *, create: bool) -> None:
    p = Path(db)
    if p.is_dir():
        from .diagnostics import NOT_A_LEDGER, SurfaceError

        raise SurfaceError(NOT_A_LEDGER, f"{db} is a folder, not a ledger file", hint="--db names a file, e.g. holokb.db")
    if p.exists():
        return
    from .diagnostics import LEDGER_FAILED, NO_LEDGER, SurfaceError

    if not create:
        raise SurfaceError(NO_LEDGER, f"no ledger at {db}",
                           hint="`holokb load` creates one; check --db (default ./holokb.db)")
    if not p.parent.is_dir():
        raise SurfaceError(LEDGER_FAILED, f"cannot create {db}: the folder {p.parent}/ does not exist",
                           hint="create the folder first, or choose another --db")


def rule_paths(rules: Optional[list] = None) -> list:
    """The rule files or folders a command reads: --rules, else ./rules when it exists, else none."""
    if rules is None:
        return ["rules"] if Path("rules").is_dir() else []
    return rules


def load_rules(rules: Optional[list] = None):
    """The program of the rule files (default ./rules), from the per-user program cache when the
    same files were parsed before (:mod:`holokb.program_cache`): neither lark nor the engine is
    imported then."""
    from ..program_cache import cached_program

    def parse(paths):
        from ..reasoning import load_program

        return load_program(paths)

    return cached_program(rule_paths(rules), parse)


def seconds(text: Optional[str], default: float) -> Optional[float]:
    """A ``--timeout`` value: a positive number of seconds, ``none`` (no deadline), or the default."""
    if text is None:
        return default
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        from .common import Usage

        raise Usage(f"--timeout takes seconds or 'none', not {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        from .common import Usage

        raise Usage(f"--timeout must be a positive number of seconds (or 'none'), not {text!r}")
    return value


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def short(t: Term) -> str:
    """A term as the CLI prints it (prefixed name, literal in Turtle form)."""
    from ..core.terms import IRI, Literal  # not at import: a warm ``holokb query`` never needs them

    if isinstance(t, IRI):
        best = None
        for p, ns in prefixes().items():
            if t.value.startswith(ns) and re.fullmatch(r"[\w.-]*", t.value[len(ns):]):
                if best is None or len(ns) > len(best[1]):
                    best = (p, ns)
        return f"{best[0]}:{t.value[len(best[1]):]}" if best else f"<{t.value}>"
    if isinstance(t, Literal):
        if t.lang:
            return f'"{t.lexical}"@{t.lang}'
        if t.datatype == XSD + "string":
            return json.dumps(t.lexical, ensure_ascii=False)
        if t.datatype in (XSD + "integer", XSD + "boolean", XSD + "decimal"):
            return t.lexical
        return f'"{t.lexical}"^^{short(IRI(t.datatype))}'
    return str(t)


def open_kb(db: str, shapes: Optional[list] = None, *, create: bool = False) -> "KnowledgeBase":
    """The KB in ledger file ``db``; only commands that write facts pass ``create=True`` — reading a
    ledger that does not exist is an error, never a fresh empty ledger."""
    check_ledger_path(db, create=create)
    if shapes is None:
        shapes = ["shapes"] if Path("shapes").is_dir() else []
    from ..kb import KnowledgeBase

    return KnowledgeBase.open(db, shapes=shapes)


def read_options(args: list[str], options: dict[str, tuple], defaults: dict[str, object], *,
                 ints: tuple[str, ...] = (), paths: tuple[str, ...] = ()) -> tuple[dict[str, object], list[str]] | None:
    """A command line's options as typer reads them, and its positional arguments; None when the line
    is not one this plain reader is sure to read as typer does (the fast entries of ``query`` and
    ``derive``).  ``options``: name -> (parameter, takes a value, repeatable[, the value a flag sets:
    True unless given]); the last of a non-repeatable option wins; parameters in ``ints`` are
    integers, those in ``paths`` paths."""
    out: dict[str, object] = dict(defaults)
    positional: list[str] = []
    i = 0
    while i < len(args):
        tok = args[i]
        i += 1
        if not tok.startswith("-") or tok == "-":
            positional.append(tok)
            continue
        name, eq, value = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        spec = options.get(name)
        if spec is None:
            return None  # --help, --, -fX, an unknown or abbreviated option: typer's to read
        param, takes_value, repeat = spec[:3]
        if not takes_value:
            if eq:
                return None
            out[param] = spec[3] if len(spec) > 3 else True
            continue
        if not eq:
            if i >= len(args):
                return None
            value = args[i]
            i += 1
        if value.startswith("-") and not eq:
            return None  # typer may read it as an option name: its own message
        parsed: object = value
        if param in ints:
            try:
                parsed = int(value, 10)
            except ValueError:
                return None
        elif param in paths:
            parsed = Path(value)
        out[param] = [*(out[param] or []), parsed] if repeat else parsed  # type: ignore[misc]
    return out, positional


def say(text: str) -> None:
    """One line on stderr (what ``typer.echo(text, err=True)`` writes)."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
