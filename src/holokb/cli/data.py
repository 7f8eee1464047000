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
    AS_OF, DB, DB_NEW, FORMAT, OUT, RULES, SHAPES, VALID, Usage, as_of_point, check_output, at_time, evidence_lines, fact_line,
    interval_text, load_rules, open_kb, parse_iri, short, view_json, working,
)


RULE_SETS = ("rdfs", "owl2rl")


@app.command()
def init(folder: Path = typer.Argument(Path("."), writable=True, help="Where to scaffold kb/, rules/, shapes/ and provenance.rq."),
         with_: Optional[list[str]] = typer.Option(None, "--with", metavar="RULESET",
                                                   help="Also copy a shipped rule set into rules/: rdfs or owl2rl (repeatable).")) -> None:
    """Scaffold kb/, rules/, shapes/ and provenance.rq with a working example.

    \b
    Example: holokb init myproject && cd myproject && holokb load kb/
    Example: holokb init lubm --with owl2rl
    """
    extra = list(dict.fromkeys(with_ or ()))
    unknown = [w for w in extra if w not in RULE_SETS]
    if unknown:
        raise Usage(f"--with {unknown[0]}: not a shipped rule set", hint=f"choose from {', '.join(RULE_SETS)}")
    if folder.exists() and not folder.is_dir():
        raise Usage(f"{folder} is a file, not a folder", hint="name a new or existing folder")
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for name in ("kb", "rules", "shapes"):
        dst = folder / name
        if dst.exists():
            typer.echo(f"kept existing {dst}/")
            continue
        if name == "rules":  # the example only; rdfs.hkr / owl2rl.hkr are opt-in (--with)
            dst.mkdir()
            shutil.copy(data_dir("rules") / "example.hkr", dst / "example.hkr")
        else:  # kb/queries holds shipped queries, copied to the project's top level below
            shutil.copytree(data_dir(name), dst, ignore=shutil.ignore_patterns("queries") if name == "kb" else None)
        made.append(f"{dst}/")
    for name in extra:
        dst = folder / "rules" / f"{name}.hkr"
        if dst.exists():
            typer.echo(f"kept existing {dst}")
        else:
            shutil.copy(data_dir("rules") / f"{name}.hkr", dst)
            made.append(str(dst))
    for q in sorted((data_dir("kb") / "queries").glob("*.rq")):
        dst = folder / q.name
        if dst.exists():
            typer.echo(f"kept existing {dst}")
        else:
            shutil.copy(q, dst)
            made.append(str(dst))
    typer.echo(f"created {' '.join(made) or 'nothing new'}")
    typer.echo(f"next: cd {folder} && holokb load kb/ && holokb facts ex:Alice --as-of 2026-01-01T10:00Z")


@app.command()
def load(paths: list[Path] = typer.Argument(..., help="RDF files (.ttl .trig .nt .nq .owl .rdf, optionally .gz) and folders; .txt/.md become documents."),
         db: str = DB_NEW, at: Optional[str] = typer.Option(None, "--at", metavar="TIME", help="System time of the load (default: now)."),
         shapes: Optional[list[Path]] = SHAPES,
         as_text: bool = typer.Option(False, "--as-text", help="Load the named files as text documents, whatever their extension."),
         format: str = FORMAT) -> None:
    """Load files into the ledger as one all-or-nothing batch, gated by the SHACL shapes.

    Prints what it stored: new facts (distinct statements), new spans (a statement's valid and
    system time), evidence, documents and chunks.

    \b
    Example: holokb load kb/ --at 2026-01-01
    """
    when = at_time(at)
    skipped = check_load_paths(paths, as_text=as_text)
    for folder, names in skipped:
        typer.echo(f"note: skipped {len(names)} file(s) under {folder}/ that are neither RDF nor documents: "
                   f"{', '.join(names[:5])}{' …' if len(names) > 5 else ''}", err=True)
    with open_kb(db, shapes, create=True) as kb, working(f"loading {len(paths)} path(s) into {db}", format):
        before = kb.stats()
        r = kb.load(paths, at=when, documents=[p for p in paths if p.is_file()] if as_text else ())
        after = kb.stats()
    added = {k: after[k] - before.get(k, 0) for k in ("facts", "spans", "evidence", "documents", "chunks")}
    if format == "json":
        typer.echo(json.dumps({"files": list(r.files), "statements": r.facts, "at": r.at,
                               "atText": format_ms(r.at), "unchangedSpans": r.spans_unchanged,
                               "closedSpans": r.spans_closed, **added}, sort_keys=True))
    else:
        typer.echo(f"loaded {len(r.files)} file(s) into {db} at {format_ms(r.at)}: {r.facts} statement(s) read; "
                   f"new in the ledger: {added['facts']} fact(s) (distinct statements), {added['spans']} span(s) "
                   f"(a statement with its valid and system time), {added['evidence']} evidence, "
                   f"{added['documents']} document(s) ({added['chunks']} chunk(s))"
                   + (f"; {r.spans_closed} span(s) closed" if r.spans_closed else "")
                   + (f"; {r.spans_unchanged} span(s) unchanged (already held)" if r.spans_unchanged else ""))


