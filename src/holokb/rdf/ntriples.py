"""A fast path for N-Triples and N-Quads: lines split by one regular expression, each distinct
token read once by pyoxigraph.

pyoxigraph parses N-Triples quickly, but handing every triple to Python costs far more than the
parse (three term objects per line, each hashed and looked up).  Here a block of lines is split
with one ``re.findall`` (C speed), tokens are deduplicated as bytes, and only the tokens not seen
before go to pyoxigraph: one small document, ``<x:s> <x:p> TOKEN .`` per token, which checks and
decodes them (escapes, IRI syntax, language tags, datatypes) exactly as a full parse would.

A block takes the fast path only when every line of it is ``S P O .`` with single spaces and
each distinct token is, lexically, exactly one term of its position (IRI or blank node as
subject, IRI as predicate, IRI, blank node or literal as object).  A line that is then valid for
pyoxigraph means the same as it does here: the tokens are self-delimiting, so pyoxigraph would
cut the line at the same places.  Any other block — a comment, a blank line, other spacing, a
named graph, RDF 1.2 syntax, a token pyoxigraph refuses — is parsed by pyoxigraph as a whole
(:func:`holokb.rdf.parse.plain_chunks` does that), so errors keep their file:line:col and
anything the fast path does not take still means what pyoxigraph says it means.
"""
from __future__ import annotations

import re
from itertools import chain
from typing import Callable, Iterator

#: Formats whose lines are independent (a block of whole lines parses on its own).
LINE_FORMATS = ("N_TRIPLES", "N_QUADS")

_BLOCK = 1 << 19  # bytes per block (about 3,000 LUBM lines): a block the fast path refuses costs little

# Greedy ``(.+)`` backtracks from the end of the line to the last " ." (a lazy object would try
# the tail at every byte, several times slower); an object that swallowed more than one term
# fails the token check below.  The first bytes place the tokens: a subject starts like an IRI
# or a blank node, a predicate like an IRI, so any token that is lexically one object term is
# also one term of the position it is in.
_LINE = re.compile(rb"^([<_]\S*) (<\S*) (.+) \.\r?$", re.M)

_IRI = rb'<[^\x00-\x20<>"{}|^`\\]*>'  # no escapes: an IRI with \u takes the general path
_BNODE = rb"_:[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?"  # ASCII labels only
_LITERAL = (rb'"[^"\\\n\r]*(?:\\.[^"\\\n\r]*)*"'
            rb"(?:@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*|\^\^" + _IRI + rb")?")
_TERM = re.compile(_IRI + rb"|" + _BNODE + rb"|" + _LITERAL).fullmatch


def line_blocks(data: bytes, size: int = _BLOCK) -> Iterator[tuple[int, bytes, int]]:
    """(number of lines before the block, block, number of lines in it) for blocks of whole lines
    of about ``size`` bytes (a last line without a newline counts)."""
    start, lines, n = 0, 0, len(data)
    while start < n:
        end = data.find(b"\n", start + size)
        end = n if end < 0 else end + 1
        block = data[start:end]
        newlines = block.count(b"\n")
        yield lines, block, newlines + (not block.endswith(b"\n"))
        lines += newlines
        start = end


class TokenReader:
    """Distinct tokens seen so far and the term index each one stands for.

    ``read_terms(document)`` parses a document of ``<x:s> <x:p> TOKEN .`` lines and returns the
    pyoxigraph objects in order (it raises whatever pyoxigraph raises); ``index_of(term)``
    gives (registering it if new) the column index of a pyoxigraph term.
    """

    def __init__(self, read_terms: Callable[[bytes], list], index_of: Callable[[object], int]):
        self._read_terms = read_terms
        self._index_of = index_of
        self._tokens: dict[bytes, int] = {}

    def block(self, block: bytes, lines: int | None = None) -> list[int] | None:
        """Flat (s, p, o) term indices of the block's triples, or None when the block needs the
        general parser (nothing was registered then, unless ``index_of`` raised).  ``lines``: the
        block's number of lines when the caller counted them already."""
        rows = _LINE.findall(block)
        if lines is None:
            lines = block.count(b"\n") + (not block.endswith(b"\n"))
        if len(rows) != lines or not rows:
            return None  # some line is not "S P O ." (comment, blank, spacing, graph name...)
        tokens = self._tokens
        # Distinct new tokens in first-occurrence order (s, p, o per triple).
        new = [t for t in dict.fromkeys(chain.from_iterable(rows)) if t not in tokens]
        if new:
            if not all(map(_TERM, new)):
                return None
            try:
                terms = self._read_terms(b"".join([b"<x:s> <x:p> " + t + b" .\n" for t in new]))
            except (SyntaxError, ValueError, UnicodeError, MemoryError):
                return None  # the general parser finds (and places) the error
            if len(terms) != len(new):
                return None
            index_of = self._index_of
            for t, x in zip(new, terms):
                tokens[t] = index_of(x)
        return list(map(tokens.__getitem__, chain.from_iterable(rows)))
