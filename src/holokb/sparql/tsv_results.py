"""SELECT results read from pyoxigraph's SPARQL TSV serialisation, converting each distinct term once.

Why: a warm query's cost on large results is Python work per cell (a solution object per row, a
term object per cell, a conversion per cell).  pyoxigraph serialises the whole table in Rust;
splitting the text is a few C calls, and a process-wide table maps each TSV cell text to its
:class:`RDFTerm` and canonical sort key, so a repeated term (in the same result or a later query)
costs one dictionary lookup.  LUBM q08 (7,790 rows x 3): ~86 -> ~45 ms CPU at load 3.

Budgets: pyoxigraph writes the table into :class:`_Budgeted` in chunks of ~8 KiB as it evaluates
(lazily, row by row), so between chunks the deadline and the row cap are checked and the write is
stopped; the rows are then those of the complete lines received (the first ``cap`` rows for a cap),
exactly the solutions the streaming read (solution objects, one by one) would have kept.  Both reads
give the same rows in the same order (tests/sparql/test_tsv_results.py holds them equal, with and
without budgets).

TSV term syntax (SPARQL 1.1 Query Results CSV and TSV Formats §4 = Turtle/N-Triples terms):
``<iri>``, ``_:label``, ``"lex"`` / ``"lex"@lang`` / ``"lex"^^<dt>`` with N-Triples escapes, and
Turtle's bare numbers and booleans (``1`` integer, ``1.5`` decimal, ``1e3`` double, ``true``);
an empty cell is unbound.
"""
from __future__ import annotations

import gc
import re
from operator import itemgetter
from typing import Any, Sequence

from ..core.errors import HolokbError
from ..core.limits import Deadline, LimitHit
from ..core.vocab import XSD_STRING
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
        inner = cell[1:-1]
        if len(cell) > 1 and cell[-1] == '"' and '"' not in inner and "\\" not in inner:
            return RDFTerm.literal(inner)  # a plain string: what _LITERAL reads, with no regex match
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
    nodes equal), or None when a value holds NUL, the separator (then the caller sorts by tuples).

    A row's key is its cells' strings joined by NUL, which orders as the tuple of strings: a string
    is a proper prefix of another only when both have the same kind, value and datatype (the
    other then goes on with language-tag characters) or for "1" (minted) against a stable blank
    node ("1b…"); in both the next character is above NUL."""
    if t.kind == "bnode" and not _STABLE_BNODE.match(t.value):
        return _MINTED_KEY
    if "\0" in t.value:
        return None
    return f"{_KIND_CHAR[t.kind]}{t.value}\0{t.datatype or ''}\0{t.lang or ''}"


#: TSV cell text -> (term, sort string); shared by every query of the process (a cell's meaning
#: depends on its text alone).  One dictionary, so a cell costs one lookup.  Cleared past
#: _CELLS_MAX entries, so it stays bounded.
_CELLS: dict[str, tuple[RDFTerm | None, str | None]] = {"": (None, "0")}
_CELLS_MAX = 1_000_000
_NUL_CELLS: set[str] = set()  # cells whose sort string is None (rare): checked per result only if any
_MINTED_CELLS: set[str] = set()  # blank nodes the query minted (BNODE(), random labels): relabelled


#: Time kept back, per TSV byte received, for the work after the write: reading and sorting the
#: rows and writing them out as the CLI's table (measured at load 7 on 11 MB / 330k rows: ~40 ns/byte
#: to read and sort, ~190 ns/byte for the table; json and xml output cost more).  The write stops
#: once the time left is below it, so the command ends near its deadline, not a long decode after.
RESERVE_S_PER_BYTE = 300e-9


class _Stop(Exception):
    """Raised from :meth:`_Budgeted.write` to end pyoxigraph's serialisation (it propagates as is)."""


