"""Reading RDF files into holokb terms: the pyoxigraph adapter (the only module that imports it).

Formats by extension: ``.ttl`` Turtle, ``.trig`` TriG, ``.nt`` N-Triples, ``.nq`` N-Quads,
``.owl``/``.rdf`` RDF/XML, each optionally ``.gz``-compressed.  pyoxigraph parses all of them
(about 20× faster than rdflib on N-Triples, measured in bench/ledger.py).

Blank nodes are skolemised to IRIs under ``core.terms.SKOLEM_PREFIX``: a labelled node
``_:x`` becomes ``SKOLEM_PREFIX + sha256(source_id, "x")[:32]``.  Anonymous nodes (``[]``,
collections, RDF/XML nodes without ``rdf:nodeID``) get the label ``anon<n>``, ``n`` counting in
order of first appearance, because pyoxigraph names them randomly.  So the same file under the
same ``source_id`` always yields the same IRIs.

Every failure is a :class:`~holokb.core.DataSyntaxError` naming the file, line and column:
syntax errors (from pyoxigraph's position), ill-typed or non-finite literals (located by
searching for the lexical form: the first line that contains it), RDF 1.2 triple terms
(holokb speaks RDF 1.1 on the wire, design.md §5), undecodable gzip.
"""
from __future__ import annotations

import gzip
import hashlib
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from ..core import DataSyntaxError, Diagnostic, InvalidValueError, Location
from ..core.inputs import NOT_UTF8, TOO_LARGE, printable, read_bytes
from ..core.terms import HK, IRI, RDF_LANGSTRING, SKOLEM_PREFIX, XSD_STRING, Literal, Term
from .ntriples import LINE_FORMATS, TokenReader, line_blocks

#: Extension (without .gz) → pyoxigraph RdfFormat attribute name.
FORMATS = {
    ".ttl": "TURTLE",
    ".turtle": "TURTLE",
    ".trig": "TRIG",
    ".nt": "N_TRIPLES",
    ".nq": "N_QUADS",
    ".owl": "RDF_XML",
    ".rdf": "RDF_XML",
    ".xml": "RDF_XML",
}

Quad = tuple[IRI, IRI, Term, Optional[IRI]]
"""(subject, predicate, object, graph); graph ``None`` is the default graph."""

#: pyoxigraph names anonymous blank nodes with a random u128 in hex (no zero padding).
_RANDOM_ID = re.compile(r"[0-9a-f]{16,32}")
_HEX_RUN = re.compile(rb"[0-9a-f]{16,}")


@dataclass(frozen=True, slots=True)
class Source:
    """Bytes to parse, what format they are in, and the name diagnostics and skolem IRIs use."""

    data: bytes
    format: str
    name: str
    base_iri: str | None = None


def detect_format(path: str | Path) -> tuple[str, bool]:
    """(format name, gzipped?) from a file name such as ``x.nt.gz``; raises on unknown extensions."""
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    gz = bool(suffixes) and suffixes[-1] == ".gz"
    ext = suffixes[-2] if gz and len(suffixes) >= 2 else (suffixes[-1] if suffixes and not gz else "")
    if ext not in FORMATS:
        raise DataSyntaxError(
            f"{p.name}: unknown RDF file extension {ext or '(none)'!r}",
            (Diagnostic("HK301", f"unknown RDF file extension {ext or '(none)'!r}",
                        Location(str(path), 1, 1), hint="use .ttl .trig .nt .nq .owl .rdf, optionally + .gz"),),
        )
    return FORMATS[ext], gz


def read_source(path: str | Path, *, format: str | None = None, base_iri: str | None = None,
                name: str | None = None) -> Source:
    """Read (and gunzip) a file into a :class:`Source`; ``format`` overrides the extension."""
    fmt, gz = detect_format(path) if format is None else (format, str(path).lower().endswith(".gz"))
    raw = read_bytes(path, what="RDF file")
    shown = name or str(path)
    if gz or raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise _error(shown, f"not a readable gzip file: {e}", 1, 1, "HK302") from None
    if raw.startswith(_BOM):  # editors on some systems write one; no RDF syntax gives it a meaning
        raw = raw[len(_BOM):]
    return Source(raw, fmt, shown, base_iri)


_BOM = b"\xef\xbb\xbf"


def _error(file: str, message: str, line: int, col: int, code: str = "HK300",
           note: str | None = None, hint: str | None = None) -> DataSyntaxError:
    diag = Diagnostic(code, message, Location(file, line, col), notes=(note,) if note else (), hint=hint)
    return DataSyntaxError(f"{file}:{line}:{col}: {message}", (diag,))


