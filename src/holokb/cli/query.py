"""SPARQL over as-of snapshots and the reified ledger."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer

from ..core import Limits
from .app import app
from .common import (
    AS_OF, DB, QUERY_TIMEOUT_S, RULES, TIMEOUT_HELP, VALID, Usage, as_of_point, load_rules, open_kb, prefixes,
    seconds, working,
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
    with open_kb(db, []) as kb:
        program, said = None, "rules: not used (the reified ledger view)"
        if not ledger:
            program, said = _rule_set(kb, rules, no_rules)
        typer.echo(said, err=True)
        try:
            with working("querying (builds the snapshot when it is missing or stale)", format):
                result = kb.query(q, as_of=point, rules=program, ledger_view=ledger, limits=budget,
                                  name=str(file) if file else "<query>", prefixes=prefixes(),
                                  closure_limits=replace(Limits.unbounded(), timeout_s=budget.timeout_s,
                                                         ends_at=budget.ends_at))
        except SparqlSyntaxError as e:  # the query is the command's input: a usage error (exit 2)
            typer.echo(e.render(), err=True)
            raise typer.Exit(2)
    if result.snapshot_built:
        typer.echo("snapshot rebuilt", err=True)
    sys.stdout.write(result.serialize(format))
    if result.truncated:
        typer.echo(f"truncated: the {result.limit_hit} budget was hit", err=True)


def _rule_set(kb, rules: Optional[list[Path]], no_rules: bool):
    """The program the snapshot is closed under, and the line that tells the user which (or none)."""
    if no_rules:
        return None, "rules: none (--no-rules): asserted triples only"
    if rules is not None or Path("rules").is_dir():
        program = load_rules(rules)
        where = " ".join(str(r) for r in rules) if rules is not None else "./rules (found in the current folder)"
        return program, (f"rules: closed under {where}: {len(program.rules)} rules, rule set "
                         f"{program.rule_set_hash[:12]} (--no-rules for asserted triples only)")
    program = kb.loaded_rules()
    if program is not None:
        return program, (f"rules: closed under the rule set of the last `holokb derive` on this ledger "
                         f"({program.rule_set_hash[:12]}, {len(program.rules)} rules; --no-rules for asserted triples only)")
    return None, "rules: none (no --rules, no ./rules, no stored derive): asserted triples only"
