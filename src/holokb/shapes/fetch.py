"""Pulling the context a batch needs from a :class:`ContextSource` into a small data graph.

Starting from each (focus node, shape) pair, the walk follows the shape's path, its
property-pair predicates and its nested shapes, asking the context for the existing values
on the way — so ``sh:minCount``, ``sh:maxCount``, ``sh:qualifiedMaxCount``, ``sh:equals`` and
friends see the stored values next to the new ones — and finally asks for the ``rdf:type``
of every node the graph mentions.  Every lookup is memoised; a node budget bounds the walk.
"""
from __future__ import annotations

from collections.abc import Mapping

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from .context import ContextSource
from .plans import PathExpr, ShapePlan
from .vocab import RDF, RDFS


class ContextFetch:
    """One batch's data graph under construction: the batch plus what the walk pulled in."""

    def __init__(self, batch: Graph, context: ContextSource, *, max_nodes: int | None = None):
        self.graph = Graph()
        for triple in batch:
            self.graph.add(triple)
        self._context = context
        self._forward: set[tuple[Node, URIRef]] = set()
        self._inverse: set[tuple[URIRef, Node]] = set()
        self._typed: set[Node] = set()
        self._visited: set[tuple[Node, Node]] = set()
        self._max_nodes = max_nodes
        self.truncated = False

    # -- types ------------------------------------------------------------------------------
    def add_types(self, types: Mapping[Node, frozenset[URIRef]]) -> None:
        """Record types already looked up (the gate asks once for the batch's nodes)."""
        for node, classes in types.items():
            for cls in classes:
                self.graph.add((node, RDF.type, cls))
        self._typed.update(types)

    def mark_typed(self, nodes) -> None:
        """Nodes whose types were asked for (whether or not they have any)."""
        self._typed.update(nodes)

    def fetch_missing_types(self) -> None:
        """Ask once for the types of every node in the graph not asked about yet."""
        g = self.graph
        wanted = {n for n in g.subjects() if not isinstance(n, Literal)}
        wanted.update(o for p, o in g.predicate_objects() if p != RDF.type and isinstance(o, (URIRef, BNode)))
        wanted -= self._typed
        if wanted:
            self.add_types(self._context.types_of(sorted(wanted, key=str)))
            self._typed.update(wanted)

    def add_hierarchy(self, closure: Mapping[URIRef, frozenset[URIRef]]) -> None:
        """Add superclass links for the classes present (SHACL reads them from the data graph)."""
        g = self.graph
        for cls in {o for o in g.objects(None, RDF.type) if isinstance(o, URIRef)}:
            for sup in closure.get(cls, ()):
                if sup != cls:
                    g.add((cls, RDFS.subClassOf, sup))

    # -- values -----------------------------------------------------------------------------
    def forward(self, node: Node, pred: URIRef) -> set[Node]:
        """Values of ``node pred ?o`` in the batch and the KB."""
        if isinstance(node, Literal):
            return set()
        if (node, pred) not in self._forward:
            self._forward.add((node, pred))
            for o in self._context.values_of(node, pred):
                self.graph.add((node, pred, o))
        return set(self.graph.objects(node, pred))

    def inverse(self, node: Node, pred: URIRef) -> set[Node]:
        """Subjects of ``?s pred node`` in the batch and the KB."""
        if (pred, node) not in self._inverse:
            self._inverse.add((pred, node))
            for s in self._context.subjects_of(pred, node):
                self.graph.add((s, pred, node))
        return set(self.graph.subjects(pred, node))

    def path(self, node: Node, path: PathExpr, inverted: bool = False) -> set[Node]:
        """Value nodes of ``path`` from ``node`` (SHACL §2.3.1), pulling values as it goes."""
        match path.kind:
            case "pred":
                assert path.iri is not None
                return self.inverse(node, path.iri) if inverted else self.forward(node, path.iri)
            case "inv":
                return self.path(node, path.parts[0], not inverted)
            case "seq":
                frontier = {node}
                for part in (reversed(path.parts) if inverted else path.parts):
                    frontier = {v for n in sorted(frontier, key=str) for v in self.path(n, part, inverted)}
                return frontier
            case "alt":
                return {v for part in path.parts for v in self.path(node, part, inverted)}
            case "opt":
                return {node} | self.path(node, path.parts[0], inverted)
            case "star" | "plus":
                seen: set[Node] = {node} if path.kind == "star" else set()
                frontier = [node]
                while frontier:
                    step = {v for n in frontier for v in self.path(n, path.parts[0], inverted)}
                    frontier = sorted(step - seen, key=str)
                    seen.update(frontier)
                    if self._over_budget(len(seen)):
                        break
                return seen
        raise AssertionError(path.kind)

    def walk(self, node: Node, shape: Node, plans: Mapping[Node, ShapePlan], depth: int = 0) -> None:
        """Pull everything evaluating ``shape`` at ``node`` reads (nested shapes included)."""
        key = (node, shape)
        if key in self._visited or depth > 32:
            return
        self._visited.add(key)
        if self._over_budget(len(self._visited)):
            return
        plan = plans.get(shape)
        if plan is None or plan.deactivated:
            return
        values = self.path(node, plan.path) if plan.path is not None else {node}
        for pred in plan.pair_predicates:
            self.forward(node, pred)
        if plan.nested:
            for value in sorted(values, key=str):
                for nested in plan.nested:
                    self.walk(value, nested, plans, depth + 1)

    def _over_budget(self, n: int) -> bool:
        if self._max_nodes is not None and n > self._max_nodes:
            self.truncated = True
            return True
        return False
