"""SPARQL 1.1 Update over the ledger: what an update would change, as facts to assert and retract.

The ledger never deletes and is not a triple store, so an update is *planned* on a copy: the
asserted triples visible at ``as_of`` (no rule closure — updates change what was asserted; derived
triples follow from it) go into a scratch pyoxigraph store, the update runs there, and the quads
that appeared or disappeared become an :class:`UpdateDelta`.  The caller writes the delta as one
ledger batch (asserts open from the write time, retractions close spans at it).  A triple in a named
graph is a fact with the ``graph`` qualifier, as TriG loads make them.

Blank nodes that already exist keep their stable identity; an update that mints new ones is
refused, since their names would differ between runs.  The cost is proportional to the snapshot.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.errors import HolokbError
from ..core.fact import Fact
from ..core.terms import IRI, Term
from ..core.time import AsOf
from .query import _blank, _syntax_error, _term_converter
from .results import _STABLE_BNODE
from .snapshot import snapshot_quads
from .nquads import NQuadsWriter

Quad = tuple[IRI, IRI, Term, IRI | None]
_DATASET_KW = re.compile(r"(?<![\w:?$.-])(USING|WITH)(?![\w:.-])", re.I)
_WHERE = re.compile(r"(?<![\w:?$.-])WHERE(?![\w:.-])", re.I)
_DELETE_END = re.compile(r"(?<![\w:?$.-])DELETE\s*$", re.I)


class UpdateDatasetConflict(HolokbError):
    """The protocol gave using-graph-uri / using-named-graph-uri and the update has USING or WITH."""


@dataclass(frozen=True, slots=True)
class UpdateDelta:
    """Facts an update adds and removes, in canonical order (each once)."""

    added: tuple[Fact, ...]
    removed: tuple[Fact, ...]


def with_protocol_dataset(text: str, using: tuple[str, ...], using_named: tuple[str, ...]) -> str:
    """``text`` with ``USING``/``USING NAMED`` clauses added before the WHERE of each DELETE/INSERT
    operation (SPARQL 1.1 Protocol §2.2.3); a conflict with USING/WITH in the text raises."""
    if not using and not using_named:
        return text
    plain = _blank(text)
    if _DATASET_KW.search(plain):
        raise UpdateDatasetConflict("the request gives using-graph-uri/using-named-graph-uri and the update has "
                                    "USING or WITH; give the dataset one way (SPARQL 1.1 Protocol §2.2.3)")
    clause = " ".join([f"USING <{g}>" for g in using] + [f"USING NAMED <{g}>" for g in using_named]) + " "
    cuts, depth = [], 0
    for i, ch in enumerate(plain):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and ch in "wW" and _WHERE.match(plain, i) and not _DELETE_END.search(plain[:i]):
            cuts.append(i)  # DELETE WHERE takes no USING
    for i in reversed(cuts):
        text = text[:i] + clause + text[i:]
    return text


def _fact(q: Any, conv: Any) -> Fact:
    terms = [conv(t) for t in (q.subject, q.predicate, q.object)]
    g = q.graph_name
    if type(g).__name__ != "DefaultGraph":
        terms.append(conv(g))
    if any(t.kind == "bnode" and not _STABLE_BNODE.match(t.value) for t in terms):
        raise _NewBlankNode()
    s, p, o, *graph = (t.to_holokb() for t in terms)
    return Fact(s, p, o, (("graph", graph[0]),) if graph else ())  # type: ignore[arg-type]


class _NewBlankNode(Exception):
    pass


def update_delta(ledger: Any, text: str, *, as_of: AsOf, base_iri: str | None = None,
                 using: tuple[str, ...] = (), using_named: tuple[str, ...] = (), name: str = "<update>") -> UpdateDelta:
    """Plan ``text`` against the asserted triples visible at ``as_of`` (module doc)."""
    import pyoxigraph as ox

    text = with_protocol_dataset(text, using, using_named)
    quads, _, _ = snapshot_quads(ledger, as_of, None, None)
    store = ox.Store()
    store.bulk_extend(ox.parse(NQuadsWriter(deskolemise=True).encode(quads), format=ox.RdfFormat.N_QUADS,
                               rename_blank_nodes=False, lenient=True))
    before = set(store)
    try:
        store.update(text, base_iri=base_iri)
    except SyntaxError as e:
        raise _syntax_error(text, e, name) from None
    except (OSError, RuntimeError, ValueError) as e:
        raise HolokbError(f"{name}: the update failed: {e}") from None
    after = set(store)
    conv = _term_converter()
    try:
        added = sorted({_fact(q, conv) for q in after - before}, key=lambda f: f.id)
        removed = sorted({_fact(q, conv) for q in before - after}, key=lambda f: f.id)
    except _NewBlankNode:
        raise HolokbError(f"{name}: the update creates new blank nodes; use IRIs (blank node names would differ "
                          "between runs)") from None
    except HolokbError as e:
        raise HolokbError(f"{name}: the update produces a triple the ledger cannot hold: {e.message}") from None
    return UpdateDelta(tuple(added), tuple(removed))
