"""What the ledger's reads return (frozen dataclasses), and the content hashes it mints."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # annotations only; numpy loads where arrays are built
    import numpy as np

from ..core.fact import Evidence, Fact
from ..core.terms import IRI, Term, stored_iri, stored_literal
from ..core.time import Interval

from .marker import span_digest

_EV_MAGIC = b"HKE1"


@dataclass(frozen=True, slots=True)
class FactView:
    """One visible span of a fact: the fact, its ids, both intervals, and its evidence."""

    fact: Fact
    fact_id: str
    span_id: str
    valid: Interval
    system: Interval
    evidence: tuple[Evidence, ...] = ()


#: A span in a history listing has the same shape as a visible fact.
SpanView = FactView


@dataclass(frozen=True, slots=True)
class PredicateInfo:
    """A declared predicate: arity, argument types and cardinality."""

    iri: IRI
    arity: int = 2
    arg_types: tuple[IRI, ...] = ()
    functional: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class EncodedFacts:
    """Integer-encoded visible facts for the engine; open ``valid_to`` is encoded as MAX_TIME.

    Row ``i`` is the span ``(s[i], p[i], o[i])`` valid over ``[valid_from[i], valid_to[i])``;
    term ids resolve with :meth:`Ledger.term`.
    """

    s: np.ndarray
    p: np.ndarray
    o: np.ndarray
    valid_from: np.ndarray
    valid_to: np.ndarray
    fact_ids: tuple[str, ...]
    #: each row's fact as this file's fact row id (what stored closures name premises by)
    rowids: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.fact_ids)


class SearchHit(NamedTuple):
    """A chunk found by BM25: document, chunk and score (higher is better); unpacks as a tuple."""

    document: str
    chunk: str
    score: float


def span_hash(fact_hash: bytes, valid: Interval, system_from: int) -> bytes:
    """The immutable identity of a span: SHA-256 of (fact id, valid_from, valid_to, system_from)."""
    return span_digest(fact_hash, valid.start, valid.end, system_from)


def evidence_hash(span_id: bytes, e: Evidence) -> bytes:
    """Identity of one evidence row (identical evidence on a span is stored once)."""
    parts = (
        e.document, e.chunk, e.char_start, e.char_end, e.extractor, e.extractor_version,
        float(e.confidence), e.asserted_at,
    )
    return hashlib.sha256(_EV_MAGIC + span_id + repr(parts).encode("utf-8")).digest()


def term_row(t: Term) -> tuple[int, str, str, str]:
    """(kind, lexical, datatype, lang) as stored in the terms table."""
    if isinstance(t, IRI):
        return (0, t.value, "", "")
    return (1, t.lexical, t.datatype, t.lang or "")


def term_from_row(kind: int, lexical: str, datatype: str, lang: str) -> Term:
    """Rebuild a term from its stored columns (written from a checked term: not checked again)."""
    if kind == 0:
        return stored_iri(lexical)
    return stored_literal(lexical, datatype, lang or None)


@dataclass(frozen=True, slots=True)
class QuadChanges:
    """What the writes after a change marker did, as read by ``Ledger.changes_since`` in one read
    transaction (so ``marker`` and the rows agree).

    ``quads``: every plain quad (subject, predicate, object, graph or None) whose fact had a span
    opened or closed by those writes (or by an earlier write at the same system time), with
    whether it is visible at the AsOf asked about *now*.  ``predicates``: the predicate IRIs of
    every fact touched, plain or not (negated, qualified).  ``system_min``: the earliest system
    time those writes used (None: none touched a span) — a read at an earlier system time cannot
    have changed.  ``complete`` is False when some write since left no system-time record
    (documents, entities, evidence): only span-derived views can be kept current from this.
    """

    marker: int
    since: int
    system_high: int | None
    system_min: int | None
    quads: tuple[tuple[Term, Term, Term, Term | None, bool], ...]
    predicates: frozenset[str]
    complete: bool
