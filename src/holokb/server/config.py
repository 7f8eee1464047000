"""The server's settings, fixed at start (``holokb serve`` options map one to one)."""
from __future__ import annotations

from dataclasses import dataclass

#: Defaults: loopback only, a 30 s deadline, 2 worker processes (this machine has 2 cores).
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7878
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_BODY = 16 * 1024 * 1024
DEFAULT_MAX_ROWS = 100_000


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything a server needs to know.

    ``write_token`` None means every write is refused (403); ``allow_update`` additionally admits
    SPARQL Update on ``/sparql`` (with the token).  ``timeout_s`` is the per-request deadline,
    ``workers`` the number of worker processes, ``max_pending`` how many requests may be admitted
    at once (running or queued) before 503, ``max_body`` the largest request body in bytes,
    ``max_rows`` the most result rows a SPARQL answer carries (more ⇒ cut, flagged in a header).
    ``fast_workers`` worker processes serve point lookups only (server/lanes.py), so they never
    queue behind heavy work; ``nice`` is added to the CPU niceness of the general lane's workers,
    so on a busy machine lookups and the event loop get the CPU first (0 turns that off).
    """

    db: str
    rules: tuple[str, ...] | None = None
    shapes: tuple[str, ...] = ()
    write_token: str | None = None
    allow_update: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S
    workers: int = 2
    max_pending: int = 64
    max_body: int = DEFAULT_MAX_BODY
    max_rows: int = DEFAULT_MAX_ROWS
    fast_workers: int = 1
    nice: int = 10

    def __repr__(self) -> str:  # never show the token (reprs end up in logs and tracebacks)
        token = "set" if self.write_token else "none"
        return (f"ServerConfig(db={self.db!r}, rules={self.rules!r}, write_token={token}, "
                f"allow_update={self.allow_update}, timeout_s={self.timeout_s}, workers={self.workers})")
