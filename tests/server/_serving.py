"""Helpers for the HTTP face's tests: ledgers made from the example KB, and the app run in-process.

``serve(db, …)`` runs the real application (workers and all) through Starlette's TestClient;
``live_server(db, …)`` runs it under uvicorn on a loopback port for clients that need a socket
(rdflib's SPARQLStore, the browser).
"""
from __future__ import annotations

import contextlib
import socket
import threading
import time
import warnings
from pathlib import Path


from _corpora import ROOT

warnings.filterwarnings("ignore", message=".*httpx.*", category=DeprecationWarning)

TOKEN = "correct-horse-battery-staple"


def load_db(db: Path, paths: list[Path], at: str = "2026-01-01") -> Path:
    """A ledger at ``db`` with ``paths`` loaded (through the public API, gated by the example shapes)."""
    from holokb import KnowledgeBase
    from holokb.core import parse_instant

    with KnowledgeBase.open(db) as kb:
        kb.load(paths, at=parse_instant(at))
    return db


def config_for(db: Path, **kw):
    from holokb.server import ServerConfig

    kw.setdefault("rules", (str(ROOT / "rules" / "example.hkr"),))
    kw.setdefault("workers", 1)
    return ServerConfig(db=str(db), **kw)


@contextlib.contextmanager
def serve(db: Path, **kw):
    """A TestClient over the real app (workers started by the lifespan, stopped on exit)."""
    from starlette.testclient import TestClient
    from holokb.server import create_app

    app = create_app(config_for(db, **kw))
    with TestClient(app, raise_server_exceptions=False) as client:
        client.holokb_app = app
        yield client


def pool_of(client):
    """The worker pool behind a TestClient made by :func:`serve`."""
    return client.holokb_app.app.state.server.pool


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def live_server(db: Path, **kw):
    """uvicorn on 127.0.0.1 in a thread of this process; yields the base URL."""
    import uvicorn
    from holokb.server import create_app

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(config_for(db, **kw)), host="127.0.0.1", port=port,
                                           log_level="warning", access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def raw_get(client, path: str, query_string: bytes) -> tuple[int, bytes]:
    """GET ``path`` with exactly these query-string bytes, straight into the ASGI app (HTTP clients
    re-encode or refuse what a hostile client could still send)."""
    app = client.holokb_app

    async def call() -> tuple[int, bytes]:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query_string,
                 "root_path": "", "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 1),
                 "server": ("testserver", 80)}
        sent = False
        out: dict = {"status": 0, "body": b""}

        async def receive() -> dict:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            if message["type"] == "http.response.start":
                out["status"] = message["status"]
            elif message["type"] == "http.response.body":
                out["body"] += message.get("body", b"")

        await app(scope, receive, send)
        return out["status"], out["body"]

    return client.portal.call(call)
