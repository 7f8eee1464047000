"""Errors the server answers with: an HTTP status, a stable code, a readable message.

Every failure a client can cause ends as one of these (never a traceback): the SPARQL endpoints
send it as ``text/plain`` (what SPARQL clients show), the JSON API as ``application/problem+json``
(RFC 9457) with the same code and message.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Problem:
    """What went wrong, as data: status, code, message, and optional position and hint."""

    status: int
    code: str
    message: str
    line: int | None = None
    column: int | None = None
    hint: str | None = None
    headers: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def text(self) -> str:
        """The plain-text body: ``<code>: <message>`` plus the hint."""
        out = f"{self.status} {self.code}: {self.message}\n"
        if self.hint:
            out += f"hint: {self.hint}\n"
        return out

    def json(self) -> dict:
        """RFC 9457 problem details (``type`` is a stable tag URI, not a web page)."""
        d: dict = {"type": f"tag:holokb,2026:problem:{self.code}", "title": self.code, "status": self.status,
                   "detail": self.message}
        if self.line is not None:
            d["line"], d["column"] = self.line, self.column
        if self.hint:
            d["hint"] = self.hint
        return d


class HttpProblem(Exception):
    """Raised in a request handler to answer with a :class:`Problem`."""

    def __init__(self, problem: Problem):
        super().__init__(problem.message)
        self.problem = problem


class BadRequest(HttpProblem):
    """400: the request itself is malformed (parameters, encoding, syntax)."""

    def __init__(self, message: str, *, code: str = "bad-request", hint: str | None = None):
        super().__init__(Problem(400, code, message, hint=hint))
