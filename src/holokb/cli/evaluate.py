"""Scoring reasoning data sets: holokb eval …."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .app import app
from .common import OUT, check_output


eval_app = typer.Typer(help="Score reasoning data sets (one JSON line per item with --out).", no_args_is_help=True)


app.add_typer(eval_app, name="eval")


@eval_app.command("deduction")
def eval_deduction_cmd(file: Path = typer.Argument(..., help="Logical-deduction JSON (ordering puzzles)."),
                       out: Optional[Path] = OUT, solver: str = typer.Option("z3", "--solver", help="z3 or cvc5."),
                       limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N items.")) -> None:
    """Ordering puzzles → FormalProposal → model finding; prints accuracy=… n=….

    \b
    Example: holokb eval deduction train.json --out preds.jsonl
    """
    from ..solver.eval_deduction import eval_deduction

    check_output(out)
    typer.echo(eval_deduction(file, out=out, backend=solver, limit=limit).line())


@eval_app.command("folio")
def eval_folio_cmd(file: Path = typer.Argument(..., help="FOLIO JSONL with premises-FOL / conclusion-FOL."),
                   out: Optional[Path] = OUT, solver: str = typer.Option("z3", "--solver", help="z3 or cvc5."),
                   limit: Optional[int] = typer.Option(None, "--limit", help="Score only the first N items.")) -> None:
    """FOLIO first-order premises → entailed (True) / refuted (False) / otherwise Uncertain; prints accuracy.

    \b
    Example: holokb eval folio folio_v2_train.jsonl --out preds.jsonl
    """
    from ..solver.eval_folio import eval_folio

    check_output(out)
    typer.echo(eval_folio(file, out=out, backend=solver, limit=limit).line())
