"""The command line: the only module that prints, and the only one that reads the clock.

Exit codes: 0 ok, 1 findings (diagnostics, violations, rejected input), 2 usage error.
"""
from __future__ import annotations

import contextlib
import functools
import json
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Optional

import typer

from .core import (
    MAX_TIME, AsOf, HolokbError, IRI, Limits, Literal, Term, format_ms, parse_instant,
)
from .core.terms import OWL, RDF, RDFS, XSD, HK
from .kb import KnowledgeBase
from .ledger import FactView
from .resources import data_dir

app = typer.Typer(
    help="holokb: a bitemporal knowledge base with provenance, rules, SHACL, SMT and SPARQL.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
)

DB = typer.Option("holokb.db", "--db", help="The ledger file.")
AS_OF = typer.Option(None, "--as-of", help="System time (and valid time unless --valid): 2026-01-01, 2026-01-01T10:00Z, latest.")
VALID = typer.Option(None, "--valid", help="Valid time, when it differs from --as-of.")
FORMAT = typer.Option("text", "--format", help="text or json.")
RULES = typer.Option(None, "--rules", help="Rule files or folders (default ./rules if present).")
SHAPES = typer.Option(None, "--shapes", help="SHACL shapes (files or folders) gating writes; default ./shapes if present.")

_DEFAULT_PREFIXES = {"rdf": RDF, "rdfs": RDFS, "owl": OWL, "xsd": XSD, "hk": HK, "ex": "http://example.org/"}


class Usage(Exception):
    """A usage error: exit code 2."""


@contextlib.contextmanager
def _working(label: str, format: str = "text"):
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


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@functools.lru_cache(maxsize=1)
def _prefixes() -> dict[str, str]:
    """Standard prefixes plus those declared in ./kb and ./rules files (so ``ex:Alice`` works)."""
    out = dict(_DEFAULT_PREFIXES)
    for folder in (Path("kb"), Path("rules")):
        if folder.is_dir():
            for f in sorted(folder.rglob("*")):
                if f.suffix in (".ttl", ".trig", ".hkr"):
                    for p, ns in re.findall(r"@prefix\s+([\w-]*):\s*<([^>]*)>", f.read_text(errors="replace")):
                        out.setdefault(p, ns)
    return out


def _iri(text: str) -> IRI:
    t = text.strip()
    if t.startswith("<") and t.endswith(">"):
        return IRI(t[1:-1])
    if "://" in t:
        return IRI(t)
    prefix, sep, local = t.partition(":")
    pm = _prefixes()
    if sep and prefix in pm:
        return IRI(pm[prefix] + local)
    raise Usage(f"cannot read {text!r} as an IRI: use <http://...> or a known prefix ({', '.join(sorted(pm))})")


def _short(t: Term) -> str:
    if isinstance(t, IRI):
        best = None
        for p, ns in _prefixes().items():
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
        return f'"{t.lexical}"^^{_short(IRI(t.datatype))}'
    return str(t)


def _as_of(as_of: Optional[str], valid: Optional[str]) -> AsOf:
    try:
        s = parse_instant(as_of) if as_of else MAX_TIME
        v = parse_instant(valid) if valid else s
    except HolokbError as e:
        raise Usage(f"{e.message}; write times as 2026-01-01, 2026-01-01T10:00Z or latest") from None
    return AsOf(s, v)


def _at(at: Optional[str]) -> int:
    if at is None:
        return _now_ms()  # the clock, read once, at the edge
    try:
        return parse_instant(at)
    except HolokbError as e:
        raise Usage(f"--at: {e.message}") from None


def _open(db: str, shapes: Optional[list[str]] = None) -> KnowledgeBase:
    if shapes is None:
        shapes = ["shapes"] if Path("shapes").is_dir() else []
    return KnowledgeBase.open(db, shapes=shapes)


def _fact_line(v: FactView, *, with_subject: bool) -> str:
    f = v.fact
    head = f"{_short(f.subject)} " if with_subject else ""
    neg = "not " if f.polarity == "negate" else ""
    quals = "".join(f" [{k}={_short(t)}]" for k, t in f.qualifiers)
    return f"{neg}{head}{_short(f.predicate)} {_short(f.object)}{quals}"


