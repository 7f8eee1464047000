"""Plain triples held columnar, as the SHACL gate sees a batch: a read-only graph with the batch
view computed from integer columns (no rdflib ``Graph`` of the whole load is ever built).

:class:`PlainBatch` implements what :meth:`holokb.shapes.ShapesGate.check` reads from a batch:
``batch_view`` (nodes, types and per-node predicates, computed with numpy over term indices),
``subject_objects`` (ontology axioms such as ``rdfs:subClassOf``), ``triples``, iteration and
``len``.  Terms become rdflib terms once each, and only when asked for.
"""
from __future__ import annotations

from collections.abc import Set
from typing import Callable, Iterator, Sequence

import numpy as np
from rdflib import Literal as RLiteral
from rdflib.term import Node

from ..core.terms import RDF_TYPE, IRI, Term
from ..core.arrays import distinct
from .terms import to_rdflib


class PlainBatch:
    """A read-only, duplicate-free view of columnar plain triples (``terms``, flat ``spo`` indices)."""

    def __init__(self, terms: Sequence[Term], spo: Sequence[int], *, distinct: np.ndarray | None = None):
        """``spo``: flat (s, p, o) indices into ``terms``, duplicates allowed.  ``distinct``, when
        given, is the same triples as rows without duplicates (e.g. what staging kept) and is used
        as is."""
        self._terms = terms
        self._rows = _distinct(spo, len(terms)) if distinct is None else np.asarray(distinct, dtype=np.int64)
        self._nodes: dict[int, Node] = {}
        self._index: dict[int, dict[Node, list[int]]] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def node(self, i: int) -> Node:
        n = self._nodes.get(i)
        if n is None:
            n = self._nodes[i] = to_rdflib(self._terms[i])
        return n

    def __iter__(self) -> Iterator[tuple[Node, Node, Node]]:
        node = self.node
        for s, p, o in self._rows.tolist():
            yield node(s), node(p), node(o)

    def _ids(self, col: int, n: Node | None) -> np.ndarray | None:
        """Term indices in column ``col`` that are ``n`` (None: any).  Only that column's distinct
        terms become rdflib terms (a predicate pattern converts a handful, not every term)."""
        if n is None:
            return None
        index = self._index.get(col)
        if index is None:
            index = self._index[col] = {}
            for i in distinct(self._rows[:, col]).tolist():
                index.setdefault(self.node(i), []).append(i)
        return np.asarray(index.get(n, ()), dtype=np.int64)

    def triples(self, pattern: tuple[Node | None, Node | None, Node | None]) -> Iterator[tuple[Node, Node, Node]]:
        """The triples matching ``(s, p, o)`` (None = any), as rdflib terms."""
        mask = np.ones(len(self._rows), dtype=bool)
        for col, n in enumerate(pattern):
            ids = self._ids(col, n)
            if ids is not None:
                mask &= np.isin(self._rows[:, col], ids)
        node = self.node
        for s, p, o in self._rows[mask].tolist():
            yield node(s), node(p), node(o)

    def subject_objects(self, predicate: Node) -> Iterator[tuple[Node, Node]]:
        for s, _, o in self.triples((None, predicate, None)):
            yield s, o

    def batch_view(self, *, literals: bool, predicates: bool, classes: Set[Node] | None = None):
        """The gate's :class:`~holokb.shapes.batchview.BatchView`, from the integer columns.  With
        ``classes``, ``types`` holds only the nodes with one of them (the others convert nothing)."""
        from ..shapes.batchview import BatchView

        rows = self._rows
        node = self.node
        terms = self._terms
        objects = distinct(rows[:, 2])
        if not literals:
            objects = objects[[isinstance(terms[i], IRI) for i in objects.tolist()]] if len(objects) else objects
        subjects = distinct(rows[:, 0])
        nodes = _LazyNodes(distinct(np.concatenate((subjects, objects))), node)
        type_ids = [i for i in distinct(rows[:, 1]).tolist() if terms[i] == IRI(RDF_TYPE)]
        types: dict[Node, set[Node]] = {}
        if type_ids:
            typed = rows[np.isin(rows[:, 1], type_ids)]
            if classes is not None:  # only subjects with a wanted class, and all their classes
                wanted = [i for i in distinct(typed[:, 2]).tolist() if node(i) in classes]
                typed = typed[np.isin(typed[:, 0], typed[np.isin(typed[:, 2], wanted), 0])]
            for s, o in typed[:, [0, 2]].tolist():
                types.setdefault(node(s), set()).add(node(o))
        subj: dict[Node, set[Node]] = {}
        obj: dict[Node, set[Node]] = {}
        if predicates:
            n = max(len(terms), 1)
            for s, p in _pairs(rows[:, 0], rows[:, 1], n):
                subj.setdefault(node(s), set()).add(node(p))
            for o, p in _pairs(rows[:, 2], rows[:, 1], n):
                n = node(o)
                if literals or type(n) is not RLiteral:
                    obj.setdefault(n, set()).add(node(p))
        return BatchView(nodes, {k: frozenset(v) for k, v in types.items()},
                         {k: frozenset(v) for k, v in subj.items()}, {k: frozenset(v) for k, v in obj.items()})


def _pairs(a: np.ndarray, b: np.ndarray, n: int) -> list[list[int]]:
    """The distinct (a, b) index pairs, sorted; indices are below ``n``."""
    if n < 3_000_000_000:  # a * n + b fits in an int64
        key = distinct(a * n + b)
        return np.stack((key // n, key % n), axis=1).tolist()
    return np.unique(np.stack((a, b), axis=1), axis=0).tolist()


def _distinct(spo: Sequence[int], terms: int) -> np.ndarray:
    """The distinct rows of flat (s, p, o) indices (sorted)."""
    a = np.asarray(spo, dtype=np.int64).reshape(-1, 3)
    n = max(terms, 1)
    if len(a) and n < 2_000_000:  # one int64 key per triple: a 1-D unique is far cheaper than axis=0
        key = distinct((a[:, 0] * n + a[:, 1]) * n + a[:, 2])
        return np.stack((key // (n * n), key // n % n, key % n), axis=1)
    return np.unique(a, axis=0) if len(a) else a


class _LazyNodes(Set):
    """The batch's nodes as rdflib terms, converted on first use: a gate whose shapes only target
    classes (and whose ledger holds no types) never looks at them, and a large load has many."""

    def __init__(self, ids: np.ndarray, node: Callable[[int], Node]):
        self._ids = ids
        self._node = node
        self._set: frozenset[Node] | None = None

    def _nodes(self) -> frozenset[Node]:
        if self._set is None:
            node = self._node
            self._set = frozenset(node(i) for i in self._ids.tolist())
        return self._set

    def __contains__(self, n: object) -> bool:
        return n in self._nodes()

    def __iter__(self) -> Iterator[Node]:
        return iter(self._nodes())

    def __len__(self) -> int:
        return len(self._nodes())  # two indices may be one term (e.g. language tags in two cases)

    @classmethod
    def _from_iterable(cls, it) -> frozenset[Node]:  # what `&`, `|`, `-` build (Set's mixins call cls(it))
        return frozenset(it)
