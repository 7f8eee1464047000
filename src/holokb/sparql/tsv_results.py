"""SELECT results read from pyoxigraph's SPARQL TSV serialisation, converting each distinct term once.

Why: a warm query's cost on large results is Python work per cell (a solution object per row, a
term object per cell, a conversion per cell).  pyoxigraph serialises the whole table in Rust;
splitting the text is a few C calls, and a process-wide table maps each TSV cell text to its
:class:`RDFTerm` and canonical sort key, so a repeated term (in the same result or a later query)
costs one dictionary lookup.  LUBM q08 (7,790 rows x 3): ~86 -> ~45 ms CPU at load 3.

The serialisation cannot be interrupted, so :func:`holokb.sparql.query.execute` takes this path
only when no row cap and no deadline apply; the streaming path keeps the budgets otherwise.  Both
give the same rows in the same order (tests/sparql/test_tsv_results.py holds them equal).

TSV term syntax (SPARQL 1.1 Query Results CSV and TSV Formats §4 = Turtle/N-Triples terms):
``<iri>``, ``_:label``, ``"lex"`` / ``"lex"@lang`` / ``"lex"^^<dt>`` with N-Triples escapes, and
Turtle's bare numbers and booleans (``1`` integer, ``1.5`` decimal, ``1e3`` double, ``true``);
an empty cell is unbound.
"""
from __future__ import annotations

import re
from typing import Any

from ..core.errors import HolokbError
from ..core.terms import XSD_STRING
from .results import RDFTerm, Row, _STABLE_BNODE

_XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_DECIMAL = re.compile(r"[+-]?[0-9]*\.[0-9]+\Z")
_DOUBLE = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.?[0-9]+)[eE][+-]?[0-9]+\Z")
_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"(?:@([A-Za-z0-9-]+)|\^\^<([^>]*)>)?\Z', re.S)
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S)
_SIMPLE = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s

    def one(m: re.Match) -> str:
        if m.group(3) is not None:
            c = _SIMPLE.get(m.group(3))
            if c is None:
                raise HolokbError(f"unexpected escape \\{m.group(3)} in a SPARQL TSV result")
            return c
        return chr(int(m.group(1) or m.group(2), 16))

    return _ESCAPE.sub(one, s)


def parse_term(cell: str) -> RDFTerm:
    """One TSV cell (not empty) as an :class:`RDFTerm`, as pyoxigraph's solution objects convert it."""
    c0 = cell[0]
    if c0 == "<":
        if cell.startswith("<<"):
            raise HolokbError(f"RDF 1.2 triple terms are not supported in results: {cell}")
        return RDFTerm("iri", cell[1:-1])
    if c0 == "_":
        return RDFTerm("bnode", cell[2:])
    if c0 == '"':
        m = _LITERAL.match(cell)
        if m is None:
            raise HolokbError(f"cannot read the SPARQL TSV result term {cell!r}")
        return RDFTerm.literal(_unescape(m.group(1)), m.group(3) or XSD_STRING, m.group(2))
    if cell in ("true", "false"):
        return RDFTerm.literal(cell, _XSD + "boolean")
    for pattern, name in ((_INTEGER, "integer"), (_DECIMAL, "decimal"), (_DOUBLE, "double")):
        if pattern.match(cell):
            return RDFTerm.literal(cell, _XSD + name)
    raise HolokbError(f"cannot read the SPARQL TSV result term {cell!r}")


_KIND_CHAR = {"bnode": "1", "iri": "2", "literal": "3"}
_MINTED_KEY = "1"  # minted blank nodes sort as equals: their labels are random


def sort_string(t: RDFTerm) -> str | None:
    """A string whose order is ``t.sort_key()``'s order (results.canonical_rows, with minted blank
    nodes equal), or None when a value holds NUL, the separator (then the caller sorts by tuples)."""
    if t.kind == "bnode" and not _STABLE_BNODE.match(t.value):
        return _MINTED_KEY
    if "\0" in t.value:
        return None
    return f"{_KIND_CHAR[t.kind]}{t.value}\0{t.datatype or ''}\0{t.lang or ''}"


#: TSV cell text -> term and -> sort string; shared by every query of the process (a cell's
#: meaning depends on its text alone).  Cleared past _CELLS_MAX entries, so they stay bounded.
_TERMS: dict[str, RDFTerm | None] = {"": None}
_KEYS: dict[str, str | None] = {"": "0"}
_CELLS_MAX = 1_000_000
_NUL_CELLS: set[str] = set()  # cells whose sort string is None (rare): checked per result only if any


def read_select(raw: Any, n_vars: int, pos: list[int], ordered: bool) -> tuple[list[Row], list | None, bool]:
    """Rows (projected to ``pos``) of a pyoxigraph SELECT result; when not ``ordered``, the
    canonical sort key per row (None: a value holds NUL, the caller sorts by term tuples); and
    whether any blank node occurs (only then can minted labels need relabelling)."""
    import pyoxigraph as ox

    text = raw.serialize(format=ox.QueryResultsFormat.TSV).decode("utf-8")
    _head, _, body = text.partition("\n")  # the first line names the variables; each row ends in \n
    if not body:
        return [], (None if ordered else []), False
    if not body.endswith("\n"):
        raise HolokbError("cannot read a SPARQL TSV result (no final line break)")
    bnodes = body.startswith("_:") or "\t_:" in body or "\n_:" in body  # C-level scans
    # Columnar: one C-level split into cells, each distinct cell text parsed once, rows zipped.
    n_rows = body.count("\n")
    flat = body[:-1].replace("\n", "\t").split("\t")
    if len(flat) != n_rows * n_vars:
        raise HolokbError(f"cannot read a SPARQL TSV result ({len(flat)} cells, {n_rows} rows, {n_vars} variables)")
    if len(_TERMS) > _CELLS_MAX:
        _TERMS.clear()
        _KEYS.clear()
        _NUL_CELLS.clear()
        _TERMS[""], _KEYS[""] = None, "0"
    terms, keys = _TERMS, _KEYS
    distinct = dict.fromkeys(flat)
    for c in (() if terms.keys() >= distinct.keys() else distinct):  # a warm query: all known (C-level check)
        if c not in terms:
            t = terms[c] = parse_term(c)
            k = keys[c] = sort_string(t)
            if k is None:
                _NUL_CELLS.add(c)
    def table(of: dict) -> list:
        cells = list(map(of.__getitem__, flat))
        if pos == list(range(n_vars)):
            return list(zip(*[iter(cells)] * n_vars))  # consecutive n_vars cells per row
        return list(zip(*(cells[k::n_vars] for k in pos)))

    rows = table(terms)
    if ordered:
        return rows, None, bnodes
    row_keys = table(keys)
    if _NUL_CELLS and not _NUL_CELLS.isdisjoint(distinct):
        return rows, None, bnodes
    return rows, row_keys, bnodes
