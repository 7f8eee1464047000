"""Per-shape plans: the parts of a shape the gate needs to pull context, as plain data.

A :class:`PathExpr` is a SHACL property path (§2.3.1) read once from the shapes graph; a
:class:`ShapePlan` lists what evaluating a shape at a node touches — its path, the
property-pair predicates it compares, and the shapes it hands value nodes to.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal as Kind

from rdflib import BNode, Graph, URIRef
from rdflib.namespace import NamespaceManager
from rdflib.term import Node

from .load import list_items
from .vocab import PAIR_PREDICATES, RDF, SH, SHAPE_LISTS, SHAPE_REFS

PathKind = Kind["pred", "inv", "seq", "alt", "star", "plus", "opt"]


@dataclass(frozen=True, slots=True)
class PathExpr:
    """A property path: ``pred`` carries ``iri``; every other kind carries ``parts``."""

    kind: PathKind
    iri: URIRef | None = None
    parts: tuple["PathExpr", ...] = ()

    def render(self, nm: NamespaceManager | None = None) -> str:
        """SPARQL 1.1 property-path text, e.g. ``^ex:p/ex:q*``."""
        match self.kind:
            case "pred":
                assert self.iri is not None
                return self.iri.n3(nm) if nm is not None else self.iri.n3()
            case "inv":
                return "^" + self.parts[0]._atom(nm)
            case "seq":
                return "/".join(p._atom(nm) for p in self.parts)
            case "alt":
                return "(" + "|".join(p.render(nm) for p in self.parts) + ")"
            case "star" | "plus" | "opt":
                return self.parts[0]._atom(nm) + {"star": "*", "plus": "+", "opt": "?"}[self.kind]
        raise AssertionError(self.kind)

    def _atom(self, nm: NamespaceManager | None) -> str:
        text = self.render(nm)
        return text if self.kind in ("pred", "alt", "inv") else "(" + text + ")"


def read_path(graph: Graph, node: Node) -> PathExpr:
    """The :class:`PathExpr` for a well-formed path node (check with ``load.path_problem`` first)."""
    if isinstance(node, URIRef):
        return PathExpr("pred", iri=node)
    if (node, RDF.first, None) in graph:
        return PathExpr("seq", parts=tuple(read_path(graph, i) for i in list_items(graph, node) or ()))
    for pred, kind in ((SH.inversePath, "inv"), (SH.zeroOrMorePath, "star"), (SH.oneOrMorePath, "plus"),
                       (SH.zeroOrOnePath, "opt")):
        inner = graph.value(node, pred)
        if inner is not None:
            return PathExpr(kind, parts=(read_path(graph, inner),))  # type: ignore[arg-type]
    alts = graph.value(node, SH.alternativePath)
    if alts is not None:
        return PathExpr("alt", parts=tuple(read_path(graph, i) for i in list_items(graph, alts) or ()))
    raise ValueError(f"not a property path: {node!r}")


@dataclass(frozen=True, slots=True)
class ShapePlan:
    """What evaluating one shape at a node reads: its path, compared predicates, nested shapes."""

    node: Node
    label: str
    path: PathExpr | None
    pair_predicates: tuple[URIRef, ...]
    nested: tuple[Node, ...]
    deactivated: bool


def read_plan(graph: Graph, shape: Node, label: str) -> ShapePlan:
    """Plan for ``shape``; nested shapes are listed in a stable order."""
    path_node = graph.value(shape, SH.path)
    nested: set[Node] = set()
    for p in SHAPE_REFS:
        nested.update(o for o in graph.objects(shape, p) if isinstance(o, (URIRef, BNode)))
    for p in SHAPE_LISTS:
        for head in graph.objects(shape, p):
            nested.update(i for i in (list_items(graph, head) or ()) if isinstance(i, (URIRef, BNode)))
    if any(o.toPython() is True for o in graph.objects(shape, SH.qualifiedValueShapesDisjoint)):
        # disjointness checks value nodes against the sibling property shapes' qualified shapes
        for parent in graph.subjects(SH.property, shape):
            for sibling in graph.objects(parent, SH.property):
                nested.update(graph.objects(sibling, SH.qualifiedValueShape))
    deactivated = any(o.toPython() is True for o in graph.objects(shape, SH.deactivated))
    return ShapePlan(
        node=shape,
        label=label,
        path=read_path(graph, path_node) if path_node is not None else None,
        pair_predicates=tuple(sorted({o for p in PAIR_PREDICATES for o in graph.objects(shape, p)
                                      if isinstance(o, URIRef)}, key=str)),
        nested=tuple(sorted(nested, key=lambda n: (isinstance(n, BNode), str(n)))),
        deactivated=deactivated,
    )


def shape_labels(graph: Graph, shapes: list[Node]) -> dict[Node, str]:
    """Stable names for shapes: the IRI, or ``<parent>/property[<path>]`` for blank-node shapes.

    Blank-node ids change on every parse, so report order and diagnostics never use them.
    """
    nm = graph.namespace_manager
    labels: dict[Node, str] = {}

    def label(node: Node, seen: frozenset[Node]) -> str:
        if node in labels:
            return labels[node]
        if isinstance(node, URIRef):
            text = node.n3(nm)
        elif node in seen:
            text = "_:cycle"
        else:
            text = _bnode_label(graph, node, seen | {node}, label)
        labels[node] = text
        return text

    for s in shapes:
        label(s, frozenset())
    # two blank-node shapes can share a parent and a path: tell them apart by their content
    groups: dict[str, list[Node]] = {}
    for node, text in labels.items():
        groups.setdefault(text, []).append(node)
    for text, members in groups.items():
        if len(members) > 1:
            for node in members:
                labels[node] = f"{text}~{_content_digest(graph, node)}"
    return labels


def _content_digest(graph: Graph, node: Node) -> str:
    """Short hash of a shape's own triples (nested blank nodes reduced to a marker)."""
    import hashlib

    parts = sorted(f"{p.n3()} {'_:' if isinstance(o, BNode) else o.n3()}" for p, o in graph.predicate_objects(node))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:8]


def _bnode_label(graph: Graph, node: Node, seen: frozenset[Node], label) -> str:
    nm = graph.namespace_manager
    path_node = graph.value(node, SH.path)
    here = f"[{read_path(graph, path_node).render(nm)}]" if path_node is not None else ""
    for pred, name in ((SH.property, "property"), (SH.node, "node"), (SH["not"], "not"),
                       (SH.qualifiedValueShape, "qualifiedValueShape")):
        parents = sorted(graph.subjects(pred, node), key=lambda n: (isinstance(n, BNode), str(n)))
        if parents:
            return f"{label(parents[0], seen)}/{name}{here}"
    for pred in SHAPE_LISTS:
        for parent in sorted(graph.subjects(pred, None), key=lambda n: (isinstance(n, BNode), str(n))):
            for head in graph.objects(parent, pred):
                items = list_items(graph, head) or []
                if node in items:
                    return f"{label(parent, seen)}/{str(pred)[len(str(SH)):]}[{items.index(node)}]{here}"
    return f"_:shape{here}"
