"""Serialising a :class:`~holokb.sparql.results.QueryResult` (our own writers, byte-deterministic).

* ``json`` — SPARQL 1.1 Query Results JSON Format (W3C Rec 2013-03-21), 2-space indent.
* ``xml``  — SPARQL Query Results XML Format (Second Edition).
* ``csv``  — SPARQL 1.1 Query Results CSV (values only: IRI text, literal lexical form, ``_:label``;
  CRLF line ends, RFC 4180 quoting).
* ``tsv``  — SPARQL 1.1 Query Results TSV (``?var`` header, terms in N-Triples syntax, LF).
* ``turtle``/``ntriples`` — CONSTRUCT/DESCRIBE graphs (no prefixes; subjects grouped).
* ``jsonld``/``rdfxml`` — the same graphs as expanded JSON-LD and RDF/XML (pyoxigraph's writers, fed the
  triples in canonical order).
* ``table`` — a fixed-width table for people, with a row count footer.

ASK results in csv/tsv/table are the single word ``true`` or ``false`` (the CSV/TSV
recommendation defines no boolean form).  Rows come in the result's order (see
:mod:`holokb.sparql.results` for the canonical order).
"""
from __future__ import annotations

import json

from ..core.errors import HolokbError
from ..core.vocab import XSD_STRING
from .results import QueryResult, RDFTerm

TABULAR = ("json", "xml", "csv", "tsv", "table")
GRAPH = ("turtle", "ntriples", "jsonld", "rdfxml", "table")


def serialize(result: QueryResult, format: str | None = None) -> str:
    """Text of ``result`` in ``format`` (default: json for SELECT/ASK, turtle for graphs)."""
    graph = result.form in ("CONSTRUCT", "DESCRIBE")
    fmt = (format or ("turtle" if graph else "json")).lower()
    fmt = {"nt": "ntriples", "n-triples": "ntriples", "ttl": "turtle", "srj": "json", "srx": "xml"}.get(fmt, fmt)
    allowed = GRAPH if graph else TABULAR
    if fmt not in allowed:
        raise HolokbError(f"format {fmt!r} does not fit a {result.form} result; use one of {', '.join(allowed)}")
    if graph:
        return {"turtle": _turtle, "ntriples": _ntriples, "jsonld": _jsonld, "rdfxml": _rdfxml,
                "table": _graph_table}[fmt](result)
    return {"json": _json, "xml": _xml, "csv": _csv, "tsv": _tsv, "table": _table}[fmt](result)


# ---------------------------------------------------------------- SELECT / ASK


def _json_term(t: RDFTerm) -> dict:
    if t.kind == "iri":
        return {"type": "uri", "value": t.value}
    if t.kind == "bnode":
        return {"type": "bnode", "value": t.value}
    out = {"type": "literal", "value": t.value}
    if t.lang:
        out["xml:lang"] = t.lang
    elif t.datatype and t.datatype != XSD_STRING:
        out["datatype"] = t.datatype
    return out


def _json(r: QueryResult) -> str:
    if r.form == "ASK":
        doc: dict = {"head": {}, "boolean": bool(r.boolean)}
    else:
        bindings = [{v: _json_term(t) for v, t in zip(r.variables, row) if t is not None} for row in r.rows]
        doc = {"head": {"vars": list(r.variables)}, "results": {"bindings": bindings}}
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def escape(text: str) -> str:
    # xml.sax pulls in urllib and http.client (~80 ms): loaded by the XML writer only, not by every query
    from xml.sax.saxutils import escape as esc

    return esc(text)


def quoteattr(text: str) -> str:
    from xml.sax.saxutils import quoteattr as quote

    return quote(text)


def _xml_term(t: RDFTerm) -> str:
    if t.kind == "iri":
        return f"<uri>{escape(t.value)}</uri>"
    if t.kind == "bnode":
        return f"<bnode>{escape(t.value)}</bnode>"
    if t.lang:
        return f"<literal xml:lang={quoteattr(t.lang)}>{escape(t.value)}</literal>"
    if t.datatype and t.datatype != XSD_STRING:
        return f"<literal datatype={quoteattr(t.datatype)}>{escape(t.value)}</literal>"
    return f"<literal>{escape(t.value)}</literal>"


def _xml(r: QueryResult) -> str:
    out = ['<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n  <head>\n']
    if r.form == "ASK":
        out.append("  </head>\n")
        out.append(f"  <boolean>{'true' if r.boolean else 'false'}</boolean>\n</sparql>\n")
        return "".join(out)
    out.extend(f"    <variable name={quoteattr(v)}/>\n" for v in r.variables)
    out.append("  </head>\n  <results>\n")
    for row in r.rows:
        out.append("    <result>\n")
        for v, t in zip(r.variables, row):
            if t is not None:
                out.append(f"      <binding name={quoteattr(v)}>{_xml_term(t)}</binding>\n")
        out.append("    </result>\n")
    out.append("  </results>\n</sparql>\n")
    return "".join(out)