#: pyoxigraph's largest token, in bytes (its "buffer maximal size").
_TOKEN_LIMIT = 1 << 24

_POS_PREFIX = re.compile(r"^Parser error at line \d+ (?:column \d+|between columns \d+ and \d+): ")
_POS_SUFFIX = re.compile(r" \(line \d+\)$")


def _from_parser_error(src: Source, e: BaseException, lines_before: int = 0) -> DataSyntaxError:
    """The diagnostic of a pyoxigraph error; ``lines_before`` places an error in a block of ``src``."""
    msg = printable(_POS_SUFFIX.sub("", _POS_PREFIX.sub("", str(e))) or type(e).__name__)
    if msg.startswith("Invalid UTF-8"):  # the same failure as any other text file's, with its code
        code, hint = NOT_UTF8, "save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8 FILE)"
    else:
        code, hint = "HK300", None
    if isinstance(e, MemoryError):  # pyoxigraph's token buffer (16 MiB) overflowed
        line = next((i for i, text in enumerate(src.data.split(b"\n"), 1) if len(text) >= _TOKEN_LIMIT), None)
        return _error(src.name, f"a token is too large for the parser ({msg})", line or 1, 1, TOO_LARGE,
                      note=None if line else "position not found in the source",
                      hint="split the literal or store long text as a document (.txt) and refer to it")
    line = getattr(e, "lineno", None)
    col = getattr(e, "offset", None)
    if not line:
        return _error(src.name, msg, 1, 1, code, note="the parser reported no position", hint=hint)
    return _error(src.name, msg, int(line) + lines_before, int(col or 1), code, hint=hint)


def locate(data: bytes, needle: str) -> tuple[int, int] | None:
    """1-based (line, column) of the first occurrence of ``needle`` in ``data``, or None."""
    i = data.find(needle.encode("utf-8"))
    if i < 0:
        return None
    line_start = data.rfind(b"\n", 0, i) + 1
    return data.count(b"\n", 0, i) + 1, len(data[line_start:i].decode("utf-8", "replace")) + 1


class _Terms:
    """Converts pyoxigraph terms to holokb terms, caching (most IRIs repeat many times)."""

    def __init__(self, src: Source, ox: object):
        self.src = src
        self.iris: dict[str, IRI] = {}
        self.literals: dict[tuple, Literal] = {}
        self.bnodes: dict[str, IRI] = {}
        self.labelled: set[bytes] | None = None
        self.anon = 0
        self.salt = hashlib.sha256(src.name.encode("utf-8")).digest()
        self.ox = ox

    def iri(self, v: str) -> IRI:
        t = self.iris.get(v)
        if t is None:
            try:
                t = self.iris[v] = IRI(v)
            except InvalidValueError as e:
                raise self._at(f"<{v}>", str(e)) from None
        return t

    def bnode(self, label: str) -> IRI:
        t = self.bnodes.get(label)
        if t is None:
            key = label
            if _RANDOM_ID.fullmatch(label):
                if self.labelled is None:  # labels written in the file, for the rare hex-named one
                    self.labelled = set(_HEX_RUN.findall(self.src.data))
                if label.encode() not in self.labelled:
                    key = f"anon{self.anon}"
                    self.anon += 1
            h = hashlib.sha256(self.salt + b"\x00" + key.encode("utf-8")).hexdigest()[:32]
            t = self.bnodes[label] = IRI(SKOLEM_PREFIX + h)
        return t

    def literal(self, lit: object) -> Literal:
        lang = lit.language  # type: ignore[attr-defined]
        dt = lit.datatype.value  # type: ignore[attr-defined]
        key = (lit.value, dt, lang)  # type: ignore[attr-defined]
        t = self.literals.get(key)
        if t is None:
            if getattr(lit, "direction", None):
                raise self._at(f'"{lit.value}"', "RDF 1.2 directional language strings are not supported")  # type: ignore[attr-defined]
            try:
                if lang is not None:
                    t = Literal(lit.value, RDF_LANGSTRING, lang)  # type: ignore[attr-defined]
                else:
                    t = Literal(lit.value, dt or XSD_STRING)  # type: ignore[attr-defined]
            except InvalidValueError as e:
                raise self._at(f'"{lit.value}', e.message) from None  # type: ignore[attr-defined]
            self.literals[key] = t
        return t

    def term(self, x: object) -> Term:
        ox = self.ox
        if isinstance(x, ox.NamedNode):  # type: ignore[attr-defined]
            return self.iri(x.value)  # type: ignore[attr-defined]
        if isinstance(x, ox.BlankNode):  # type: ignore[attr-defined]
            return self.bnode(x.value)  # type: ignore[attr-defined]
        if isinstance(x, ox.Literal):  # type: ignore[attr-defined]
            return self.literal(x)
        raise self._at("<<", "RDF 1.2 triple terms are not supported (holokb speaks RDF 1.1, design.md §5)")

    def _at(self, needle: str, message: str) -> DataSyntaxError:
        pos = locate(self.src.data, needle)
        if pos is None:
            return _error(self.src.name, message, 1, 1, "HK303", note="position not found in the source")
        return _error(self.src.name, message, pos[0], pos[1], "HK303")


