"""holokb terms ↔ rdflib terms (for pySHACL and rdflib-based tooling)."""
from __future__ import annotations

from rdflib import BNode, Literal as RLiteral, URIRef
from rdflib.term import Node

from ..core.terms import IRI, RDF_LANGSTRING, SKOLEM_PREFIX, XSD_STRING, Literal, Term


def to_rdflib(t: Term) -> Node:
    """A holokb term as an rdflib node (lexical form kept)."""
    if isinstance(t, IRI):
        return URIRef(t.value)
    if t.lang:
        return RLiteral(t.lexical, lang=t.lang)
    return RLiteral(t.lexical, datatype=URIRef(t.datatype))


def from_rdflib(n: Node) -> Term:
    """An rdflib node as a holokb term; blank nodes become skolem IRIs."""
    if isinstance(n, URIRef):
        return IRI(str(n))
    if isinstance(n, BNode):
        return IRI(SKOLEM_PREFIX + str(n))
    if isinstance(n, RLiteral):
        if n.language:
            return Literal(str(n), RDF_LANGSTRING, n.language)
        return Literal(str(n), str(n.datatype) if n.datatype else XSD_STRING)
    raise TypeError(f"not an RDF term: {n!r}")
