"""SHACL and RDF(S) terms the gate reads, as rdflib URIRefs (one place, no string literals elsewhere)."""
from __future__ import annotations

from rdflib import OWL, RDF, RDFS, SH, URIRef

__all__ = ["SH", "RDF", "RDFS", "OWL", "SPEC", "spec_link", "TARGET_PREDICATES", "CLASS_TYPES", "SHAPE_TYPES"]

SPEC = "https://www.w3.org/TR/shacl/"

#: predicates whose presence makes a node a shape with explicit targets (SHACL §2.1.3)
TARGET_PREDICATES = (SH.targetNode, SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf)
#: a shape that is also one of these is an implicit class target (SHACL §2.1.3.3)
CLASS_TYPES = (RDFS.Class, OWL.Class)
SHAPE_TYPES = (SH.NodeShape, SH.PropertyShape)

#: shape-valued parameters: the gate follows them to pull context for nested shapes
SHAPE_REFS = (SH.node, SH.property, SH["not"], SH.qualifiedValueShape)
SHAPE_LISTS = (SH["and"], SH["or"], SH.xone)
#: property-pair parameters: compare the focus node's values along another predicate (SHACL §4.5)
PAIR_PREDICATES = (SH.equals, SH.disjoint, SH.lessThan, SH.lessThanOrEquals)


def spec_link(anchor: str) -> str:
    """URL of a clause of the W3C SHACL Recommendation, e.g. ``spec_link("property-paths")``."""
    return SPEC + "#" + anchor


def short_component(component: URIRef | None) -> str:
    """``sh:MinCountConstraintComponent`` → ``minCount`` (used in diagnostic codes)."""
    if component is None:
        return "unknown"
    text = str(component)
    name = text[len(str(SH)):] if text.startswith(str(SH)) else text.rsplit("/", 1)[-1].rsplit("#", 1)[-1]
    if name.endswith("ConstraintComponent"):
        name = name[: -len("ConstraintComponent")]
    return name[:1].lower() + name[1:] if name else "unknown"
