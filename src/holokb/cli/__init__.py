"""The command line: the only module that prints, and the only one that reads the clock.

One module per command group (:mod:`.data`, :mod:`.rules`, :mod:`.query`, :mod:`.evaluate`,
:mod:`.demo`); shared options and rendering in :mod:`.common`; the diagnostics table every failure
maps to in :mod:`.diagnostics`.  Exit codes: 0 ok, 1 findings (diagnostics, violations, rejected
input), 2 usage error.

A new command group is a new module here that registers on :data:`app` (``@app.command()``) and is
listed in ``MODULES`` and ``COMMAND_MODULES`` below; :func:`main` then maps its failures to coded diagnostics, ``docs/cli.md`` lists it
(``python -m holokb.cli.docs``), and the surface tests fuzz its file parameters.
"""
from __future__ import annotations

import os
import sys
from typing import Sequence

import importlib
from typing import Any

__all__ = ["Usage", "app", "eval_app", "main"]

#: The command modules, in help order.  Importing one registers its commands on the shared app.
MODULES = ("data", "revise", "rules", "query", "answer", "evaluate", "evaluate_text", "intuition", "demo",
           "serve")
#: Command -> the one module that registers it: a command line naming one of these imports that
#: module alone (each further module costs start-up time; tests/cli/test_lazy_commands.py holds
#: this table to what the modules register).  Anything else (--help, eval, typos) loads them all.
COMMAND_MODULES = {
    **dict.fromkeys(("init", "load", "facts", "history", "export", "validate", "stats"), "data"),
    **dict.fromkeys(("retract", "supersede"), "revise"),
    **dict.fromkeys(("check", "derive", "ask", "explain", "prove"), "rules"),
    "query": "query", "ingest": "answer", "answer": "answer", "similar": "intuition", "search": "intuition",
    "demo": "demo", "serve": "serve",
}
_all_loaded = False
#: Switch: a plain ``holokb query …`` line runs without typer (:func:`.query_run.parse_args`).
FAST_QUERY = True
#: Switch: a plain ``holokb derive …`` line runs without typer (:func:`.derive_run.parse_args`).
FAST_DERIVE = True


def _load(modules: tuple[str, ...] = MODULES) -> Any:
    """Import these command modules (all by default) and return the app they registered on."""
    global _all_loaded
    for m in modules:
        importlib.import_module(f".{m}", __name__)
    from .app import app as typer_app
    # The eval group always registers: with one command and no group typer would run a lone
    # command as the whole app (``holokb query …`` would read "query" as its argument).
    from .evaluate import eval_app as group

    if modules == MODULES and not _all_loaded:
        # Modules imported alone earlier in this process registered out of order; help lists
        # commands in MODULES order (the sort is stable: a module's own order stays).
        order = {f"{__name__}.{m}": i for i, m in enumerate(MODULES)}
        typer_app.registered_commands.sort(key=lambda c: order.get(c.callback.__module__, len(order)))
        _all_loaded = True
    if _all_loaded:
        globals()["app"], globals()["eval_app"] = typer_app, group  # the submodule import rebinds ``app``
    else:
        # Part of the CLI: ``holokb.cli.app`` must not name it (nor the submodule the import bound),
        # so the next use of the name loads every command (``__getattr__``).
        globals().pop("app", None)
        globals().pop("eval_app", None)
    return typer_app


def __getattr__(name: str) -> Any:
    if name in ("app", "eval_app"):  # the whole CLI, every command registered
        _load()
        return globals()[name]
    if name == "Usage":  # typer loads with it: not at start-up
        from .common import Usage

        return Usage
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _modules_for(args: list[str]) -> tuple[str, ...]:
    """Only the command's own module when the line starts with a known command name."""
    module = COMMAND_MODULES.get(args[0]) if args else None
    return (module,) if module is not None and not _all_loaded else MODULES


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point: runs a command and turns every failure into a coded diagnostic on stderr
    (no traceback) with exit code 1 (findings, rejected input) or 2 (usage)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        rc = _fast(args)
        if rc is None:
            rc = _load(_modules_for(args))(args=args, prog_name="holokb", standalone_mode=False)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at interpreter exit
    except BaseException as e:  # noqa: BLE001 - the one place every failure is turned into a diagnostic
        if isinstance(e, SystemExit):
            raise
        from .diagnostics import outcome, usage_outcome  # the table loads only when something failed

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


def _fast(args: list[str]) -> int | None:
    """Run a plain ``holokb query …`` or ``holokb derive …`` line without typer (see :mod:`.query_run`,
    :mod:`.derive_run`); None: not one."""
    if FAST_DERIVE and args and args[0] == "derive":
        from .derive_run import parse_args, run
    elif not FAST_QUERY or not args or args[0] != "query":
        return None
    else:
        from .query_run import parse_args, run

    kwargs = parse_args(args[1:])
    return None if kwargs is None else run(**kwargs)  # type: ignore[arg-type]


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
