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
          file: Optional[Path] = typer.Option(None, "--file", "-f", help="Read the query from a .rq file."),
          db: str = DB, as_of: Optional[str] = AS_OF, valid: Optional[str] = VALID, rules: Optional[list[Path]] = RULES,
          no_rules: bool = typer.Option(False, "--no-rules", help="Query the asserted triples only: close under no rules."),
          ledger: bool = typer.Option(False, "--ledger", help="Query the reified ledger (provenance, time as data)."),
          limit: Optional[int] = typer.Option(None, "--limit", help="Most result rows (default: all)."),
          timeout: Optional[str] = typer.Option(None, "--timeout", help=TIMEOUT_HELP.format(QUERY_TIMEOUT_S)
                                                + " Covers building the snapshot (closing the rules) too."),
          format: str = typer.Option("table", "--format", help="table, json, xml, csv, tsv (SELECT/ASK); turtle, ntriples (CONSTRUCT/DESCRIBE).")) -> None:
    """SPARQL over the as-of snapshot: visible triples plus the closure under the rules at the same time.

    Rules: --rules, else ./rules, else the rule set of the last `holokb derive` on this ledger; stderr
    says which (or none); --no-rules queries the asserted triples only.  The prefixes declared in
    ./kb and ./rules (and rdf, rdfs, owl, xsd, hk, ex) need no PREFIX lines.

    \b
    Example: holokb query 'SELECT ?c WHERE { ex:AchillesIDE ex:hasCapability ?c }' --valid 2026-04-01
    Example: holokb query --ledger --file provenance.rq
    """
    from ..core.inputs import read_text
    from ..sparql import SparqlSyntaxError

    if (text is None) == (file is None):
        raise Usage("give the query as an argument or with --file, not both" if text else
                    "give the query as an argument or with --file")
    if no_rules and rules is not None:
        raise Usage("--rules and --no-rules contradict each other")
    budget = Limits(max_results=limit, timeout_s=seconds(timeout, QUERY_TIMEOUT_S)).started()
    q = read_text(file, what="query file") if file else text
    point = as_of_point(as_of, valid)
    closure_limits = replace(Limits.unbounded(), timeout_s=budget.timeout_s, ends_at=budget.ends_at)
    name = str(file) if file else "<query>"
    paths = None if ledger or no_rules else rule_paths(rules)
    digest = None
    if paths is not None and point == AsOf.latest():
        from ..sparql.rules_index import rule_digest

        digest = rule_digest(paths)
    try:
        result = _from_warm_snapshot(db, digest, q, point, rules, budget, closure_limits, name, format)
        if result is None:
            with open_kb(db, []) as kb:
                program, said = None, "rules: not used (the reified ledger view)"
                if not ledger:
                    program, said = _rule_set(kb, rules, no_rules)
                typer.echo(said, err=True)
                with working("querying (builds the snapshot when it is missing or stale)", format):
                    result = kb.query(q, as_of=point, rules=program, ledger_view=ledger, limits=budget, name=name,
                                      prefixes=prefixes(), closure_limits=closure_limits)
                if program is not None:
                    from ..sparql.rules_index import remember_program

                    remember_program(db, digest, program)
    except SparqlSyntaxError as e:  # the query is the command's input: a usage error (exit 2)
        typer.echo(e.render(), err=True)
        raise typer.Exit(2)
    if result.snapshot_built:
        typer.echo("snapshot rebuilt", err=True)
    sys.stdout.write(result.serialize(format))
    if result.truncated:
        typer.echo(f"truncated: the {result.limit_hit} budget was hit", err=True)


def _from_warm_snapshot(db: str, digest: Optional[str], q: str, point: AsOf, rules: Optional[list[Path]], budget: Limits,
                        closure_limits: Limits, name: str, format: str):
    """The result from the snapshot already on disk for these rule files (found by their digest, see
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
    from ..sparql.query import check_syntax, execute

    form = check_syntax(q, name=name, prefixes=prefixes())
    led = Ledger.open(db)
    try:
        snap = DEFAULT_CACHE.get_stored(led, point, entry.program, entry.rule_set_hash, closure_limits)
        if snap is None:
            return None
        typer.echo(_closed_under(_where(rules), entry.rules, entry.rule_set_hash), err=True)
        with working("querying", format):
            return execute(snap, q, form=form, as_of=point, view="snapshot", limits=budget, name=name,
                           prefixes=prefixes())
    finally:
        led.close()


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
