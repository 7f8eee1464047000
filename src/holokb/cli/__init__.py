"""The command line: the only module that prints, and the only one that reads the clock.

One module per command group (:mod:`.data`, :mod:`.rules`, :mod:`.query`, :mod:`.evaluate`,
:mod:`.demo`); shared options and rendering in :mod:`.common`; the diagnostics table every failure
maps to in :mod:`.diagnostics`.  Exit codes: 0 ok, 1 findings (diagnostics, violations, rejected
input), 2 usage error.

A new command group is a new module here that registers on :data:`app` (``@app.command()``) and is
imported below; :func:`main` then maps its failures to coded diagnostics, ``docs/cli.md`` lists it
(``python -m holokb.cli.docs``), and the surface tests fuzz its file parameters.
"""
from __future__ import annotations

import os
import sys
from typing import Sequence

from .app import app
from .common import Usage
from . import data, revise, rules, query, answer, evaluate, evaluate_text, intuition, demo, serve  # noqa: F401  (register the commands, in help order)
from .evaluate import eval_app

__all__ = ["Usage", "app", "eval_app", "main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point: runs a command and turns every failure into a coded diagnostic on stderr
    (no traceback) with exit code 1 (findings, rejected input) or 2 (usage)."""
    from .diagnostics import outcome, usage_outcome

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        rc = app(args=args, prog_name="holokb", standalone_mode=False)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at interpreter exit
    except BaseException as e:  # noqa: BLE001 - the one place every failure is turned into a diagnostic
        if isinstance(e, SystemExit):
            raise
        done = usage_outcome(e)
        if done is None:
            done = outcome(e, ledger=_ledger_arg(args))
        if done.closed_pipe:  # the reader went away: end quietly
            _silence_stdout()
        elif done.text:
            print(done.text, file=sys.stderr)
        sys.exit(done.exit_code)
    if isinstance(rc, int) and rc:
        sys.exit(rc)


def _ledger_arg(args: list[str]) -> str:
    """The --db value of a command line (for messages about the ledger)."""
    for i, a in enumerate(args):
        if a == "--db" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--db="):
            return a[5:]
    return "holokb.db"


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
