"""What every command shares: options, time and IRI parsing, term rendering, opening the KB.

Heavy modules (rdflib, pyshacl, numpy, the engine) are imported inside functions, so that
``holokb --help`` and light commands start fast.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from ..core import MAX_TIME, AsOf, HolokbError, IRI, Limits, parse_instant
from .diagnostics import BAD_NAME, BAD_TIME, USAGE, SurfaceError
from .light import (  # noqa: F401 - re-exported: the command modules import them from here
    ASK_TIMEOUT_S, DEFAULT_PREFIXES, DERIVE_TIMEOUT_S, QUERY_TIMEOUT_S, TIMEOUT_HELP, check_ledger_path, now_ms,
    load_rules, open_kb, prefixes, rule_paths, seconds, short, working,
)

if TYPE_CHECKING:
    from ..kb import KnowledgeBase
    from ..ledger import FactView

DB = typer.Option("holokb.db", "--db", metavar="FILE", help="The ledger file; it must exist (holokb load creates one).")


DB_IF_PRESENT = typer.Option("holokb.db", "--db", metavar="FILE",
                             help="The ledger file; read if present (its facts inform the warnings).")


DB_NEW = typer.Option("holokb.db", "--db", metavar="FILE", help="The ledger file; created if missing.")


AS_OF = typer.Option(None, "--as-of", metavar="TIME", help="System time (and valid time unless --valid): 2026-01-01, 2026-01-01T10:00Z, latest.")


VALID = typer.Option(None, "--valid", metavar="TIME", help="Valid time, when it differs from --as-of.")


FORMAT = typer.Option("text", "--format", metavar="FORMAT", help="text or json.")


OUT = typer.Option(None, "--out", "-o", writable=True, metavar="FILE", help="Write to FILE instead of stdout.")


RULES = typer.Option(None, "--rules", metavar="PATH", help="Rule files or folders (default ./rules if present).")


SHAPES = typer.Option(None, "--shapes", metavar="PATH", help="SHACL shapes (files or folders) gating writes; default ./shapes if present.")


class Usage(SurfaceError):
    """A usage error (exit code 2): ``Usage("message")``, or with a sharper code such as ``BAD_TIME``."""

    def __init__(self, message: str, *, code: str = USAGE, hint: str | None = None):
        super().__init__(code, message, hint=hint, exit_code=2)


def parse_iri(text: str) -> IRI:
    t = text.strip()
    if t.startswith("<") and t.endswith(">"):
        return IRI(t[1:-1])
    if "://" in t:
        return IRI(t)
    prefix, sep, local = t.partition(":")
    pm = prefixes()
    if sep and prefix in pm:
        return IRI(pm[prefix] + local)
    raise Usage(f"cannot read {text!r} as an IRI", code=BAD_NAME,
                hint=f"use <http://...> or a known prefix ({', '.join(sorted(pm))})")


def instant(option: str, text: str) -> int:
    """A time given on the command line; an empty or unreadable one is a usage error (never "latest")."""
    if not text.strip():
        raise Usage(f"{option} is empty", code=BAD_TIME)
    try:
        return parse_instant(text)
    except HolokbError as e:
        raise Usage(f"{option}: {e.message}", code=BAD_TIME) from None


def as_of_point(as_of: Optional[str], valid: Optional[str]) -> AsOf:
    s = instant("--as-of", as_of) if as_of is not None else MAX_TIME
    v = instant("--valid", valid) if valid is not None else s
    return AsOf(s, v)


def at_time(at: Optional[str]) -> int:
    if at is None:
        return now_ms()  # the clock, read once, at the edge
    return instant("--at", at)


def check_output(path: Optional[Path]) -> None:
    """An output file's folder must exist and the path must not be a folder (checked before any work)."""
    from ..core import inputs

    if path is None:
        return
    if path.is_dir():
        raise inputs.input_error(inputs.IS_FOLDER, str(path), "is a folder; --out names a file to write")
    if not path.parent.is_dir():
        raise inputs.input_error(inputs.NOT_FOUND, str(path), f"cannot write here: the folder {path.parent}/ does not exist",
                                 hint="create the folder first, or choose another --out")


def fact_line(v: "FactView", *, with_subject: bool) -> str:
    f = v.fact
    head = f"{short(f.subject)} " if with_subject else ""
    neg = "not " if f.polarity == "negate" else ""
    quals = "".join(f" [{k}={short(t)}]" for k, t in f.qualifiers)
    return f"{neg}{head}{short(f.predicate)} {short(f.object)}{quals}"


def evidence_lines(kb: "KnowledgeBase", v: "FactView") -> list[str]:
    out = []
    for e in v.evidence:
        quote = ""
        if e.chunk is not None and e.char_start is not None:
            text = kb.ledger.chunk_text(e.document, e.chunk)
            if text is not None:
                quote = " " + json.dumps(text[e.char_start:e.char_end], ensure_ascii=False)
        where = e.document + (f"#{e.chunk}" if e.chunk else "") + (
            f"[{e.char_start}:{e.char_end}]" if e.char_start is not None else "")
        out.append(f"      from {where}{quote} ({e.extractor} {e.extractor_version}, confidence {e.confidence:g})")
    return out


def view_json(kb: "KnowledgeBase", v: "FactView") -> dict:
    from ..jsonviews import fact_view_json

    return fact_view_json(v)


def interval_text(v: "FactView") -> str:
    return f"valid {v.valid}, recorded {v.system}"


def limits_of(max_depth: Optional[int], max_derived: Optional[int], timeout: Optional[float]) -> Limits:
    """The budgets of one command, its deadline counted from now."""
    return Limits(max_depth=max_depth, max_derived=max_derived, max_results=None, timeout_s=timeout).started()
