"""A batch's nodes, types and predicates, read in one pass (or straight from rdflib's indexes).

Gating a batch nobody targets must cost next to nothing; iterating an rdflib ``Graph``
costs microseconds per triple, so when the batch owns its in-memory store outright the
view reads the store's subject and object indexes instead.
"""
from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from rdflib import Graph, Literal, URIRef
from rdflib.plugins.stores.memory import Memory
from rdflib.term import Node

_RDF_TYPE = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


@dataclass(frozen=True, slots=True)
class BatchView:
    """Nodes a batch mentions (objects that are literals only when asked), their batch types,
    and the predicates each node has as subject / as object."""

    nodes: Set[Node]
    types: dict[Node, frozenset[Node]]
    subject_predicates: dict[Node, frozenset[Node]]
    object_predicates: dict[Node, frozenset[Node]]


def view(batch: Graph, *, literals: bool, predicates: bool, classes: Set[Node] | None = None) -> BatchView:
    """Read ``batch`` once; ``predicates`` asks for the per-node predicate sets too.  A batch that
    computes its own view (``batch.batch_view(literals=, predicates=, classes=)``, e.g. the ledger's
    columnar load in :mod:`holokb.rdf.batch`) is asked for it instead of being iterated; it may
    leave out of ``types`` the nodes with no type in ``classes`` (the classes some shape targets)."""
    own = getattr(batch, "batch_view", None)
    if own is not None:
        return own(literals=literals, predicates=predicates, classes=classes)
    indexes = _memory_indexes(batch)
    if indexes is not None:
        spo, osp = indexes
        objects = osp.keys() if literals else {o for o in osp if type(o) is not Literal}
        nodes = spo.keys() | objects
        types = {s: frozenset(po[_RDF_TYPE]) for s, po in spo.items() if _RDF_TYPE in po}
        if not predicates:
            return BatchView(nodes, types, {}, {})
        subj = {s: frozenset(po) for s, po in spo.items()}
        obj = {o: frozenset(p for sp in osp[o].values() for p in sp) for o in objects}
        return BatchView(nodes, types, subj, obj)
    found: set[Node] = set()
    types_: dict[Node, set[Node]] = {}
    subj_: dict[Node, set[Node]] = {}
    obj_: dict[Node, set[Node]] = {}
    for s, p, o in batch:
        found.add(s)
        if p == _RDF_TYPE:
            types_.setdefault(s, set()).add(o)
        if predicates:
            subj_.setdefault(s, set()).add(p)
        if literals or type(o) is not Literal:
            found.add(o)
            if predicates:
                obj_.setdefault(o, set()).add(p)
    return BatchView(found, {k: frozenset(v) for k, v in types_.items()},
                     {k: frozenset(v) for k, v in subj_.items()}, {k: frozenset(v) for k, v in obj_.items()})


def _memory_indexes(batch: Graph):
    """rdflib Memory's (spo, osp) dicts when they hold exactly this graph's triples, else None."""
    store = batch.store
    if type(store) is not Memory or type(batch) is not Graph:
        return None
    spo = getattr(store, "_Memory__spo", None)
    osp = getattr(store, "_Memory__osp", None)
    if not isinstance(spo, dict) or not isinstance(osp, dict):
        return None
    # the store may be shared with other graphs; equal counts mean every triple is ours
    if store.__len__() != len(batch):
        return None
    return spo, osp
