"""The demo command."""
from __future__ import annotations

from typing import Optional

import typer

from .app import app


@app.command()
def demo(db: Optional[str] = typer.Option(None, "--db", help="Ledger file (default: a fresh temporary one).")) -> None:
    """Load the example KB, validate, derive, query and answer with evidence.

    Example: holokb demo --db demo.db
    """
    from ..demo import run_demo

    for line in run_demo(db):
        typer.echo(line)
