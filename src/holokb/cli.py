"""The command line: the only module that prints."""
from __future__ import annotations

import typer

app = typer.Typer(help="holokb: a bitemporal knowledge base with rules, SHACL, SMT and SPARQL.", no_args_is_help=True)


@app.command()
def demo() -> None:
    """Load the example KB, validate, derive, query and answer with evidence."""
    typer.echo("holokb demo: not built yet")


def main() -> None:
    app()