def _evidence_lines(kb: KnowledgeBase, v: FactView) -> list[str]:
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


def _view_json(kb: KnowledgeBase, v: FactView) -> dict:
    def term(t: Term) -> dict:
        if isinstance(t, IRI):
            return {"type": "uri", "value": t.value}
        d = {"type": "literal", "value": t.lexical, "datatype": t.datatype}
        if t.lang:
            d["lang"] = t.lang
        return d

    return {
        "factId": v.fact_id, "spanId": v.span_id, "subject": term(v.fact.subject),
        "predicate": term(v.fact.predicate), "object": term(v.fact.object), "polarity": v.fact.polarity,
        "qualifiers": {k: term(t) for k, t in v.fact.qualifiers},
        "valid": [v.valid.start, v.valid.end], "system": [v.system.start, v.system.end],
        "evidence": [{"document": e.document, "chunk": e.chunk, "charStart": e.char_start, "charEnd": e.char_end,
                      "extractor": e.extractor, "extractorVersion": e.extractor_version,
                      "confidence": e.confidence, "assertedAt": e.asserted_at} for e in v.evidence],
    }


def _interval(v: FactView) -> str:
    return f"valid {v.valid}, recorded {v.system}"


# -- commands ------------------------------------------------------------------------------------

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
    when = _at(at)
    with _open(db, shapes) as kb, _working(f"loading {len(paths)} path(s) into {db}", format):
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
    point = _as_of(as_of, valid)
    if derived:
        _derived_facts(db, rules, point, about, predicate, limit, format)
        return
    with _open(db, []) as kb:
        page = kb.facts(_iri(about) if about else None, _iri(predicate) if predicate else None,
                        as_of=point, limits=Limits(max_results=limit))
        if format == "json":
            typer.echo(json.dumps({"asOf": {"system": point.system, "valid": point.valid},
                                   "facts": [_view_json(kb, v) for v in page], "truncated": page.truncated},
                                  sort_keys=True, ensure_ascii=False))
            return
        typer.echo(f"{len(page)} facts {('about ' + about) if about else ''} at {point}")
        for v in page:
            typer.echo(f"  {_fact_line(v, with_subject=about is None)}    {_interval(v)}")
            for line in _evidence_lines(kb, v):
                typer.echo(line)
        if page.truncated:
            typer.echo(f"  … truncated at {limit} results ({page.limit_hit}); use --limit to see more")


def _derived_facts(db, rules, point, about, predicate, limit, format) -> None:
    prog = _program(rules)
    with _open(db, []) as kb:
        read = kb.derived_facts(prog, as_of=point, about=_iri(about) if about else None,
                                predicate=_iri(predicate) if predicate else None, limits=Limits(max_results=limit))
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
        typer.echo(f"  {_short(p)}({', '.join(_short(a) for a in args)})  valid {v}  by {r}"
                   + (f"  score {sc:.3f}" if sc is not None else ""))