def parse_quads(src: Source) -> Iterator[Quad]:
    """Parse a :class:`Source` into holokb quads (skolemised; graph ``None`` = default graph)."""
    import pyoxigraph as ox  # optional heavy dependency, imported only here

    fmt = getattr(ox.RdfFormat, src.format)
    terms = _Terms(src, ox)
    iri, term, iris = terms.iri, terms.term, terms.iris
    get = iris.get
    NamedNode, DefaultGraph = ox.NamedNode, ox.DefaultGraph
    try:
        parser = ox.parse(src.data, format=fmt, base_iri=src.base_iri)
        # The hot loop of every import: cache lookups inlined, NamedNodes handled first.
        for q in parser:
            s, o, g = q.subject, q.object, q.graph_name
            pv = q.predicate.value
            p_t = get(pv) or iri(pv)
            if type(s) is NamedNode:
                sv = s.value
                s_t = get(sv) or iri(sv)
            else:
                s_t = term(s)
            if type(o) is NamedNode:
                ov = o.value
                o_t = get(ov) or iri(ov)
            else:
                o_t = term(o)
            if type(g) is DefaultGraph:
                yield s_t, p_t, o_t, None  # type: ignore[misc]
            else:
                yield s_t, p_t, o_t, term(g)  # type: ignore[misc]
    except DataSyntaxError:
        raise
    except (SyntaxError, ValueError, UnicodeError, OSError, MemoryError) as e:
        raise _from_parser_error(src, e) from None


def parse_text(text: str | bytes, format: str, *, name: str = "<input>",
               base_iri: str | None = None) -> list[Quad]:
    """Parse in-memory RDF text; ``format`` is a FORMATS value such as ``"TURTLE"``."""
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    return list(parse_quads(Source(data, format, name, base_iri)))


@dataclass(frozen=True, slots=True, eq=False)
class PlainTriples:
    """Plain default-graph triples, columnar: distinct terms and flat (s, p, o) indices.

    ``spo[3*i : 3*i + 3]`` index ``terms`` for triple ``i`` in file order (duplicates kept).
    Terms are distinct pyoxigraph terms in order of first conversion; two of them may still be
    equal holokb terms (e.g. language tags differing in case).  In a chunk of
    :func:`plain_chunks`, ``terms`` are the terms new in that chunk and indices count from the
    first chunk's first term.
    """

    terms: tuple[Term, ...]
    spo: list[int]

    def __len__(self) -> int:
        return len(self.spo) // 3


class NotPlain(Exception):
    """The file holds something only the general quad mapping handles (named graphs, hk: terms)."""


def plain_chunks(src: Source, *, chunk: int = 20_000, fast: bool = True) -> Iterator[PlainTriples]:
    """Parse ``src`` columnar in chunks of ``chunk`` triples; raises :class:`NotPlain` on the first
    quad that needs :func:`parse_quads` (a named graph, or any IRI written in the hk: namespace:
    reified history, provenance blocks, ``hk:current``).

    Terms are converted, validated and skolemised exactly as :func:`parse_quads` does, so errors
    and blank-node IRIs are the same.  N-Triples and N-Quads are read block by block, through
    :mod:`holokb.rdf.ntriples` where a block allows it (``fast=False`` turns that off, for
    differential tests) and by pyoxigraph otherwise.  Term indices count distinct pyoxigraph
    terms in order of first conversion: predicate, subject, object per triple by pyoxigraph, and
    subject, predicate, object by the fast path (whose subjects and predicates, IRIs without
    escapes and blank nodes, cannot fail to convert, so the first error is the same).
    """
    import pyoxigraph as ox  # optional heavy dependency, imported only here

    reader = _PlainReader(src, ox)
    terms = reader.terms
    step = 3 * chunk
    pending: list[int] = []
    shipped = 0  # terms already handed out in earlier chunks
    yielded = False
    for piece in reader.pieces(fast):
        pending.extend(piece)
        if len(pending) < step:
            continue
        cut = 0
        while len(pending) - cut >= step:
            part = pending[cut:cut + step]
            cut += step
            # Indices are first occurrences in order, so the chunk's new terms end at its largest index.
            hi = max(shipped, max(part) + 1)
            yield PlainTriples(tuple(terms[shipped:hi]), part)
            shipped, yielded = hi, True
        pending = pending[cut:]
    if pending or not yielded:
        yield PlainTriples(tuple(terms[shipped:]), pending)


