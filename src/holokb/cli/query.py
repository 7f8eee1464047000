"""SPARQL over as-of snapshots and the reified ledger."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .app import app
from .common import AS_OF, DB, QUERY_TIMEOUT_S, RULES, TIMEOUT_HELP, VALID
from .query_run import run


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
    rc = run(text, file, db, as_of, valid, rules, no_rules, ledger, limit, timeout, format)
    if rc:
        raise typer.Exit(rc)
