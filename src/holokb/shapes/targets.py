"""Shape targets (SHACL §2.1.3), precomputed once, and the lookup that finds a batch's focus nodes.

A class target matches every instance of the class or of any subclass; the subclass closure
comes from the ``rdfs:subClassOf`` axioms of the shapes/ontology graph (plus any a batch
brings along).  The index maps each class, node and predicate straight to the shapes that
target it, so a batch that no shape targets costs one dict probe per node.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rdflib import Graph, Literal, URIRef
from rdflib.term import Node

from .vocab import CLASS_TYPES, RDF, RDFS, SH, SHAPE_TYPES


@dataclass(frozen=True, slots=True)
class ShapeTargets:
    """What one shape targets: explicit nodes, classes (declared and implicit), and predicates."""

    nodes: frozenset[Node]
    classes: frozenset[URIRef]
    subjects_of: frozenset[URIRef]
    objects_of: frozenset[URIRef]

    @property
    def empty(self) -> bool:
        """True when the shape has no targets (it is only reached from other shapes)."""
        return not (self.nodes or self.classes or self.subjects_of or self.objects_of)


def read_targets(graph: Graph, shape: Node) -> ShapeTargets:
    """The targets ``shape`` declares in ``graph``, including an implicit class target."""
    classes = {c for c in graph.objects(shape, SH.targetClass) if isinstance(c, URIRef)}
    if isinstance(shape, URIRef) and any((shape, RDF.type, t) in graph for t in CLASS_TYPES) \
            and any((shape, RDF.type, t) in graph for t in SHAPE_TYPES):
        classes.add(shape)
    return ShapeTargets(
        nodes=frozenset(n for n in graph.objects(shape, SH.targetNode) if isinstance(n, (URIRef, Literal))),
        classes=frozenset(classes),
        subjects_of=frozenset(p for p in graph.objects(shape, SH.targetSubjectsOf) if isinstance(p, URIRef)),
        objects_of=frozenset(p for p in graph.objects(shape, SH.targetObjectsOf) if isinstance(p, URIRef)),
    )


def subclass_edges(graph: Graph) -> frozenset[tuple[URIRef, URIRef]]:
    """``(sub, super)`` pairs of the IRI ``rdfs:subClassOf`` axioms in ``graph``."""
    return frozenset((s, o) for s, o in graph.subject_objects(RDFS.subClassOf)
                     if isinstance(s, URIRef) and isinstance(o, URIRef))


def superclass_closure(edges: Iterable[tuple[URIRef, URIRef]]) -> dict[URIRef, frozenset[URIRef]]:
    """Reflexive-transitive superclasses of every class mentioned in ``edges`` (cycles are fine)."""
    up: dict[URIRef, set[URIRef]] = defaultdict(set)
    for sub, sup in edges:
        up[sub].add(sup)
        up.setdefault(sup, set())
    closure: dict[URIRef, frozenset[URIRef]] = {}
    for start in up:
        seen = {start}
        stack = [start]
        while stack:
            for sup in up[stack.pop()]:
                if sup not in seen:
                    seen.add(sup)
                    stack.append(sup)
        closure[start] = frozenset(seen)
    return closure


@dataclass(frozen=True, slots=True)
class TargetIndex:
    """From a type, node or predicate straight to the indices of the shapes that target it."""

    by_type: Mapping[URIRef, frozenset[int]]
    by_node: Mapping[Node, frozenset[int]]
    by_subject_of: Mapping[URIRef, frozenset[int]]
    by_object_of: Mapping[URIRef, frozenset[int]]

    @property
    def has_literal_targets(self) -> bool:
        """Whether a literal can ever be a focus node (targetNode literals or targetObjectsOf)."""
        return bool(self.by_object_of) or any(isinstance(n, Literal) for n in self.by_node)


def build_index(targets: Iterable[ShapeTargets], edges: Iterable[tuple[URIRef, URIRef]]) -> TargetIndex:
    """Index shapes by every class whose instances they target (subclasses included)."""
    closure = superclass_closure(edges)
    by_class: dict[URIRef, set[int]] = defaultdict(set)
    by_node: dict[Node, set[int]] = defaultdict(set)
    by_subj: dict[URIRef, set[int]] = defaultdict(set)
    by_obj: dict[URIRef, set[int]] = defaultdict(set)
    for i, t in enumerate(targets):
        for c in t.classes:
            by_class[c].add(i)
        for n in t.nodes:
            by_node[n].add(i)
        for p in t.subjects_of:
            by_subj[p].add(i)
        for p in t.objects_of:
            by_obj[p].add(i)
    by_type: dict[URIRef, frozenset[int]] = {c: frozenset(ix) for c, ix in by_class.items()}
    for cls, supers in closure.items():
        hit = set().union(*(by_class.get(s, ()) for s in supers))
        if hit:
            by_type[cls] = frozenset(hit)
    return TargetIndex(
        by_type=by_type,
        by_node={k: frozenset(v) for k, v in by_node.items()},
        by_subject_of={k: frozenset(v) for k, v in by_subj.items()},
        by_object_of={k: frozenset(v) for k, v in by_obj.items()},
    )
