"""SPARQL results as plain data: :class:`RDFTerm`, :class:`QueryResult`, and the canonical order.

Result terms are not :class:`holokb.core.Literal`: SPARQL may compute values the KB would never
store (``STRDT("x", xsd:integer)``, ``0e0/0e0``), and blank nodes are terms here.

**Row order.**  A query whose outermost level has ``ORDER BY`` keeps the engine's order (ties
keep the order the engine produced them in, which depends only on the snapshot's content).
Any other SELECT is sorted canonically: by each projected variable in order, with the key
unbound < blank node < IRI < literal (SPARQL's ORDER BY order of kinds), then the value, then
for literals the datatype and language.  Blank nodes the query itself minted (``BNODE()``,
CONSTRUCT templates) are relabelled ``_:n0``, ``_:n1``, … in order of first appearance after
that sort, so the output is byte-identical between runs.  CONSTRUCT/DESCRIBE triples are
sorted by (subject, predicate, object) under the same key, duplicates dropped.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Literal as _Lit

from ..core.limits import LimitHit
from ..core.time import AsOf
from ..core.vocab import RDF_LANGSTRING, SKOLEM_PREFIX, XSD_STRING

if TYPE_CHECKING:
    from ..core.terms import Term

Form = _Lit["SELECT", "ASK", "CONSTRUCT", "DESCRIBE"]
_KIND_ORDER = {"bnode": 1, "iri": 2, "literal": 3}
#: Labels the snapshot gives de-skolemised blank nodes (stable across runs); anything else was minted.
_STABLE_BNODE = re.compile(r"^b[0-9a-f]{32}$")


@dataclass(frozen=True, slots=True, order=True)
class RDFTerm:
    """One RDF term in a result: ``kind`` is ``iri``, ``bnode`` or ``literal``.

    >>> RDFTerm.iri("http://ex.org/a").n3()
    '<http://ex.org/a>'
    """

    kind: str
    value: str
    datatype: str | None = None
    lang: str | None = None

    @staticmethod
    def iri(v: str) -> "RDFTerm":
        """An IRI term."""
        return RDFTerm("iri", v)

    @staticmethod
    def bnode(label: str) -> "RDFTerm":
        """A blank node with this label."""
        return RDFTerm("bnode", label)

    @staticmethod
    def literal(v: str, datatype: str = XSD_STRING, lang: str | None = None) -> "RDFTerm":
        """A literal (a language tag makes it an rdf:langString)."""
        return RDFTerm("literal", v, RDF_LANGSTRING if lang else datatype, lang)

    def sort_key(self) -> tuple:
        """Canonical order: blank node < IRI < literal, then value, datatype, language."""
        return (_KIND_ORDER[self.kind], self.value, self.datatype or "", self.lang or "")

    def n3(self) -> str:
        """N-Triples form (``<iri>``, ``_:label``, ``"lex"@lang``, ``"lex"^^<dt>``)."""
        if self.kind == "iri":
            return f"<{self.value}>"
        if self.kind == "bnode":
            return f"_:{self.value}"
        body = '"' + escape_literal(self.value) + '"'
        if self.lang:
            return f"{body}@{self.lang}"
        if self.datatype and self.datatype != XSD_STRING:
            return f"{body}^^<{self.datatype}>"
        return body

    def to_holokb(self) -> Term:
        """The holokb term (blank nodes as their skolem IRI); raises InvalidValueError for
        literals the KB cannot hold (ill-typed, NaN)."""
        from ..core.terms import IRI, Literal  # not at import: reading results needs no KB terms

        if self.kind == "iri":
            return IRI(self.value)
        if self.kind == "bnode":
            label = self.value[1:] if _STABLE_BNODE.match(self.value) else self.value
            return IRI(SKOLEM_PREFIX + label)
        return Literal(self.value, self.datatype or XSD_STRING, self.lang)


_NEEDS_ESC = re.compile(r'[\\"\n\r\t\x08\x0c]')
_ESC = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x08": "\\b", "\x0c": "\\f"}


def escape_literal(s: str) -> str:
    """N-Triples string escapes (backslash, quote, line breaks, tab, backspace, form feed)."""
    return _NEEDS_ESC.sub(lambda m: _ESC[m.group()], s) if _NEEDS_ESC.search(s) else s


Row = tuple["RDFTerm | None", ...]
Triple = tuple[RDFTerm, RDFTerm, RDFTerm]


@dataclass(frozen=True, slots=True)
class QueryResult:
    """What a SPARQL query returned, over which view and AsOf, and whether anything cut it short.

    ``rows``/``variables`` for SELECT, ``boolean`` for ASK, ``triples`` for CONSTRUCT/DESCRIBE.
    ``snapshot_built`` is True when this call (re)built the store it ran on.
    """

    form: Form
    variables: tuple[str, ...] = ()
    rows: tuple[Row, ...] = ()
    boolean: bool | None = None
    triples: tuple[Triple, ...] = ()
    ordered: bool = False
    as_of: AsOf = field(default_factory=AsOf.latest)
    view: str = "snapshot"
    snapshot_built: bool = False
    truncated: bool = False
    limit_hit: LimitHit | None = None

    def __len__(self) -> int:
        return len(self.rows) if self.form == "SELECT" else len(self.triples)

    def serialize(self, format: str | None = None) -> str:
        """Text in ``format`` (json, xml, csv, tsv, table for SELECT/ASK; turtle, ntriples, table
        for CONSTRUCT/DESCRIBE); the default is json for SELECT/ASK and turtle otherwise."""
        from .formats import serialize

        return serialize(self, format)


def _row_key(row: Row) -> tuple:
    return tuple((0,) if t is None else t.sort_key() for t in row)


def canonical_rows(rows: Iterable[Row], ordered: bool) -> tuple[Row, ...]:
    """Rows in canonical order (unless ``ordered``) with minted blank nodes relabelled (module doc)."""
    rows = list(rows)
    if not ordered:
        # Keys by object identity: result terms repeat as the same object (the converter caches
        # them), and hashing the dataclass per cell was a quarter of the sort (LUBM q08, 7790 rows:
        # 22.6 -> 17.1 ms CPU).  The rows hold every term, so no id is reused while this dict lives.
        keys: dict[int, tuple] = {id(None): (0,)}
        get = keys.get

        def key(t: RDFTerm | None) -> tuple:
            k = get(id(t))
            if k is None:  # minted blank nodes sort as equals: their labels are random
                k = keys[id(t)] = (1, "") if t.kind == "bnode" and not _STABLE_BNODE.match(t.value) else t.sort_key()  # type: ignore[union-attr]
            return k

        rows.sort(key=lambda r: tuple(map(key, r)))
    names: dict[str, RDFTerm] = {}
    if any(t is not None and t.kind == "bnode" and not _STABLE_BNODE.match(t.value) for r in rows for t in r):
        rows = [tuple(_relabel(t, names) for t in r) for r in rows]
    return tuple(rows)


def canonical_triples(triples: Iterable[Triple]) -> tuple[Triple, ...]:
    """Triples sorted and de-duplicated, minted blank nodes relabelled (module doc)."""
    def key(t: Triple) -> tuple:
        return tuple((1, "") if x.kind == "bnode" and not _STABLE_BNODE.match(x.value) else x.sort_key() for x in t)

    # Stable sort over the engine's (deterministic) order: minted labels are random, never a key.
    out = sorted(dict.fromkeys(triples), key=key)
    names: dict[str, RDFTerm] = {}
    if any(x.kind == "bnode" and not _STABLE_BNODE.match(x.value) for t in out for x in t):
        out = [tuple(_relabel(x, names) for x in t) for t in out]  # type: ignore[misc]
        out = sorted(dict.fromkeys(out), key=lambda t: tuple(x.sort_key() for x in t))
    return tuple(out)


def _relabel(t: RDFTerm | None, names: dict[str, RDFTerm]) -> RDFTerm | None:
    if t is None or t.kind != "bnode" or _STABLE_BNODE.match(t.value):
        return t
    n = names.get(t.value)
    if n is None:
        n = names[t.value] = RDFTerm.bnode(f"n{len(names)}")
    return n
