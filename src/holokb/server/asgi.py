"""The outermost ASGI layer: one log line per request, the body size limit, strict query strings.

It wraps the whole application, so these hold for every route, the framework's own included:

* a body larger than ``max_body`` gets 413 — at once when ``Content-Length`` says so, else as
  soon as the streamed body passes the limit (the application sees a disconnect and its reply is
  dropped);
* a query string with a malformed percent-escape or bytes that are not UTF-8 gets 400 before any
  route runs, and a write token in the URL is refused (tokens go in the ``Authorization`` header);
* a line ``METHOD /path STATUS MS [note]`` goes to the ``holokb.server`` logger — the path
  without its query string, no headers, so neither queries nor tokens reach the log.
"""
from __future__ import annotations

import json
import logging
import time
from typing import Any, Awaitable, Callable

from .errors import HttpProblem, Problem
from .params import parse_form

log = logging.getLogger("holokb.server")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]
NOTE = "holokb.note"  # scope key where handlers leave a short note for the log line
_TOKEN_PARAMS = frozenset({"token", "access_token", "write-token", "write_token"})


def problem_response_parts(problem: Problem, path: str) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Status, headers and body for ``problem``: text/plain on the SPARQL endpoints, problem+json elsewhere."""
    if path.startswith("/sparql"):
        body, media = problem.text().encode("utf-8"), b"text/plain; charset=utf-8"
    else:
        body, media = json.dumps(problem.json(), ensure_ascii=False).encode("utf-8"), b"application/problem+json"
    headers = [(b"content-type", media), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in problem.headers]
    return problem.status, headers, body


class Guard:
    """ASGI middleware: see the module doc."""

    def __init__(self, app: Any, *, max_body: int):
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        path = scope.get("path", "")
        state = {"status": 0, "started": False, "over": False}

        async def send_logged(message: dict) -> None:
            if state["over"]:
                return  # the 413 below answers instead
            if message["type"] == "http.response.start":
                state["status"], state["started"] = message["status"], True
            await send(message)

        async def answer(problem: Problem) -> None:
            scope[NOTE] = problem.code
            status, headers, body = problem_response_parts(problem, path)
            state["status"], state["started"] = status, True
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        try:
            problem = self._precheck(scope)
            if problem is not None:
                await answer(problem)
                return
            seen = 0

            async def receive_limited() -> dict:
                nonlocal seen
                message = await receive()
                if message["type"] == "http.request":
                    seen += len(message.get("body", b""))
                    if seen > self.max_body:
                        state["over"] = True
                        return {"type": "http.disconnect"}
                return message

            try:
                await self.app(scope, receive_limited, send_logged)
            except Exception:
                if not state["over"]:
                    raise
            if state["over"] and not state["started"]:
                await answer(_too_large(self.max_body))
        finally:
            ms = (time.perf_counter() - start) * 1000
            note = scope.get(NOTE)
            log.info("%s %s %d %.1fms%s", scope.get("method", "?"), path, state["status"], ms,
                     f" {note}" if note else "")

    def _precheck(self, scope: Scope) -> Problem | None:
        for k, v in scope.get("headers", ()):
            if k == b"content-length":
                try:
                    n = int(v)
                except ValueError:
                    return Problem(400, "bad-content-length", "Content-Length is not a number")
                if n > self.max_body:
                    return _too_large(self.max_body)
        try:
            pairs = parse_form(scope.get("query_string", b""))
        except HttpProblem as e:
            return e.problem
        if any(k.lower() in _TOKEN_PARAMS for k, _ in pairs):
            return Problem(400, "token-in-url", "a write token must never be sent in the URL (URLs are logged "
                           "and cached); send it as 'Authorization: Bearer <token>'")
        return None


def _too_large(limit: int) -> Problem:
    return Problem(413, "body-too-large", f"the request body is larger than the server's limit of {limit} bytes",
                   hint="split the load into several requests, or start the server with a larger --max-body")
