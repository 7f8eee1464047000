"""What the gate needs to know about the KB beyond the batch: the ``ContextSource`` protocol.

The gate validates a batch together with a *context* pulled from the store of record: the
``rdf:type`` of nodes the batch mentions and the existing values along the paths the relevant
shapes constrain.  The ledger (wired in by the KnowledgeBase façade, bound to one ``AsOf``)
implements this protocol; :class:`InMemoryContext` is a dict-indexed stand-in for tests and
benchmarks.  Terms are rdflib terms because the gate is part of the RDF face.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Protocol, runtime_checkable

from rdflib import RDF, Graph
from rdflib.term import Node, URIRef

Triple = tuple[Node, Node, Node]


@runtime_checkable
class ContextSource(Protocol):
    """The existing KB as the gate sees it (one snapshot; the caller fixes the ``AsOf``)."""

    def types_of(self, nodes: Collection[Node]) -> Mapping[Node, frozenset[URIRef]]:
        """Asserted ``rdf:type`` classes of each node; nodes without types may be left out."""
        ...

    def values_of(self, subject: Node, predicate: URIRef) -> Sequence[Node]:
        """Objects of the visible statements ``subject predicate ?o``."""
        ...

    def subjects_of(self, predicate: URIRef, obj: Node) -> Sequence[Node]:
        """Subjects of the visible statements ``?s predicate obj`` (inverse paths, sh:targetObjectsOf)."""
        ...


class EmptyContext:
    """A KB with nothing in it: the batch is validated on its own."""

    def types_of(self, nodes: Collection[Node]) -> Mapping[Node, frozenset[URIRef]]:
        """No node has a type."""
        return {}

    def values_of(self, subject: Node, predicate: URIRef) -> Sequence[Node]:
        """No values."""
        return ()

    def subjects_of(self, predicate: URIRef, obj: Node) -> Sequence[Node]:
        """No subjects."""
        return ()


class InMemoryContext:
    """A :class:`ContextSource` over dict indexes built once from triples.

    >>> from rdflib import URIRef, RDF
    >>> ctx = InMemoryContext([(URIRef("http://e/a"), RDF.type, URIRef("http://e/C"))])
    >>> ctx.types_of([URIRef("http://e/a")])[URIRef("http://e/a")] == frozenset({URIRef("http://e/C")})
    True
    """

    def __init__(self, triples: Iterable[Triple]):
        spo: dict[tuple[Node, Node], list[Node]] = defaultdict(list)
        pos: dict[tuple[Node, Node], list[Node]] = defaultdict(list)
        types: dict[Node, set[URIRef]] = defaultdict(set)
        for s, p, o in triples:
            spo[(s, p)].append(o)
            pos[(p, o)].append(s)
            if p == RDF.type and isinstance(o, URIRef):
                types[s].add(o)
        self._spo = dict(spo)
        self._pos = dict(pos)
        self._types = {k: frozenset(v) for k, v in types.items()}
        self.calls = 0  # lookups served; tests use it to show what the gate asked for

    @classmethod
    def from_graph(cls, graph: Graph) -> "InMemoryContext":
        """Index every triple of ``graph``."""
        return cls(graph)

    def types_of(self, nodes: Collection[Node]) -> Mapping[Node, frozenset[URIRef]]:
        """Asserted types of each node that has any."""
        self.calls += 1
        types = self._types
        return {n: types[n] for n in nodes if n in types}

    def values_of(self, subject: Node, predicate: URIRef) -> Sequence[Node]:
        """Objects of ``subject predicate ?o``."""
        self.calls += 1
        return self._spo.get((subject, predicate), ())

    def subjects_of(self, predicate: URIRef, obj: Node) -> Sequence[Node]:
        """Subjects of ``?s predicate obj``."""
        self.calls += 1
        return self._pos.get((predicate, obj), ())
