"""Content negotiation for SPARQL results (Accept header, or the ``format`` parameter).

SELECT/ASK results: SPARQL Results JSON, XML, CSV, TSV.  CONSTRUCT/DESCRIBE graphs: Turtle,
N-Triples, JSON-LD and RDF/XML.  ``*/*`` or no Accept header gives JSON or Turtle.  Ties in
quality go to the order the client listed, then to our preference order below.

>>> choose("text/csv;q=0.5, application/sparql-results+json", "SELECT").key
'json'
>>> choose(None, "CONSTRUCT").media_type
'text/turtle'
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import HttpProblem, Problem


@dataclass(frozen=True, slots=True)
class ResultFormat:
    """One way to write a result: the serialiser's key and the media type sent back."""

    key: str
    media_type: str


_TABULAR = (
    (ResultFormat("json", "application/sparql-results+json"), ("application/sparql-results+json", "application/json")),
    (ResultFormat("xml", "application/sparql-results+xml"),
     ("application/sparql-results+xml", "application/xml", "text/xml")),
    (ResultFormat("csv", "text/csv"), ("text/csv",)),
    (ResultFormat("tsv", "text/tab-separated-values"), ("text/tab-separated-values",)),
)
_GRAPH = (
    (ResultFormat("turtle", "text/turtle"), ("text/turtle", "application/x-turtle")),
    (ResultFormat("ntriples", "application/n-triples"), ("application/n-triples", "text/plain")),
    (ResultFormat("jsonld", "application/ld+json"), ("application/ld+json", "application/json")),
    (ResultFormat("rdfxml", "application/rdf+xml"), ("application/rdf+xml", "application/xml", "text/xml")),
)
#: ``format=`` short names (as Fuseki and YASGUI send them) → serialiser key.
_NAMES = {"json": "json", "srj": "json", "xml": "xml", "srx": "xml", "csv": "csv", "tsv": "tsv",
          "turtle": "turtle", "ttl": "turtle", "ntriples": "ntriples", "nt": "ntriples", "n-triples": "ntriples",
          "jsonld": "jsonld", "json-ld": "jsonld", "rdfxml": "rdfxml", "rdf": "rdfxml", "xml-rdf": "rdfxml"}


def _table(form: str):
    return _GRAPH if form in ("CONSTRUCT", "DESCRIBE") else _TABULAR


def parse_accept(header: str) -> list[tuple[str, float, int]]:
    """(media range, quality, position) for each entry of an Accept header; bad entries skipped."""
    out = []
    for i, part in enumerate(header.split(",")):
        bits = [b.strip() for b in part.split(";")]
        media = bits[0].lower()
        if "/" not in media:
            continue
        q = 1.0
        for b in bits[1:]:
            k, _, v = b.partition("=")
            if k.strip().lower() == "q":
                try:
                    q = max(0.0, min(1.0, float(v)))
                except ValueError:
                    q = 0.0
        out.append((media, q, i))
    return out


def _matches(media_range: str, media_type: str) -> bool:
    if media_range == "*/*":
        return True
    a, _, b = media_range.partition("/")
    return media_type.startswith(a + "/") if b == "*" else media_range == media_type


def choose(accept: str | None, form: str, *, format: str | None = None) -> ResultFormat:
    """The format to answer a ``form`` query in; 406 (listing what is offered) when nothing fits."""
    table = _table(form)
    if format:
        key = _NAMES.get(format.strip().lower())
        for fmt, _ in table:
            if fmt.key == key:
                return fmt
        raise HttpProblem(Problem(406, "not-acceptable", f"format={format!r} does not fit a {form} result; "
                                  f"offered: {', '.join(f.key for f, _ in table)}"))
    if not accept or not accept.strip():
        return table[0][0]
    best: tuple | None = None
    for pref, (fmt, types) in enumerate(table):
        for t in types:
            # the most specific range that names this type decides its quality (RFC 9110 §12.5.1)
            hits = [(r, q, i) for r, q, i in parse_accept(accept) if _matches(r, t)]
            if not hits:
                continue
            r, q, i = max(hits, key=lambda h: (h[0].count("*") == 0, h[0] != "*/*", -h[2]))
            if q <= 0:
                continue
            rank = (-q, i, pref)
            if best is None or rank < best[0]:
                best = (rank, fmt)
    if best is None:
        offered = ", ".join(t for _, types in table for t in types[:1])
        raise HttpProblem(Problem(406, "not-acceptable", f"nothing in Accept: {accept!r} fits a {form} result; "
                                  f"offered: {offered}"))
    return best[1]