@app.command()
def query(text: Optional[str] = typer.Argument(None, help="A SPARQL 1.1 query (or use --file)."),
          file: Optional[Path] = typer.Option(None, "--file", "-f", help="Read the query from a .rq file."),
          db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID, rules: Optional[list[str]] = RULES,
          ledger: bool = typer.Option(False, "--ledger", help="Query the reified ledger (provenance, time as data)."),
          limit: Optional[int] = typer.Option(None, "--limit", help="Most result rows (default: all)."),
          format: str = typer.Option("table", "--format", help="table, json, xml, csv, tsv (SELECT/ASK); turtle, ntriples (CONSTRUCT/DESCRIBE).")) -> None:
    """SPARQL over the as-of snapshot: visible triples plus the closure under the rules at the same time.

    Rules: --rules, else ./rules, else the rule set of the last `holokb derive` on this ledger.
    Example: holokb query 'SELECT ?c WHERE { ex:AchillesIDE ex:hasCapability ?c }' --valid 2026-04-01
    """
    from .sparql import SparqlSyntaxError

    if (text is None) == (file is None):
        raise Usage("give the query as an argument or with --file, not both")
    q = file.read_text(encoding="utf-8") if file else text
    point = _as_of(as_of, valid)
    with _open(db, []) as kb:
        program = None
        if not ledger:
            if rules is not None or Path("rules").is_dir():
                program = _program(rules)
            else:
                program = kb.loaded_rules()
                if program is not None:
                    typer.echo(f"using the rule set of the last derive ({program.rule_set_hash[:12]})", err=True)
        try:
            with _working("querying (builds the snapshot when it is missing or stale)", format):
                result = kb.query(q, as_of=point, rules=program, ledger_view=ledger,
                                  limits=Limits(max_results=limit), name=str(file) if file else "<query>")
        except SparqlSyntaxError as e:
            typer.echo(e.render(), err=True)
            raise typer.Exit(2)
    if result.snapshot_built:
        typer.echo("snapshot rebuilt", err=True)
    sys.stdout.write(result.serialize(format))
    if result.truncated:
        typer.echo(f"truncated: the {result.limit_hit} budget was hit", err=True)


@app.command()
def history(subject: str = typer.Argument(..., help="Subject (ex:Alice)."),
            predicate: str = typer.Argument(..., help="Predicate (ex:locatedIn)."),
            db: str = DB, format: str = FORMAT) -> None:
    """Every span ever recorded for (subject, predicate), on both time axes.

    Example: holokb history ex:Alice ex:locatedIn
    """
    with _open(db, []) as kb:
        page = kb.history(_iri(subject), _iri(predicate), limits=Limits(max_results=None))
        if format == "json":
            typer.echo(json.dumps([_view_json(kb, v) for v in page], sort_keys=True, ensure_ascii=False))
            return
        for v in page:
            typer.echo(f"  {_fact_line(v, with_subject=False)}    {_interval(v)}")
            for line in _evidence_lines(kb, v):
                typer.echo(line)


@app.command()
def export(db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID,
           out: Optional[Path] = typer.Option(None, "--out", "-o")) -> None:
    """Export TriG: the full reified ledger, or with --as-of/--valid a plain snapshot.

    Example: holokb export --out ledger.trig
    """
    with _open(db, []) as kb:
        text = kb.export(as_of=_as_of(as_of, valid) if (as_of or valid) else None)
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
    with _open(db, shapes) as kb, _working("validating", format):
        domain, annotations = kb.validate(as_of=_as_of(as_of, valid))
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
    with _open(db, []) as kb:
        s = kb.stats()
    if json_:
        typer.echo(json.dumps(s, sort_keys=True))
    else:
        for k in sorted(s):
            typer.echo(f"{k:>10}  {s[k]}")


def _program(rules: Optional[list[str]]):
    from .reasoning import load_program

    if rules is None:
        rules = ["rules"] if Path("rules").is_dir() else []
    return load_program(rules)


def _limits(max_depth: Optional[int], max_derived: Optional[int], timeout: Optional[float]) -> Limits:
    return Limits(max_depth=max_depth, max_derived=max_derived, max_results=None, timeout_s=timeout)


