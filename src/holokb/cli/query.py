"""SPARQL over as-of snapshots and the reified ledger."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer

from ..core import AsOf, Limits
from .app import app
from .common import (
    AS_OF, DB, QUERY_TIMEOUT_S, RULES, TIMEOUT_HELP, VALID, Usage, as_of_point, check_ledger_path, load_rules, open_kb,
    prefixes, rule_paths, seconds, working,
)


@app.command()
def query(text: Optional[str] = typer.Argument(None, help="A SPARQL 1.1 query (or use --file)."),
          file: Optional[list[Path]] = typer.Option(
              None, "--file", "-f", help="Read the query from a .rq file.  Repeat it, or name a folder (its *.rq "
              "files in name order), to run several queries on one snapshot: each result then follows a line "
              "'==> FILE <=='."),
          db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID, rules: Optional[list[Path]] = RULES,
          no_rules: bool = typer.Option(False, "--no-rules", help="Query the asserted triples only: close under no rules."),
          ledger: bool = typer.Option(False, "--ledger", help="Query the reified ledger (provenance, time as data)."),
          limit: Optional[int] = typer.Option(None, "--limit", help="Most result rows per query (default: all)."),
          timeout: Optional[str] = typer.Option(None, "--timeout", help=TIMEOUT_HELP.format(QUERY_TIMEOUT_S)
                                                + " Covers building the snapshot (closing the rules) and every query."),
          format: str = typer.Option("table", "--format", help="table, json, xml, csv, tsv (SELECT/ASK); turtle, ntriples (CONSTRUCT/DESCRIBE).")) -> None:
    """SPARQL over the as-of snapshot: visible triples plus the closure under the rules at the same time.

    Rules: --rules, else ./rules, else the rule set of the last `holokb derive` on this ledger; stderr
    says which (or none); --no-rules queries the asserted triples only.  The prefixes declared in
    ./kb and ./rules (and rdf, rdfs, owl, xsd, hk, ex) need no PREFIX lines.

    Several queries (-f a.rq -f b.rq, or -f folder/) share one snapshot and one --timeout; a file that
    cannot be read or parsed gets its diagnostic and the others still run (exit code: the worst).

    \b
    Example: holokb query 'SELECT ?c WHERE { ex:AchillesIDE ex:hasCapability ?c }' --valid 2026-04-01
    Example: holokb query --ledger --file provenance.rq
    Example: holokb query -f queries/ --format tsv
    """
    if (text is None) == (not file):
        raise Usage("give the query as an argument or with --file, not both" if text else
                    "give the query as an argument or with --file")
    if no_rules and rules is not None:
        raise Usage("--rules and --no-rules contradict each other")
    budget = Limits(max_results=limit, timeout_s=seconds(timeout, QUERY_TIMEOUT_S)).started()
    names = _query_files(file) if file else ["<query>"]
    batch = len(names) > 1 or any(f.is_dir() for f in file or ())
    point = as_of_point(as_of, valid)
    closure_limits = replace(Limits.unbounded(), timeout_s=budget.timeout_s, ends_at=budget.ends_at)
    paths = None if ledger or no_rules else rule_paths(rules)
    digest = None
    if paths is not None and point == AsOf.latest():
        from ..sparql.rules_index import rule_digest

        digest = rule_digest(paths)
    # Read and parse every query first: a bad file is reported under its name, and no snapshot is
    # built when none of them can run.
    checked, worst = [], 0
    for name in names:
        q, form, rc = _checked(text, name, db)
        checked.append((name, q, form))
        worst = max(worst, rc)
    runnable = [(name, q, form) for name, q, form in checked if form is not None]
    snap = None
    if runnable:
        snap = _warm_snapshot(db, digest, point, rules, closure_limits)
        if snap is None:
            with open_kb(db, []) as kb:
                program, said = None, "rules: not used (the reified ledger view)"
                if not ledger:
                    program, said = _rule_set(kb, rules, no_rules)
                typer.echo(said, err=True)
                with working("building the snapshot when it is missing or stale", format):
                    from ..sparql.query import snapshot_of

                    snap = snapshot_of(kb.ledger, as_of=point, program=program, derive=kb.derive, ledger_view=ledger,
                                       closure_limits=closure_limits)
                if program is not None:
                    from ..sparql.rules_index import remember_program

                    remember_program(db, digest, program)
        if snap.built:
            typer.echo("snapshot rebuilt", err=True)
    for name, q, form in checked:
        if batch:
            sys.stdout.write(f"==> {name} <==\n")
        if form is None or snap is None:
            continue
        worst = max(worst, _run_one(snap, q, form, name, point, budget, format, batch))
    if worst:
        raise typer.Exit(worst)


def _query_files(given: list[Path]) -> list[str]:
    """The query files named: a folder stands for its *.rq files, in name order."""
    out: list[str] = []
    for f in given:
        if f.is_dir():
            found = sorted(p for p in f.glob("*.rq") if p.is_file())
            if not found:
                from ..core.inputs import IS_FOLDER, input_error

                raise input_error(IS_FOLDER, str(f), "is a folder with no .rq files, not a query file",
                                  hint="name a .rq file, or a folder that holds some")
            out.extend(str(p) for p in found)
        else:
            out.append(str(f))
    return out


def _checked(text: Optional[str], name: str, db: str) -> tuple[str, Optional[str], int]:
    """The query text, its form (None when it cannot run) and the exit code of its diagnostic (0: none)."""
    from ..core.errors import HolokbError
    from ..core.inputs import read_text
    from ..sparql.query import SparqlSyntaxError, check_syntax

    try:
        q = text if text is not None else read_text(name, what="query file")
        return q, check_syntax(q, name=name, prefixes=prefixes()), 0
    except SparqlSyntaxError as e:  # the query is the command's input: a usage error (exit 2)
        typer.echo(e.render(), err=True)
        return "", None, 2
    except HolokbError as e:
        from .diagnostics import outcome

        done = outcome(e, ledger=db)
        typer.echo(done.text, err=True)
        return "", None, done.exit_code


def _run_one(snap, q: str, form: str, name: str, point: AsOf, budget: Limits, format: str, batch: bool) -> int:
    """Run one checked query on the shared snapshot and print its result; the exit code of its
    diagnostic (0: none).  In a batch an evaluation failure is reported and the next query runs."""
    from ..core.errors import HolokbError
    from ..sparql.query import execute

    try:
        with working("querying", format):
            result = execute(snap, q, form=form, as_of=point, view=snap.key.kind, limits=budget, name=name,
                             prefixes=prefixes())
        out = result.serialize(format)
    except HolokbError as e:
        if not batch:
            raise
        from .diagnostics import outcome

        done = outcome(e)
        typer.echo(f"{name}: {done.text}", err=True)
        return done.exit_code
    sys.stdout.write(out)
    if result.truncated:
        typer.echo(f"{name + ': ' if batch else ''}truncated: the {result.limit_hit} budget was hit", err=True)
    return 0


def _warm_snapshot(db: str, digest: Optional[str], point: AsOf, rules: Optional[list[Path]], closure_limits: Limits):
    """The snapshot already on disk for these rule files (found by their digest, see
    ``sparql.rules_index``), or built from the closure `holokb derive` stored for them, without parsing
    the rules or opening the KB; None when neither exists (the full path then parses, builds, and
    records the digest)."""
    if digest is None:
        return None
    from ..sparql.rules_index import lookup

    check_ledger_path(db, create=False)
    entry = lookup(db, digest)
    if entry is None:
        return None
    from ..ledger import Ledger
    from ..sparql.cache import DEFAULT_CACHE

    led = Ledger.open(db)
    try:
        snap = DEFAULT_CACHE.get_stored(led, point, entry.program, entry.rule_set_hash, closure_limits)
    finally:
        led.close()
    if snap is not None:
        typer.echo(_closed_under(_where(rules), entry.rules, entry.rule_set_hash), err=True)
    return snap


def _where(rules: Optional[list[Path]]) -> str:
    return " ".join(str(r) for r in rules) if rules is not None else "./rules (found in the current folder)"


def _closed_under(where: str, rules: int, rule_set_hash: str) -> str:
    return (f"rules: closed under {where}: {rules} rules, rule set {rule_set_hash[:12]} "
            "(--no-rules for asserted triples only)")


def _rule_set(kb, rules: Optional[list[Path]], no_rules: bool):
    """The program the snapshot is closed under, and the line that tells the user which (or none)."""
    if no_rules:
        return None, "rules: none (--no-rules): asserted triples only"
    if rules is not None or Path("rules").is_dir():
        program = load_rules(rules)
        where = _where(rules)
        return program, _closed_under(where, len(program.rules), program.rule_set_hash)
    program = kb.loaded_rules()
    if program is not None:
        return program, (f"rules: closed under the rule set of the last `holokb derive` on this ledger "
                         f"({program.rule_set_hash[:12]}, {len(program.rules)} rules; --no-rules for asserted triples only)")
    return None, "rules: none (no --rules, no ./rules, no stored derive): asserted triples only"