class _Budgeted:
    """A writer for ``serialize``: keeps the chunks, and stops the write between chunks once the
    deadline is near (:data:`RESERVE_S_PER_BYTE`) or more than ``cap`` rows arrived (a byte after
    the cap's last line break is a further row: every row ends in a line break)."""

    __slots__ = ("parts", "lines", "size", "cap", "deadline", "hit")

    def __init__(self, cap: int | None, deadline: Deadline | None):
        self.parts: list[bytes] = []
        self.lines = 0  # line breaks so far: the header's, then one per row
        self.size = 0
        self.cap, self.deadline = cap, deadline
        self.hit: LimitHit | None = None

    def write(self, b: bytes) -> int:
        if self.hit is not None:  # pyoxigraph may write once more while unwinding
            raise _Stop
        b = bytes(b)  # bytes from pyoxigraph 0.5 (then no copy); a buffer type would be copied
        self.parts.append(b)
        self.lines += b.count(b"\n")
        self.size += len(b)
        cap = self.cap
        if cap is not None and (self.lines > cap + 1 or (self.lines == cap + 1 and not b.endswith(b"\n"))):
            self.hit = LimitHit.MAX_RESULTS
        elif self.deadline is not None and self.deadline.remaining() <= self.size * RESERVE_S_PER_BYTE:
            self.hit = LimitHit.TIMEOUT
        if self.hit is not None:
            raise _Stop
        return len(b)

    def flush(self) -> None:
        pass

    def data(self) -> bytes:
        """The header and the complete rows kept (the first ``cap`` rows when the cap was hit)."""
        data = b"".join(self.parts)
        if self.hit is LimitHit.MAX_RESULTS:
            assert self.cap is not None
            data = b"\n".join(data.split(b"\n", self.cap + 1)[:self.cap + 1]) + b"\n"
        elif self.hit is LimitHit.TIMEOUT:
            data = data[:data.rfind(b"\n") + 1]
        return data


def serialize_select(raw: Any, cap: int | None = None, deadline: Deadline | None = None) -> tuple[bytes, LimitHit | None]:
    """pyoxigraph's SELECT result as TSV (UTF-8: a header line, then one line per row), at most ``cap``
    rows, stopped between chunks when ``deadline`` expires; and the limit hit (None: all rows)."""
    import pyoxigraph as ox

    if deadline is not None and deadline.remaining() is None:
        deadline = None
    if cap is None and deadline is None:  # nothing to check between chunks: one write in Rust
        return raw.serialize(format=ox.QueryResultsFormat.TSV), None
    out = _Budgeted(cap, deadline)
    try:
        raw.serialize(out, format=ox.QueryResultsFormat.TSV)
    except _Stop:
        pass
    return out.data(), out.hit


def read_select(raw: Any, n_vars: int, pos: list[int], ordered: bool, *, cap: int | None = None,
                deadline: Deadline | None = None) -> tuple[list[Row], bool, bool, LimitHit | None]:
    """Rows (projected to ``pos``) of a pyoxigraph SELECT result, at most ``cap``, as many as were
    produced before ``deadline``; whether they were sorted here (when not ``ordered``: in canonical
    order, by one string per row, see sort_string; False when a value holds NUL, then the caller
    sorts by term tuples); whether a blank node the query minted occurs (only then do labels need
    relabelling); and the limit that cut the rows short (None: all rows).  The sort is stable, as
    results.canonical_rows."""
    data, hit = serialize_select(raw, cap, deadline)
    # The row tuples are new containers: without the pause, the cyclic collector runs over and
    # over while they are made (100k rows x 2: 0.19 -> 0.03 s to build them); they hold no cycles.
    paused = gc.isenabled()
    gc.disable()
    try:
        rows, done, minted = _read_rows(data, n_vars, pos, ordered)
    finally:
        if paused:
            gc.enable()
    return rows, done, minted, hit


#: Per column count, TSV row line (UTF-8) -> (its terms in TSV column order, its row sort string: the
#: cells' sort strings joined by NUL); shared by every query of the process, as _CELLS (a line's
#: meaning depends on its text alone).  A result whose every line is known costs one lookup per
#: row, not one per cell plus a new tuple and key per row (LUBM q08, 7,790 rows x 3: read ~10 ->
#: ~4.5 ms CPU).  Lines are learnt from a read whose cells were all known already (so the second
#: time a result is read, and a one-shot command pays nothing); lines holding a minted blank node
#: or a NUL cell are never kept.  Cleared past _LINES_MAX entries; a result longer than that is
#: never learnt.
_LINES: dict[int, dict[bytes, tuple[Row, str]]] = {}
_LINES_MAX = 200_000