@app.command()
def check(files: Optional[list[str]] = typer.Argument(None, help="Rule files or folders (default ./rules)."),
          consistency: bool = typer.Option(False, "--consistency", help="Also check that the KB, rules, constraints and shape cardinalities can all hold."),
          db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID,
          shapes: Optional[list[str]] = SHAPES, solver: str = typer.Option("z3", "--solver", help="z3 or cvc5."),
          timeout: float = typer.Option(10.0, "--timeout", help="Solver seconds."),
          format: str = FORMAT) -> None:
    """Check rule files: every mistake at once, with code, file:line:col, the line, a caret and a hint.
    With --consistency, also solve: print the smallest set of conflicting facts with their evidence.

    Example: holokb check rules/ --consistency --as-of 2026-01-01T10:00Z
    """
    prog = _program(files)
    summary = {"rules": len(prog.rules), "constraints": len(prog.constraints), "queries": len(prog.queries),
               "strata": len(prog.strata), "ruleSetHash": prog.rule_set_hash}
    if not consistency:
        if format == "json":
            typer.echo(json.dumps(summary, sort_keys=True))
        else:
            typer.echo(f"ok: {len(prog.rules)} rules, {len(prog.constraints)} constraints, "
                       f"{len(prog.queries)} queries in {len(prog.strata)} strata (rule set {prog.rule_set_hash[:12]})")
        return
    from .solver import SolverLimits

    point = _as_of(as_of, valid)
    with _open(db, shapes) as kb:
        result, info = kb.check_consistency(prog, as_of=point, backend=solver,
                                            limits=SolverLimits(timeout_ms=int(timeout * 1000)))
    if format == "json":
        summary.update({"status": result.status, "activeFacts": info.facts, "truncated": info.truncated,
                        "reason": result.reason, "limitHit": result.limit_hit, "constraints": list(result.constraints),
                        "conflict": [{"factId": f.key, "predicate": f.predicate, "args": [str(a) for a in f.args],
                                      "valid": [f.valid.start, f.valid.end], "evidence": list(f.evidence)}
                                     for f in result.facts]})
        typer.echo(json.dumps(summary, sort_keys=True))
    else:
        typer.echo(f"{result.status} at {point} ({info.facts} facts in the active set"
                   + (", capped" if info.truncated else "") + ")")
        if result.status == "inconsistent":
            typer.echo("these cannot all hold" + (f" (at {format_ms(result.at)})" if result.at is not None else "") + ":")
            for f in result.facts:
                typer.echo(f"  {_short(IRI(f.predicate))}({', '.join(_short(a) for a in f.args)})  valid "
                           f"{f.valid}  fact {f.key[:12]}")
                for e in f.evidence:
                    typer.echo(f"      from {e}")
            for c in result.constraints:
                typer.echo(f"  with {c}")
        elif result.reason:
            typer.echo(f"  {result.reason}" + (f" (limit: {result.limit_hit})" if result.limit_hit else ""))
    if result.status != "consistent":
        raise typer.Exit(1)


@app.command()
def prove(goal: str = typer.Argument(..., help="A ground fact, e.g. 'ex:expired(ex:supportConsoleToken)'."),
          rules: Optional[list[str]] = RULES, db: str = DB, as_of: Optional[str] = AS_OF,
          valid: Optional[str] = VALID, shapes: Optional[list[str]] = SHAPES,
          solver: str = typer.Option("z3", "--solver"), timeout: float = typer.Option(10.0, "--timeout"),
          max_rounds: int = typer.Option(3, "--max-rounds"), format: str = FORMAT) -> None:
    """Is a fact entailed, refuted, or unknown at a time? With the facts and rules that decide it.

    Example: holokb prove 'ex:expired(ex:supportConsoleToken)' --valid 2026-04-01
    """
    from .solver import SolverLimits

    prog = _program(rules)
    with _open(db, shapes) as kb:
        r = kb.prove(prog, goal, as_of=_as_of(as_of, valid), backend=solver,
                     limits=SolverLimits(timeout_ms=int(timeout * 1000), max_rounds=max_rounds))
    if format == "json":
        typer.echo(json.dumps({"status": r.status, "reason": r.reason, "limitHit": r.limit_hit, "rounds": r.rounds,
                               "constraints": list(r.constraints),
                               "facts": [{"factId": f.key, "predicate": f.predicate, "args": [str(a) for a in f.args],
                                          "polarity": f.polarity, "evidence": list(f.evidence)} for f in r.facts]},
                              sort_keys=True))
        return
    typer.echo(f"{r.status}: {goal}" + (f"  ({r.reason}" + (f"; limit {r.limit_hit}" if r.limit_hit else "") + ")"
                                          if r.reason else ""))
    for f in r.facts:
        neg = "not " if f.polarity == "negate" else ""
        typer.echo(f"  {neg}{_short(IRI(f.predicate))}({', '.join(_short(a) for a in f.args)})  valid {f.valid}")
        for e in f.evidence:
            typer.echo(f"      from {e}")
    for c in r.constraints:
        typer.echo(f"  using {c}")


