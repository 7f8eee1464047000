"""holokb serve: the HTTP face (SPARQL 1.1 Protocol, JSON API, proof browser) on uvicorn."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from .app import app
from .common import DB, RULES, SHAPES, Usage, check_ledger_path


@app.command()
def serve(db: str = DB, host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (loopback by default)."),
          port: int = typer.Option(7878, "--port"), rules: Optional[list[str]] = RULES,
          shapes: Optional[list[str]] = SHAPES,
          write_token: Optional[str] = typer.Option(None, "--write-token", envvar="HOLOKB_WRITE_TOKEN",
                                                    show_envvar=True, show_default=False,
                                                    help="Bearer token that writes (/load, updates) must carry; "
                                                         "without one every write is refused."),
          allow_update: bool = typer.Option(False, "--allow-update", help="Accept SPARQL Update on /sparql (with the token)."),
          timeout: float = typer.Option(30.0, "--timeout", help="Per-request deadline in seconds; the work is stopped then."),
          workers: int = typer.Option(2, "--workers", help="Worker processes (each holds its own snapshot)."),
          max_pending: int = typer.Option(64, "--max-pending", help="Requests admitted at once before 503."),
          fast_workers: int = typer.Option(1, "--fast-workers", help="Worker processes for point lookups only "
                                           "(never queued behind heavy queries); 0 sends everything to --workers."),
          nice: int = typer.Option(10, "--nice", help="Niceness added to the general workers (lookups and the "
                                   "event loop get the CPU first); 0 = none."),
          max_body: int = typer.Option(16 * 1024 * 1024, "--max-body", help="Largest request body in bytes (413 beyond)."),
          max_rows: int = typer.Option(100_000, "--max-rows", help="Most rows in a SPARQL result (flagged when cut)."),
          quiet: bool = typer.Option(False, "--quiet", "-q", help="No per-request log lines on stderr.")) -> None:
    """Serve the KB over HTTP: SPARQL at /sparql, the ledger at /sparql/ledger, a JSON API, a proof browser at /.

    Read-only unless started with a write token; runs until interrupted.

    \b
    Example: holokb serve --db kb.db --port 7878
    """
    if (timeout <= 0 or workers < 1 or max_pending < workers or max_body < 1 or max_rows < 1 or fast_workers < 0
            or not 0 <= nice <= 19):
        raise Usage("need --timeout > 0, --workers >= 1, --max-pending >= --workers, --max-body and --max-rows >= 1, "
                    "--fast-workers >= 0, 0 <= --nice <= 19")
    check_ledger_path(db, create=False)
    if rules is None and Path("rules").is_dir():
        rules = ["rules"]
    if shapes is None:
        shapes = ["shapes"] if Path("shapes").is_dir() else []
    # Open once here so a bad rule file or ledger is a diagnostic and exit 1, not a worker traceback.
    from ..kb import KnowledgeBase
    from ..reasoning import load_program

    if rules is not None:
        load_program(rules)
    KnowledgeBase.open(db, shapes=shapes).close()

    import uvicorn

    from ..server import ServerConfig, create_app

    config = ServerConfig(db=str(Path(db).resolve()), rules=None if rules is None else tuple(str(Path(r).resolve()) for r in rules),
                          shapes=tuple(str(Path(s).resolve()) for s in shapes), write_token=write_token or None,
                          allow_update=allow_update, timeout_s=timeout, workers=workers, max_pending=max_pending,
                          max_body=max_body, max_rows=max_rows, fast_workers=fast_workers, nice=nice)
    import logging  # here, not at module level: every command's start would pay for it

    log = logging.getLogger("holokb.server")
    log.handlers[:] = [logging.StreamHandler(sys.stderr)]
    log.handlers[0].setFormatter(logging.Formatter("%(message)s"))
    log.setLevel(logging.WARNING if quiet else logging.INFO)
    log.propagate = False
    mode = "read-only" if not write_token else ("writes and SPARQL Update with the token" if allow_update
                                                 else "writes with the token")
    typer.echo(f"holokb: serving {db} at http://{host}:{port}/ ({mode}; SPARQL at /sparql, API at /openapi.json)",
               err=True)
    uvicorn.run(create_app(config), host=host, port=port, log_level="warning", access_log=False,
                server_header=False, timeout_graceful_shutdown=5)
