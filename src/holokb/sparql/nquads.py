"""holokb terms → N-Quads bytes, the fastest way into a pyoxigraph store.

Snapshots de-skolemise: a skolem IRI (``core.terms.SKOLEM_PREFIX``) is written as the blank node
``_:b<hash>`` that plain exports use too (``rdf.vocab.skolem_label``), so ``isBlank`` holds for it
and its label is the same in every run.  The reified ledger view keeps skolem IRIs, as the full
export does, so a fact node's ``hk:subject`` names the same node as the ledger.
"""
from __future__ import annotations

import re
from typing import Iterable

from ..core.terms import IRI, RDF_LANGSTRING, SKOLEM_PREFIX, XSD_STRING, Literal, Term

_NEEDS_ESC = re.compile(r'[\\"\n\r]')
_ESC = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}
_SKOLEM_LEN = len(SKOLEM_PREFIX)


class NQuadsWriter:
    """Encodes terms to N-Quads text, caching each term's encoding (terms repeat a lot)."""

    def __init__(self, *, deskolemise: bool):
        self.deskolemise = deskolemise
        self._cache: dict[Term, str] = {}

    def term(self, t: Term) -> str:
        """The N-Quads form of one term."""
        s = self._cache.get(t)
        if s is None:
            s = self._cache[t] = self._encode(t)
        return s

    def _encode(self, t: Term) -> str:
        if isinstance(t, IRI):
            v = t.value
            if self.deskolemise and v.startswith(SKOLEM_PREFIX):
                return "_:b" + v[_SKOLEM_LEN:]
            return f"<{v}>"
        assert isinstance(t, Literal)
        lex = t.lexical
        body = '"' + (_NEEDS_ESC.sub(lambda m: _ESC[m.group()], lex) if _NEEDS_ESC.search(lex) else lex) + '"'
        if t.datatype == RDF_LANGSTRING and t.lang:
            return f"{body}@{t.lang}"
        if t.datatype == XSD_STRING:
            return body
        return f"{body}^^<{t.datatype}>"

    def encode(self, quads: Iterable[tuple[Term, Term, Term, Term | None]]) -> bytes:
        """N-Quads bytes for ``quads`` (graph None = the default graph), one line each, in the given order."""
        term = self.term
        lines = []
        add = lines.append
        for s, p, o, g in quads:
            if g is None:
                add(f"{term(s)} {term(p)} {term(o)} .\n")
            else:
                add(f"{term(s)} {term(p)} {term(o)} {term(g)} .\n")
        return "".join(lines).encode("utf-8")
