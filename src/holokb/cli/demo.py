"""The demo command."""
from __future__ import annotations

from typing import Optional

import typer

from .app import app
from .common import check_ledger_path


@app.command()
def demo(db: Optional[str] = typer.Option(None, "--db", metavar="FILE",
                                          help="The ledger file; created if missing (default: a fresh temporary one).")) -> None:
    """Load the example KB, validate, derive, query and answer with evidence.

    \b
    Example: holokb demo --db demo.db
    """
    from ..demo import run_demo

    if db is not None:
        check_ledger_path(db, create=True)
    for line in run_demo(db):
        typer.echo(line)