def _csv_value(t: RDFTerm | None) -> str:
    if t is None:
        return ""
    return f"_:{t.value}" if t.kind == "bnode" else t.value


def _csv(r: QueryResult) -> str:
    if r.form == "ASK":
        return ("true" if r.boolean else "false") + "\r\n"
    import csv  # only this format needs it (a warm tsv/table query does not load it)
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    w.writerow(r.variables)
    for row in r.rows:
        w.writerow([_csv_value(t) for t in row])
    return buf.getvalue()


def _tsv(r: QueryResult) -> str:
    if r.form == "ASK":
        return ("true" if r.boolean else "false") + "\n"
    lines = ["\t".join("?" + v for v in r.variables)]
    lines.extend("\t".join("" if t is None else t.n3() for t in row) for row in r.rows)
    return "\n".join(lines) + "\n"


def _grid(header: list[str], cells: list[list[str]], footer: str) -> str:
    # Column-wise (C-level max/len/join): the table is the CLI's default output, and after a
    # deadline cut it is part of the time the budget keeps back (see tsv_results.RESERVE_S_PER_BYTE).
    widths = [max(len(h), max(map(len, col), default=0)) for h, col in zip(header, zip(*cells))] if cells \
        else [len(h) for h in header]
    pattern = " | ".join([*(f"{{:<{w}}}" for w in widths[:-1]), "{}"]) if widths else ""
    fmt = pattern.format
    out = [line.rstrip() for line in (fmt(*header), *(fmt(*row) for row in cells))]
    out.insert(1, "-+-".join("-" * w for w in widths))
    out.append(footer)
    return "\n".join(out) + "\n"


def _footer(r: QueryResult, n: int, noun: str) -> str:
    s = f"{n} {noun}{'' if n == 1 else 's'}"
    if r.truncated:
        s += f" (truncated: {r.limit_hit})"
    return s


def _table(r: QueryResult) -> str:
    if r.form == "ASK":
        return ("true" if r.boolean else "false") + "\n"
    cells = [["" if t is None else t.n3() for t in row] for row in r.rows]
    return _grid(["?" + v for v in r.variables], cells, _footer(r, len(r.rows), "row"))


# ---------------------------------------------------------------- CONSTRUCT / DESCRIBE


def _ntriples(r: QueryResult) -> str:
    return "".join(f"{s.n3()} {p.n3()} {o.n3()} .\n" for s, p, o in r.triples)


def _turtle(r: QueryResult) -> str:
    out: list[str] = []
    i, ts = 0, r.triples
    while i < len(ts):
        s = ts[i][0]
        j = i
        while j < len(ts) and ts[j][0] == s:
            j += 1
        preds: list[str] = []
        k = i
        while k < j:
            p = ts[k][1]
            objs = []
            while k < j and ts[k][1] == p:
                objs.append(ts[k][2].n3())
                k += 1
            preds.append(f"{p.n3()} " + ", ".join(objs))
        out.append(f"{s.n3()} " + " ;\n    ".join(preds) + " .\n")
        i = j
    return "".join(out)


def _oxigraph_writer(r: QueryResult, name: str) -> str:
    import pyoxigraph as ox  # the SPARQL adapter's engine; its writers are the fast, maintained ones

    def term(t: RDFTerm):
        if t.kind == "iri":
            return ox.NamedNode(t.value)
        if t.kind == "bnode":
            return ox.BlankNode(t.value)
        if t.lang:
            return ox.Literal(t.value, language=t.lang)
        return ox.Literal(t.value, datatype=ox.NamedNode(t.datatype or XSD_STRING))

    triples = [ox.Triple(term(s), term(p), term(o)) for s, p, o in r.triples]
    return ox.serialize(triples, format=getattr(ox.RdfFormat, name)).decode("utf-8")


def _jsonld(r: QueryResult) -> str:
    return _oxigraph_writer(r, "JSON_LD") + "\n"


def _rdfxml(r: QueryResult) -> str:
    return _oxigraph_writer(r, "RDF_XML")


def _graph_table(r: QueryResult) -> str:
    cells = [[s.n3(), p.n3(), o.n3()] for s, p, o in r.triples]
    return _grid(["subject", "predicate", "object"], cells, _footer(r, len(r.triples), "triple"))