eval_app = typer.Typer(help="Score reasoning data sets (one JSON line per item with --out).", no_args_is_help=True)
app.add_typer(eval_app, name="eval")


@eval_app.command("deduction")
def eval_deduction_cmd(file: Path = typer.Argument(..., help="Logical-deduction JSON (ordering puzzles)."),
                       out: Optional[Path] = typer.Option(None, "--out"), solver: str = typer.Option("z3", "--solver"),
                       limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N items.")) -> None:
    """Ordering puzzles → FormalProposal → model finding; prints accuracy=… n=….

    Example: holokb eval deduction train.json --out preds.jsonl
    """
    from .solver.eval_deduction import eval_deduction

    typer.echo(eval_deduction(file, out=out, backend=solver, limit=limit).line())


@eval_app.command("folio")
def eval_folio_cmd(file: Path = typer.Argument(..., help="FOLIO JSONL with premises-FOL / conclusion-FOL."),
                   out: Optional[Path] = typer.Option(None, "--out"), solver: str = typer.Option("z3", "--solver"),
                   limit: Optional[int] = typer.Option(None, "--limit")) -> None:
    """FOLIO first-order premises → entailed (True) / refuted (False) / otherwise Uncertain; prints accuracy.

    Example: holokb eval folio folio_v2_train.jsonl --out preds.jsonl
    """
    from .solver.eval_folio import eval_folio

    typer.echo(eval_folio(file, out=out, backend=solver, limit=limit).line())


@app.command()
def derive(rules: Optional[list[str]] = RULES, db: str = DB, as_of: Optional[str] = AS_OF,
           valid: Optional[str] = VALID, max_depth: Optional[int] = typer.Option(None, "--max-depth"),
           max_derived: Optional[int] = typer.Option(None, "--max-derived"),
           timeout: Optional[float] = typer.Option(None, "--timeout", help="Seconds."),
           show: int = typer.Option(20, "--show", help="How many derived facts to print."),
           store: bool = typer.Option(True, "--store/--no-store", help="Store the closure (with proofs) in the ledger."),
           format: str = FORMAT) -> None:
    """Close the KB under the rules as of a time; store it, marked derived, with its proofs.

    Example: holokb derive --rules rules/ --valid 2026-04-01
    """
    prog = _program(rules)
    point = _as_of(as_of, valid)
    info = None
    with _open(db, []) as kb, _working("deriving", format):
        if store:
            model, info = kb.derive_and_store(prog, as_of=point, computed_at=_now_ms(),
                                              limits=_limits(max_depth, max_derived, timeout))
        else:
            model = kb.derive(prog, as_of=point, limits=_limits(max_depth, max_derived, timeout))
    derived = model.derived()
    if format == "json":
        typer.echo(json.dumps({
            "asOf": {"system": point.system, "valid": point.valid}, "derived": model.stats.derived,
            "iterations": model.stats.iterations, "truncated": model.truncated, "limitHit": model.limit_hit,
            "ruleCounts": dict(model.stats.rule_counts), "ruleSetHash": prog.rule_set_hash,
            "storedClosure": None if info is None else info.id,
            "violations": [{"constraint": v.constraint, "bindings": {k: str(t) for k, t in v.bindings}}
                           for v in model.violations]}, sort_keys=True))
    else:
        typer.echo(f"derived {model.stats.derived} facts in {model.stats.iterations} iterations at {point}")
        for d in derived[:show]:
            args = ", ".join(_short(a) for a in d.args)
            typer.echo(f"  {_short(IRI(d.predicate))}({args})  valid {d.valid}  by {d.rule}"
                       + (f"  score {d.score:.3f}" if d.score is not None else ""))
        if len(derived) > show:
            typer.echo(f"  … {len(derived) - show} more (use --show)")
        for v in model.violations:
            binds = " ".join(f"?{k}={_short(t)}" for k, t in v.bindings)
            typer.echo(f"violation of {v.constraint}: {binds}")
        if model.truncated:
            typer.echo(f"truncated: the {model.limit_hit} budget was hit; the closure is partial")
        if info is not None:
            typer.echo(f"stored as closure #{info.id} (rule set {prog.rule_set_hash[:12]}, {point}) in {db}")
    if model.violations:
        raise typer.Exit(1)


@app.command()
def ask(query: str = typer.Argument(..., help="A rule query, e.g. '?- ex:hasCapability(ex:AchillesIDE, ?c).'"),
        rules: Optional[list[str]] = RULES, db: str = DB, as_of: Optional[str] = AS_OF,
        valid: Optional[str] = VALID, timeout: Optional[float] = typer.Option(None, "--timeout"),
        format: str = FORMAT) -> None:
    """Answer a rule query goal-directed (without materialising everything).

    Example: holokb ask '?- ex:hasCapability(ex:AchillesIDE, ?c).'
    """
    prog = _program(rules)
    with _open(db, []) as kb:
        ans = kb.ask(prog, query, as_of=_as_of(as_of, valid), limits=_limits(None, None, timeout))
    if format == "json":
        typer.echo(json.dumps({"head": {"vars": list(ans.variables)},
                               "results": {"bindings": [{v: str(t) for v, t in zip(ans.variables, row)}
                                                        for row in ans.rows]},
                               "truncated": ans.truncated}, sort_keys=True))
    else:
        if not ans.rows:
            typer.echo("no answers")
        for row in ans.rows:
            typer.echo("  " + "  ".join(f"?{v} = {_short(t)}" for v, t in zip(ans.variables, row)))
        if ans.truncated:
            typer.echo(f"truncated: the {ans.limit_hit} budget was hit")


@app.command()
def explain(fact: str = typer.Argument(..., help="A ground fact, e.g. 'ex:hasCapability(ex:AchillesIDE, ex:sandboxing)'."),
            rules: Optional[list[str]] = RULES, db: str = DB, as_of: Optional[str] = AS_OF,
            valid: Optional[str] = VALID, max_depth: Optional[int] = typer.Option(None, "--max-depth"),
            format: str = typer.Option("text", "--format", help="text, json or dot.")) -> None:
    """The proof of a fact down to asserted facts and the source text they came from.

    Example: holokb explain 'ex:hasCapability(ex:AchillesIDE, ex:sandboxing)'
    """
    from .answer.proofs import render_text, to_dot, to_json

    prog = _program(rules)
    with _open(db, []) as kb:
        expl = kb.explain(prog, fact, as_of=_as_of(as_of, valid), max_depth=max_depth)

        def quote(e) -> str | None:
            if e.chunk is None or e.char_start is None:
                return None
            text = kb.ledger.chunk_text(e.document, e.chunk)
            return None if text is None else text[e.char_start:e.char_end]

        if format == "json":
            typer.echo(json.dumps(to_json(expl), sort_keys=True, ensure_ascii=False))
        elif format == "dot":
            typer.echo(to_dot(expl, _short), nl=False)
        else:
            for line in render_text(expl, _short, quote):
                typer.echo(line)
    if expl.proof is None:
        raise typer.Exit(1)


@app.command()
def demo(db: Optional[str] = typer.Option(None, "--db", help="Ledger file (default: a fresh temporary one).")) -> None:
    """Load the example KB, validate, derive, query and answer with evidence.

    Example: holokb demo --db demo.db
    """
    from .demo import run_demo

    for line in run_demo(db):
        typer.echo(line)


def main() -> None:
    """Console entry point: maps holokb errors to exit 1 and usage errors to exit 2."""
    try:
        rc = app(standalone_mode=False)
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except Usage as e:
        typer.echo(f"usage error: {e}", err=True)
        sys.exit(2)
    except HolokbError as e:
        typer.echo(e.render(), err=True)
        sys.exit(1)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.Abort:
        sys.exit(1)
    except Exception as e:
        # click's own errors (typer vendors click): a usage error carries exit_code 2
        if hasattr(e, "show") and isinstance(getattr(e, "exit_code", None), int):
            e.show()
            sys.exit(e.exit_code)
        raise
