"""Split a document into chunks: paragraphs separated by blank lines, with character offsets.

Chunk ids are ``p0``, ``p1``, ... in document order; offsets are into the document text
(``[start, end)``, trailing whitespace excluded), so an evidence span inside a chunk is
relative to that chunk's text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_PARA = re.compile(r"\S(?:.*?\S)??(?=\s*(?:\n[ \t]*\n|\Z))", re.S)


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk of a document: its id and ``[start, end)`` character offsets."""

    chunk_id: str
    start: int
    end: int


def chunk_paragraphs(text: str) -> tuple[Chunk, ...]:
    """Paragraph chunks of ``text``.

    >>> [c.chunk_id for c in chunk_paragraphs("a b\\n\\nc\\n")]
    ['p0', 'p1']
    """
    return tuple(Chunk(f"p{i}", m.start(), m.end()) for i, m in enumerate(_PARA.finditer(text)))
