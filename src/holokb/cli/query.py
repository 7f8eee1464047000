"""SPARQL over as-of snapshots and the reified ledger."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from ..core import Limits
from .app import app
from .common import (
    AS_OF, DB, RULES, VALID, Usage, as_of_point, load_rules, open_kb, working,
)


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
    from ..sparql import SparqlSyntaxError

    if (text is None) == (file is None):
        raise Usage("give the query as an argument or with --file, not both")
    q = file.read_text(encoding="utf-8") if file else text
    point = as_of_point(as_of, valid)
    with open_kb(db, []) as kb:
        program = None
        if not ledger:
            if rules is not None or Path("rules").is_dir():
                program = load_rules(rules)
            else:
                program = kb.loaded_rules()
                if program is not None:
                    typer.echo(f"using the rule set of the last derive ({program.rule_set_hash[:12]})", err=True)
        try:
            with working("querying (builds the snapshot when it is missing or stale)", format):
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
