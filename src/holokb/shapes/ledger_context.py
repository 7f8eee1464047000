"""The gate's context, read from the ledger at one AsOf (rdflib terms at the edge).

It is a :class:`~holokb.shapes.timed.TimedContextSource` too: at the AsOf's system time, values
come with the valid interval of each span, so the gate checks a batch against what holds at each
instant of valid time, not only at the AsOf's valid instant.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from rdflib import URIRef
from rdflib.term import Node

from ..core import AsOf, IRI, Interval, Limits
from ..core.terms import RDF_TYPE
from ..ledger import Ledger
from ..rdf.terms import from_rdflib, to_rdflib

_NO_LIMIT = Limits(max_results=None)
_RDF_TYPE = IRI(RDF_TYPE)


class LedgerContext:
    """:class:`~holokb.shapes.ContextSource` over a :class:`~holokb.ledger.Ledger` at ``as_of``."""

    def __init__(self, ledger: Ledger, as_of: AsOf):
        self._ledger = ledger
        self._as_of = as_of

    def _no_types(self) -> bool:
        """No rdf:type term, so no type facts: the per-node reads of a large batch can be skipped."""
        return self._ledger.term_ids([_RDF_TYPE])[0] is None

    def types_of(self, nodes: Collection[Node]) -> Mapping[Node, frozenset[URIRef]]:
        if self._no_types():
            return {}
        iris = {from_rdflib(n): n for n in nodes if isinstance(n, URIRef)}
        found = self._ledger.types_of([i for i in iris if isinstance(i, IRI)], self._as_of)
        return {iris[i]: frozenset(URIRef(c.value) for c in cs) for i, cs in found.items() if cs}

    def values_of(self, subject: Node, predicate: URIRef) -> Sequence[Node]:
        s = from_rdflib(subject)
        if not isinstance(s, IRI):
            return ()
        return [to_rdflib(v) for v in self._ledger.open_values(s, IRI(str(predicate)), self._as_of)]

    def subjects_of(self, predicate: URIRef, obj: Node) -> Sequence[Node]:
        page = self._ledger.facts(self._as_of, predicate=IRI(str(predicate)), obj=from_rdflib(obj),
                                  limits=_NO_LIMIT, polarity="affirm")
        return sorted({to_rdflib(v.fact.subject) for v in page}, key=str)

    # -- valid time ---------------------------------------------------------------------------
    def _spans(self, subject: IRI, predicate: IRI) -> list[tuple[Node, Interval]]:
        """Objects of the affirmed plain spans of (subject, predicate) recorded at the AsOf's system time."""
        sys_t = self._as_of.system
        return [(to_rdflib(v.fact.object), v.valid) for v in self._ledger.history((subject, predicate), limits=_NO_LIMIT)
                if v.system.contains(sys_t) and v.fact.polarity == "affirm" and not v.fact.qualifiers]

    def types_during(self, nodes: Collection[Node]) -> Mapping[Node, Sequence[tuple[Node, Interval]]]:
        out: dict = {}
        if self._no_types():
            return out
        for n in nodes:
            s = from_rdflib(n) if isinstance(n, URIRef) else None
            if isinstance(s, IRI):
                found = [(c, iv) for c, iv in self._spans(s, IRI(RDF_TYPE)) if isinstance(c, URIRef)]
                if found:
                    out[n] = found
        return out

    def values_during(self, subject: Node, predicate: URIRef) -> Sequence[tuple[Node, Interval]]:
        s = from_rdflib(subject)
        return self._spans(s, IRI(str(predicate))) if isinstance(s, IRI) else []

    def subjects_during(self, predicate: URIRef, obj: Node) -> Sequence[tuple[Node, Interval]]:
        # The ledger reads (?s, p, o) only at one valid instant: subjects are those visible at the
        # AsOf, each with every interval its (s, p, o) spans hold over.
        out = []
        for s in self.subjects_of(predicate, obj):
            out.extend((s, iv) for o, iv in self.values_during(s, predicate) if o == obj)
        return out
