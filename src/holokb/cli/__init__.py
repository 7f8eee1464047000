"""The command line: the only module that prints, and the only one that reads the clock.

One module per command group (:mod:`.data`, :mod:`.rules`, :mod:`.query`, :mod:`.evaluate`,
:mod:`.demo`); shared options and rendering in :mod:`.common`.  Exit codes: 0 ok, 1 findings
(diagnostics, violations, rejected input), 2 usage error.
"""
from __future__ import annotations

import sys

import typer

from ..core import HolokbError
from .app import app
from .common import Usage
from . import data, rules, query, evaluate, evaluate_text, demo  # noqa: F401  (register the commands, in help order)
from .evaluate import eval_app

__all__ = ["app", "eval_app", "main"]


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
