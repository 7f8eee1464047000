"""The SPARQL 1.1 Protocol (W3C Rec 2013-03-21) at ``/sparql`` and ``/sparql/ledger``.

Reading a request (§2.1 query, §2.2 update):

* ``GET`` with ``query=`` in the query string;
* ``POST`` with ``application/x-www-form-urlencoded`` (``query=`` or ``update=`` in the body; the
  dataset parameters may also be in the URL);
* ``POST`` with ``application/sparql-query`` or ``application/sparql-update`` (the body is the
  operation, UTF-8; other parameters in the URL).

Everything else is refused with the status the protocol asks for: 405 for another method, 415 for
another media type or charset, 400 for a missing, repeated or mixed operation.  holokb adds
``as-of`` and ``valid`` (the snapshot's AsOf; default latest) and ``format`` (overrides Accept).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal as _Lit

from ..core import IRI, HolokbError
from .errors import BadRequest, HttpProblem, Problem
from .params import every, parse_form, single

FORM = "application/x-www-form-urlencoded"
QUERY = "application/sparql-query"
UPDATE = "application/sparql-update"


@dataclass(frozen=True, slots=True)
class Operation:
    """One protocol operation: a query or an update, its text, and every parameter given."""

    kind: _Lit["query", "update"]
    text: str
    params: tuple[tuple[str, str], ...]

    def graphs(self, name: str) -> tuple[str, ...] | None:
        """The IRIs of a repeatable graph parameter (``default-graph-uri``, …); None when absent."""
        values = every(self.params, name)
        if not values:
            return None
        for v in values:
            try:
                IRI(v)
            except HolokbError:
                raise BadRequest(f"{name}={v!r} is not an IRI", code="bad-graph-uri") from None
            if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", v):
                raise BadRequest(f"{name}={v!r} is not an absolute IRI", code="bad-graph-uri")
        return values


def _media_type(content_type: str | None) -> tuple[str, str | None]:
    if not content_type:
        return "", None
    bits = [b.strip() for b in content_type.split(";")]
    charset = None
    for b in bits[1:]:
        k, _, v = b.partition("=")
        if k.strip().lower() == "charset":
            charset = v.strip().strip('"').lower()
    return bits[0].lower(), charset


def _utf8(body: bytes, what: str) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise HttpProblem(Problem(415, "not-utf8", f"the {what} is not UTF-8 (bad byte at offset {e.start})")) from None


def read_operation(method: str, query_string: bytes, content_type: str | None, body: bytes) -> Operation:
    """The operation a protocol request carries, or the protocol error it deserves."""
    url_params = parse_form(query_string)
    if method == "GET":
        if every(url_params, "update"):
            raise HttpProblem(Problem(405, "update-needs-post", "SPARQL Update must be sent with POST (§2.2)",
                                      headers=(("Allow", "POST"),)))
        return _one(url_params, url_params)
    if method != "POST":
        raise HttpProblem(Problem(405, "method-not-allowed", f"{method} is not a SPARQL Protocol method; use GET "
                                  "or POST", headers=(("Allow", "GET, POST"),)))
    media, charset = _media_type(content_type)
    if charset not in (None, "utf-8", "utf8"):
        raise HttpProblem(Problem(415, "not-utf8", f"charset={charset} is not accepted; the protocol requires UTF-8"))
    if media == FORM:
        params = url_params + parse_form(body, what="form body")
        return _one(params, params)
    if media in (QUERY, UPDATE):
        kind = "query" if media == QUERY else "update"
        if every(url_params, "query") or every(url_params, "update"):
            raise BadRequest(f"a {media} body must not come with query= or update= in the URL", code="mixed-operation")
        return Operation(kind, _utf8(body, f"{kind} body"), url_params)
    if not media:
        raise HttpProblem(Problem(415, "missing-content-type", f"POST needs a Content-Type: {FORM}, {QUERY} or "
                                  f"{UPDATE}"))
    raise HttpProblem(Problem(415, "unsupported-media-type", f"Content-Type {media} is not a SPARQL Protocol "
                              f"request; use {FORM}, {QUERY} or {UPDATE}"))


def _one(params: tuple[tuple[str, str], ...], where: tuple[tuple[str, str], ...]) -> Operation:
    queries, updates = every(where, "query"), every(where, "update")
    if queries and updates:
        raise BadRequest("give either query= or update=, not both", code="mixed-operation")
    if not queries and not updates:
        raise BadRequest("no query= (or update=) parameter", code="missing-parameter",
                         hint="GET /sparql?query=SELECT…, or POST the query as application/sparql-query")
    kind = "query" if queries else "update"
    text = single(where, kind)
    assert text is not None
    return Operation(kind, text, params)