def check_load_paths(paths: list[Path], *, as_text: bool) -> list[tuple[str, list[str]]]:
    """Refuse named files whose extension says nothing holokb reads; list what folders skip."""
    from ..core import inputs
    from ..kb import RDF_SUFFIXES, TEXT_SUFFIXES

    def readable(f: Path) -> bool:
        name = f.name[:-3] if f.name.endswith(".gz") else f.name
        return name.endswith(RDF_SUFFIXES) or f.suffix in TEXT_SUFFIXES

    skipped = []
    known = " ".join(RDF_SUFFIXES) + " (optionally .gz); documents: " + " ".join(TEXT_SUFFIXES)
    for p in paths:
        if p.is_dir():
            names = sorted(str(f.relative_to(p)) for f in p.rglob("*")
                           if f.is_file() and not f.name.startswith(".") and not readable(f))
            if names:
                skipped.append((str(p).rstrip("/"), names))
        elif p.exists() and not as_text and not readable(p):
            raise inputs.input_error(inputs.UNKNOWN_EXTENSION, str(p),
                                     f"unknown file extension {''.join(p.suffixes) or '(none)'!r}",
                                     hint=f"RDF: {known}; or --as-text to load it as a text document")
    return skipped


@app.command()
def facts(about: Optional[str] = typer.Argument(None, help="Subject IRI or prefixed name (ex:Alice)."),
          predicate: Optional[str] = typer.Option(None, "--predicate", "-p", help="Only this predicate (ex:locatedIn)."),
          db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID,
          limit: int = typer.Option(100, "--limit", help="Most facts to print; the output says when more exist."),
          derived: bool = typer.Option(False, "--derived", help="Derived facts (stored closure when fresh, else computed)."),
          rules: Optional[list[Path]] = RULES, format: str = FORMAT) -> None:
    """What the KB believed (system time) about what was true (valid time), with where it came from.

    \b
    Example: holokb facts ex:Alice --as-of 2026-01-01T10:00Z
    Example: holokb facts --derived --rules rules/ --valid 2026-04-01
    """
    point = as_of_point(as_of, valid)
    if rules is not None and not derived:
        raise Usage("--rules applies to derived facts only", hint="add --derived, or drop --rules")
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
        typer.echo(f"{len(page)} fact{'' if len(page) == 1 else 's'} {('about ' + about) if about else ''} at {point}")
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

    \b
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
           out: Optional[Path] = OUT) -> None:
    """Export TriG: the full reified ledger, or with --as-of/--valid a plain snapshot.

    \b
    Example: holokb export --out ledger.trig
    """
    check_output(out)
    with open_kb(db, []) as kb:
        text = kb.export(as_of=as_of_point(as_of, valid) if (as_of is not None or valid is not None) else None)
    if out:
        out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


@app.command()
def validate(db: str = DB, shapes: Optional[list[Path]] = SHAPES, as_of: Optional[str] = AS_OF,
             valid: Optional[str] = VALID, format: str = FORMAT) -> None:
    """Validate the whole snapshot against the domain shapes and the ledger against shapes/holokb.ttl.

    \b
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

    \b
    Example: holokb stats --json
    """
    with open_kb(db, []) as kb:
        s = kb.stats()
    if json_:
        typer.echo(json.dumps(s, sort_keys=True))
    else:
        for k in sorted(s):
            typer.echo(f"{k:>10}  {s[k]}")
