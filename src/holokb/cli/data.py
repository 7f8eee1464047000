"""Data commands: init, load, facts, history, export, validate, stats."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Optional

import typer

from ..core import Limits, format_ms
from ..resources import data_dir
from .app import app
from .common import (
    AS_OF, DB, FORMAT, RULES, SHAPES, VALID, as_of_point, at_time, evidence_lines, fact_line,
    interval_text, load_rules, open_kb, parse_iri, short, view_json, working,
)


@app.command()
def init(folder: Path = typer.Argument(Path("."), help="Where to scaffold kb/, rules/ and shapes/.")) -> None:
    """Scaffold kb/, rules/ and shapes/ with a working example.

    Example: holokb init myproject && cd myproject && holokb load kb/
    """
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for name in ("kb", "rules", "shapes"):
        dst = folder / name
        if dst.exists():
            typer.echo(f"kept existing {dst}/")
            continue
        if name == "rules":  # the example only; rdfs.hkr / owl2rl.hkr ship with holokb, opt in with --rules
            dst.mkdir()
            shutil.copy(data_dir("rules") / "example.hkr", dst / "example.hkr")
        else:
            shutil.copytree(data_dir(name), dst)
        made.append(f"{dst}/")
    typer.echo(f"created {' '.join(made) or 'nothing new'}")
    typer.echo(f"next: cd {folder} && holokb load kb/ && holokb facts ex:Alice --as-of 2026-01-01T10:00Z")


@app.command()
def load(paths: list[Path] = typer.Argument(..., help="RDF files (.ttl .trig .nt .nq .owl, .gz) and folders; .txt/.md become documents."),
         db: str = DB, at: Optional[str] = typer.Option(None, "--at", help="System time of the load (default: now)."),
         shapes: Optional[list[str]] = SHAPES, format: str = FORMAT) -> None:
    """Load files into the ledger as one all-or-nothing batch, gated by the SHACL shapes.

    Example: holokb load kb/ --at 2026-01-01
    """
    when = at_time(at)
    with open_kb(db, shapes) as kb, working(f"loading {len(paths)} path(s) into {db}", format):
        r = kb.load(paths, at=when)
    if format == "json":
        typer.echo(json.dumps({"files": list(r.files), "facts": r.facts, "documents": r.documents,
                               "chunks": r.chunks, "at": r.at}, sort_keys=True))
    else:
        typer.echo(f"loaded {r.facts} facts and {r.documents} documents ({r.chunks} chunks) from "
                   f"{len(r.files)} files at {format_ms(r.at)} into {db}")


@app.command()
def facts(about: Optional[str] = typer.Argument(None, help="Subject IRI or prefixed name (ex:Alice)."),
          predicate: Optional[str] = typer.Option(None, "--predicate", "-p"),
          db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID,
          limit: int = typer.Option(100, "--limit"),
          derived: bool = typer.Option(False, "--derived", help="Derived facts (stored closure when fresh, else computed)."),
          rules: Optional[list[str]] = RULES, format: str = FORMAT) -> None:
    """What the KB believed (system time) about what was true (valid time), with where it came from.

    Example: holokb facts ex:Alice --as-of 2026-01-01T10:00Z
    """
    point = as_of_point(as_of, valid)
    if derived:
        _derived_facts(db, rules, point, about, predicate, limit, format)
        return
    with open_kb(db, []) as kb:
        page = kb.facts(parse_iri(about) if about else None, parse_iri(predicate) if predicate else None,
                        as_of=point, limits=Limits(max_results=limit))
        if format == "json":
            typer.echo(json.dumps({"asOf": {"system": point.system, "valid": point.valid},
                                   "facts": [view_json(kb, v) for v in page], "truncated": page.truncated},
                                  sort_keys=True, ensure_ascii=False))
            return
        typer.echo(f"{len(page)} facts {('about ' + about) if about else ''} at {point}")
        for v in page:
            typer.echo(f"  {fact_line(v, with_subject=about is None)}    {interval_text(v)}")
            for line in evidence_lines(kb, v):
                typer.echo(line)
        if page.truncated:
            typer.echo(f"  … truncated at {limit} results ({page.limit_hit}); use --limit to see more")


def _derived_facts(db, rules, point, about, predicate, limit, format) -> None:
    prog = load_rules(rules)
    with open_kb(db, []) as kb:
        read = kb.derived_facts(prog, as_of=point, about=parse_iri(about) if about else None,
                                predicate=parse_iri(predicate) if predicate else None, limits=Limits(max_results=limit))
    note = {"stored": f"from stored closure #{read.closure.id if read.closure else ''}",
            "computed": "no stored closure for this rule set and time: computed now (holokb derive stores one)",
            "stale": f"stored closure #{read.closure.id if read.closure else ''} is stale (the ledger changed since): "
                     "computed now; run holokb derive to refresh it"}[read.source]
    if format == "json":
        typer.echo(json.dumps({"source": read.source, "truncated": read.truncated,
                               "facts": [{"predicate": p.value, "args": [str(a) for a in args],
                                          "valid": [v.start, v.end], "rule": r, "score": sc}
                                         for p, args, v, r, sc in read.facts]}, sort_keys=True))
        return
    typer.echo(f"{len(read.facts)} derived facts at {point} — {note}")
    for p, args, v, r, sc in read.facts:
        typer.echo(f"  {short(p)}({', '.join(short(a) for a in args)})  valid {v}  by {r}"
                   + (f"  score {sc:.3f}" if sc is not None else ""))


@app.command()
def history(subject: str = typer.Argument(..., help="Subject (ex:Alice)."),
            predicate: str = typer.Argument(..., help="Predicate (ex:locatedIn)."),
            db: str = DB, format: str = FORMAT) -> None:
    """Every span ever recorded for (subject, predicate), on both time axes.

    Example: holokb history ex:Alice ex:locatedIn
    """
    with open_kb(db, []) as kb:
        page = kb.history(parse_iri(subject), parse_iri(predicate), limits=Limits(max_results=None))
        if format == "json":
            typer.echo(json.dumps([view_json(kb, v) for v in page], sort_keys=True, ensure_ascii=False))
            return
        for v in page:
            typer.echo(f"  {fact_line(v, with_subject=False)}    {interval_text(v)}")
            for line in evidence_lines(kb, v):
                typer.echo(line)


@app.command()
def export(db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID,
           out: Optional[Path] = typer.Option(None, "--out", "-o")) -> None:
    """Export TriG: the full reified ledger, or with --as-of/--valid a plain snapshot.

    Example: holokb export --out ledger.trig
    """
    with open_kb(db, []) as kb:
        text = kb.export(as_of=as_of_point(as_of, valid) if (as_of or valid) else None)
    if out:
        out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


@app.command()
def validate(db: str = DB, shapes: Optional[list[str]] = SHAPES, as_of: Optional[str] = AS_OF,
             valid: Optional[str] = VALID, format: str = FORMAT) -> None:
    """Validate the whole snapshot against the domain shapes and the ledger against shapes/holokb.ttl.

    Example: holokb validate --shapes shapes/
    """
    with open_kb(db, shapes) as kb, working("validating", format):
        domain, annotations = kb.validate(as_of=as_of_point(as_of, valid))
    reports = [("domain shapes", domain), ("annotation shapes", annotations)]
    bad = [d for _, r in reports if r is not None for d in r.diagnostics()]
    if format == "json":
        typer.echo(json.dumps({name: None if r is None else {"conforms": r.conforms,
                                                            "violations": len(r.violations)}
                               for name, r in reports}, sort_keys=True))
    else:
        for name, r in reports:
            typer.echo(f"{name}: " + ("not configured" if r is None else
                                      "conforms" if r.conforms else f"{len(r.violations)} violation(s)"))
        for d in bad:
            typer.echo(d.render())
    if any(r is not None and not r.conforms for _, r in reports):
        raise typer.Exit(1)


@app.command()
def stats(db: str = DB, json_: bool = typer.Option(False, "--json", help="Machine-readable counts.")) -> None:
    """Counts of facts, spans, evidence, entities, documents.

    Example: holokb stats --json
    """
    with open_kb(db, []) as kb:
        s = kb.stats()
    if json_:
        typer.echo(json.dumps(s, sort_keys=True))
    else:
        for k in sorted(s):
            typer.echo(f"{k:>10}  {s[k]}")