def _read_rows(data: bytes, n_vars: int, pos: list[int], ordered: bool) -> tuple[list[Row], bool, bool]:
    """(rows, sorted here, minted) of a TSV table, see read_select."""
    head = data.find(b"\n") + 1  # the first line names the variables; each row ends in \n
    if head == 0 or head == len(data):
        return [], not ordered, False
    if not data.endswith(b"\n"):
        raise HolokbError("cannot read a SPARQL TSV result (no final line break)")
    if pos == list(range(n_vars)):
        # Split as bytes: UTF-8 never has a \n or \t byte inside a character, and a known line
        # needs no decoding at all.
        lines = data.split(b"\n")
        del lines[0]  # the header
        lines.pop()  # after the final line break
        known = _LINES.setdefault(n_vars, {})
        try:
            got = list(map(known.__getitem__, lines))
        except KeyError:
            before = len(_CELLS)
            rows, keys, minted = _read_cells(data[head:].decode("utf-8"), n_vars, pos, ordered)
            if len(_CELLS) == before:  # no new cell: a result seen again, whose lines are worth keeping
                _learn_lines(known, lines, rows)  # (a one-shot command never pays for it)
            return _sorted(rows, keys), keys is not None, minted
        if not ordered:
            got.sort(key=itemgetter(1))  # stable: equal rows keep the engine's order
        return list(map(itemgetter(0), got)), not ordered, False
    rows, keys, minted = _read_cells(data[head:].decode("utf-8"), n_vars, pos, ordered)
    return _sorted(rows, keys), keys is not None, minted


def _sorted(rows: list[Row], keys: Sequence[str] | None) -> list[Row]:
    if keys is None:
        return rows
    return list(map(rows.__getitem__, sorted(range(len(rows)), key=keys.__getitem__)))  # stable


def _learn_lines(known: dict[bytes, tuple[Row, str]], lines: list[bytes], rows: list[Row]) -> None:
    """Remember each row line's terms and sort string (rows in TSV column order, not yet sorted)."""
    if len(lines) > _LINES_MAX or len(lines) != len(rows):
        return
    if sum(map(len, _LINES.values())) + len(lines) > _LINES_MAX:
        for table in _LINES.values():
            table.clear()
    cells = _CELLS
    for line, row in zip(lines, rows):
        if line in known:
            continue
        keys = [cells[c][1] for c in line.decode("utf-8").split("\t")]
        if None in keys or _MINTED_KEY in keys:  # a NUL cell, or a blank node (minted: "1") — never kept
            continue
        known[line] = (row, "\0".join(keys))  # type: ignore[arg-type]


def _read_cells(body: str, n_vars: int, pos: list[int], ordered: bool) -> tuple[list[Row], Sequence[str] | None, bool]:
    # Columnar: one C-level split into cells, each distinct cell text parsed once, rows zipped.
    n_rows = body.count("\n")
    flat = body[:-1].replace("\n", "\t").split("\t")
    if len(flat) != n_rows * n_vars:
        raise HolokbError(f"cannot read a SPARQL TSV result ({len(flat)} cells, {n_rows} rows, {n_vars} variables)")
    if len(_CELLS) > _CELLS_MAX:
        _CELLS.clear()
        _NUL_CELLS.clear()
        _MINTED_CELLS.clear()
        _CELLS[""] = (None, "0")
    try:  # a warm query knows every cell: one C-level pass, no set of distinct cells built
        pairs = list(map(_CELLS.__getitem__, flat))
    except KeyError:
        _learn(flat)
        pairs = list(map(_CELLS.__getitem__, flat))
    terms, keys = zip(*pairs)  # flat holds at least one cell
    # Only blank nodes the query minted need relabelling (the snapshot's own keep their labels).
    minted = bool(_MINTED_CELLS) and not _MINTED_CELLS.isdisjoint(flat)

    def table(cells: tuple) -> list:
        if pos == list(range(n_vars)):
            return list(zip(*[iter(cells)] * n_vars))  # consecutive n_vars cells per row
        return list(zip(*(cells[k::n_vars] for k in pos)))

    rows = table(terms)
    if ordered or (_NUL_CELLS and not _NUL_CELLS.isdisjoint(flat)):
        return rows, None, minted
    first = keys[pos[0]::n_vars]
    if n_vars == 1 or len(set(first)) == len(first):
        # No two rows tie on the first column (LUBM q08: one row per student), so it alone gives
        # the order: the other columns' keys are never compared.
        return rows, first, minted
    # One string per row: the column keys joined by NUL order exactly as the tuple of keys (see
    # sort_string), and a list of str sorts several times faster than a list of tuples.
    return rows, list(map("\0".join, table(keys))), minted


def _learn(flat: list[str]) -> None:
    """Parse the cells not yet in the process-wide table (each distinct text once)."""
    cells = _CELLS
    for c in dict.fromkeys(flat):
        if c not in cells:
            t = parse_term(c)
            k = sort_string(t)
            cells[c] = (t, k)
            if k is None:
                _NUL_CELLS.add(c)
            elif k == _MINTED_KEY and t.kind == "bnode":
                _MINTED_CELLS.add(c)