class _PlainReader:
    """One plain parse: distinct pyoxigraph terms → column indices, and the triples as index pieces."""

    def __init__(self, src: Source, ox: object):
        self.src = src
        self.ox = ox
        self.conv = _Terms(src, ox)
        self.index: dict[object, int] = {}
        self.terms: list[Term] = []
        self._format = getattr(ox.RdfFormat, src.format)  # type: ignore[attr-defined]

    def new(self, x: object) -> int:
        """The index of pyoxigraph term ``x``, converting (and validating) it the first time."""
        i = self.index.get(x)
        if i is not None:
            return i
        if type(x) is self.ox.NamedNode and x.value.startswith(HK):  # type: ignore[attr-defined]
            raise NotPlain(x.value)  # type: ignore[attr-defined]
        t = self.conv.term(x)
        i = self.index[x] = len(self.terms)
        self.terms.append(t)
        return i

    def pieces(self, fast: bool) -> Iterator[list[int]]:
        """Flat (s, p, o) indices in file order, in pieces of any length."""
        if not fast or self.src.format not in LINE_FORMATS:
            yield from self._general(self.src.data, 0)
            return
        ox = self.ox
        tokens = TokenReader(
            lambda doc: [q.object for q in ox.parse(doc, format=ox.RdfFormat.N_TRIPLES,  # type: ignore[attr-defined]
                                                    base_iri=self.src.base_iri)],
            self.new)
        for lines_before, block, lines in line_blocks(self.src.data):
            spo = tokens.block(block, lines)
            if spo is None:
                try:
                    yield from self._general(block, lines_before)
                except DataSyntaxError:
                    if len(block) == len(self.src.data):
                        raise
                    # Report the error as a parse of the whole file does (a line missing its dot at
                    # the end of a block would otherwise be placed at the block's end).
                    for _ in _PlainReader(self.src, ox)._general(self.src.data, 0):
                        pass
                    raise
            else:
                yield spo

    def _general(self, data: bytes, lines_before: int) -> Iterator[list[int]]:
        """pyoxigraph over ``data`` (the whole source, or a block of its lines after ``lines_before``)."""
        DefaultGraph = self.ox.DefaultGraph  # type: ignore[attr-defined]
        get, new = self.index.get, self.new
        spo: list[int] = []
        add = spo.extend
        try:
            parser = self.ox.parse(data, format=self._format, base_iri=self.src.base_iri)  # type: ignore[attr-defined]
            # The hot loop: pyoxigraph terms hash and compare by content, so each distinct term is
            # converted (and validated) once and every later occurrence is one dict lookup.
            for s, p, o, g in parser:
                if type(g) is not DefaultGraph:
                    raise NotPlain(str(g))
                pi = get(p)
                if pi is None:
                    pi = new(p)
                si = get(s)
                if si is None:
                    si = new(s)
                oi = get(o)
                if oi is None:
                    oi = new(o)
                add((si, pi, oi))
                if len(spo) >= 60_000:
                    yield spo
                    spo = []
                    add = spo.extend
        except (NotPlain, DataSyntaxError):
            raise
        except (SyntaxError, ValueError, UnicodeError, OSError, MemoryError) as e:
            raise _from_parser_error(self.src, e, lines_before) from None
        if spo:
            yield spo


def parse_plain(src: Source) -> PlainTriples | None:
    """The whole of ``src`` as one :class:`PlainTriples`, or None when it is not plain."""
    terms: list[Term] = []
    spo: list[int] = []
    try:
        for part in plain_chunks(src):
            terms.extend(part.terms)
            spo.extend(part.spo)
    except NotPlain:
        return None
    return PlainTriples(tuple(terms), spo)
