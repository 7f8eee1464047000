"""holokb retract / holokb supersede: revise what the ledger holds, closing spans, never deleting."""
from __future__ import annotations

import json
import re
from typing import Optional

import typer

from ..core import Fact, Interval, format_ms
from .app import app
from .common import DB, FORMAT, SHAPES, Usage, at_time, instant, open_kb, prefixes, short
from .diagnostics import USAGE

FACT_HELP = ("The statement: 'ex:Alice ex:locatedIn ex:Lab' (subject, predicate, object in Turtle, literals "
             "as \"text\", 42 or \"2026-01-01\"^^xsd:date) or 'ex:locatedIn(ex:Alice, ex:Lab)'.")
_ATOM = re.compile(r"^\s*([^\s(]+)\((.*)\)\s*$", re.S)


def parse_statement(text: str) -> Fact:
    """A statement typed on the command line, read with the project's prefixes by the Turtle parser."""
    from ..core import DataSyntaxError
    from ..rdf.load import parse_records

    body = text.strip()
    m = _ATOM.match(body)
    if m:
        args = _split_args(m.group(2))
        if len(args) != 2:
            raise Usage(f"{m.group(1)}(…) needs two arguments (subject, object), got {len(args)}", code=USAGE)
        body = f"{args[0]} {m.group(1)} {args[1]}"
    head = "".join(f"@prefix {p}: <{ns}> .\n" for p, ns in sorted(prefixes().items()))
    try:
        recs = parse_records(f"{head}{body} .\n", "TURTLE", at=0, name="<statement>")
    except DataSyntaxError as e:
        raise Usage(f"cannot read {text!r} as one statement: {e.diagnostics[0].message if e.diagnostics else e}",
                    code=USAGE, hint="write subject predicate object, e.g. 'ex:Alice ex:locatedIn ex:Lab'") from None
    if len(recs) != 1:
        raise Usage(f"{text!r} is {len(recs)} statements; give exactly one", code=USAGE)
    return recs[0].fact


def _split_args(s: str) -> list[str]:
    """Split on top-level commas (not inside quotes or <…>)."""
    out, cur, quote, depth = [], [], "", 0
    for ch in s:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _said(f: Fact) -> str:
    return f"{short(f.subject)} {short(f.predicate)} {short(f.object)}"


@app.command()
def retract(fact: str = typer.Argument(..., help=FACT_HELP),
            at: Optional[str] = typer.Option(None, "--at", help="System time of the retraction (default: now)."),
            db: str = DB, format: str = FORMAT) -> None:
    """Retract a statement: close its open spans at --at (history is kept; idempotent).

    Example: holokb retract 'ex:Alice ex:locatedIn ex:Lab' --at 2026-02-01
    """
    f = parse_statement(fact)
    when = at_time(at)
    with open_kb(db) as kb:
        n = kb.retract(f, at=when)
    if format == "json":
        typer.echo(json.dumps({"factId": f.id, "closedSpans": n, "at": when, "atText": format_ms(when)},
                              sort_keys=True))
    elif n:
        typer.echo(f"retracted {_said(f)} at {format_ms(when)}: closed {n} span(s)")
    else:
        typer.echo(f"{_said(f)} has no open span: already retracted, nothing changed")


@app.command()
def supersede(fact: str = typer.Argument(..., help=FACT_HELP),
              at: Optional[str] = typer.Option(None, "--at", help="System time of the change (default: now)."),
              valid_from: Optional[str] = typer.Option(None, "--valid-from", help="Start of the valid time (default: always)."),
              valid_to: Optional[str] = typer.Option(None, "--valid-to", help="End of the valid time (default: open)."),
              db: str = DB, shapes: Optional[list[str]] = SHAPES, format: str = FORMAT) -> None:
    """Assert a statement that replaces the other values of its subject and predicate: their open
    spans close at --at where the valid times overlap (history is kept), gated by the shapes.

    Example: holokb supersede 'ex:Alice ex:locatedIn ex:Cafeteria' --at 2026-02-01
    """
    f = parse_statement(fact)
    when = at_time(at)
    start = instant("--valid-from", valid_from) if valid_from is not None else Interval.always().start
    end = instant("--valid-to", valid_to) if valid_to is not None else None
    if end is not None and end <= start:
        raise Usage("--valid-to must be after --valid-from", code=USAGE)
    valid = Interval(start, end)
    with open_kb(db, shapes) as kb:
        span = kb.supersede(f, at=when, valid=valid)
        counts = kb.ledger.last_counts
    if format == "json":
        typer.echo(json.dumps({"factId": f.id, "spanId": span, "newSpans": counts.new, "closedSpans": counts.closed,
                               "unchangedSpans": counts.unchanged, "at": when, "atText": format_ms(when)},
                              sort_keys=True))
    else:
        typer.echo(f"{_said(f)} holds from {format_ms(when)} (valid {valid}): {counts.closed} span(s) of other "
                   f"values closed, {counts.new} opened" + (", unchanged" if counts.unchanged else ""))
