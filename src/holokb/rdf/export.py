"""Deterministic TriG: a small serializer of our own (rdflib's output order varies between runs).

Layout, fixed so that export → import → export is byte-identical:

* the prefixes of :data:`holokb.rdf.vocab.PREFIXES`, always the same, in that order;
* the default graph first, then named graphs sorted by IRI, each as ``<g> { … }``;
* inside a graph, subjects in :func:`~holokb.core.term_sort_key` order, ``rdf:type`` first and
  then predicates by IRI, objects by ``term_sort_key``; one ``subject`` block per subject with
  ``;`` and ``,`` lists;
* literals as ``"…"`` with N-Triples escapes, ``@lang`` or ``^^datatype`` (plain ``xsd:string``
  has none); integers and booleans with a canonical lexical form are written bare.

Plain exports de-skolemise: skolem IRIs (``core.terms.SKOLEM_PREFIX``) become ``_:b<hash>`` blank
nodes.  Full (reified) exports keep them as IRIs so that re-importing restores the same facts.
"""
from __future__ import annotations

import itertools
import re
from typing import IO, Iterable, Protocol

from ..core import AsOf, SpanRecord
from ..ledger.derived import StoredClosure
from ..core.terms import IRI, RDF_LANGSTRING, RDF_TYPE, SKOLEM_PREFIX, XSD_BOOLEAN, XSD_INTEGER, XSD_STRING, Literal, Term, term_sort_key
from . import vocab as V
from .mapping import reified_quads
from .parse import Quad

_LOCAL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_\-.]*[A-Za-z0-9_\-])?$")
_INT = re.compile(r"^-?(?:0|[1-9][0-9]*)$")
_ESC = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_NEEDS_ESC = re.compile(r'[\\"\x00-\x1f\x7f]')


class LedgerView(Protocol):
    """What the exporters need from a ledger (holokb.ledger.Ledger has these)."""

    def spans(self) -> Iterable[SpanRecord]: ...

    def visible(self, as_of: AsOf) -> Iterable[tuple[IRI, IRI, Term]]: ...


def _esc(ch: str) -> str:
    return _ESC.get(ch) or f"\\u{ord(ch):04X}"


class _Writer:
    def __init__(self, deskolemise: bool):
        self.deskolemise = deskolemise
        self.prefixes = sorted(V.PREFIXES, key=lambda kv: -len(kv[1]))  # longest namespace wins
        self.cache: dict[Term, str] = {}

    def iri(self, t: IRI) -> str:
        v = t.value
        if self.deskolemise and v.startswith(SKOLEM_PREFIX):
            return "_:" + V.skolem_label(t)
        for name, ns in self.prefixes:
            if v.startswith(ns) and _LOCAL.match(v[len(ns):]):
                return f"{name}:{v[len(ns):]}"
        return f"<{v}>"

    def term(self, t: Term) -> str:
        s = self.cache.get(t)
        if s is None:
            s = self.cache[t] = self.iri(t) if isinstance(t, IRI) else self.literal(t)
        return s

    def literal(self, t: Literal) -> str:
        lex = t.lexical
        if t.datatype == XSD_INTEGER and _INT.match(lex):
            return lex
        if t.datatype == XSD_BOOLEAN and lex in ("true", "false"):
            return lex
        body = '"' + (_NEEDS_ESC.sub(lambda m: _esc(m.group()), lex) if _NEEDS_ESC.search(lex) else lex) + '"'
        if t.datatype == RDF_LANGSTRING:
            return f"{body}@{t.lang}"
        if t.datatype == XSD_STRING:
            return body
        return f"{body}^^{self.iri(IRI(t.datatype))}"


def _pred_key(p: IRI) -> tuple:
    return (0 if p.value == RDF_TYPE else 1, p.value)


def serialize_trig(quads: Iterable[Quad], *, deskolemise: bool = False) -> str:
    """Write quads as deterministic TriG (see the module doc for the layout)."""
    graphs: dict[IRI | None, dict[IRI, dict[IRI, set[Term]]]] = {}
    for s, p, o, g in quads:
        graphs.setdefault(g, {}).setdefault(s, {}).setdefault(p, set()).add(o)
    w = _Writer(deskolemise)
    out = [f"@prefix {name}: <{ns}> .\n" for name, ns in V.PREFIXES]
    for g in sorted(graphs, key=lambda x: "" if x is None else "\x01" + x.value):
        out.append("\n")
        indent = ""
        if g is not None:
            out.append(f"{w.term(g)} {{\n")
            indent = "    "
        subjects = graphs[g]
        for s in sorted(subjects, key=term_sort_key):
            preds = subjects[s]
            lines = []
            for p in sorted(preds, key=_pred_key):
                objs = ", ".join(w.term(o) for o in sorted(preds[p], key=term_sort_key))
                lines.append(("a" if p.value == RDF_TYPE else w.iri(p)) + " " + objs)
            out.append(f"{indent}{w.term(s)} " + f" ;\n{indent}    ".join(lines) + " .\n")
        if g is not None:
            out.append("}\n")
    return "".join(out)


def ledger_trig(records: Iterable[SpanRecord], closures: Iterable[StoredClosure] = ()) -> str:
    """The full reified history of ``records`` plus the ``hk:current`` graph, and the stored
    ``closures`` as derived facts with their proofs (:mod:`holokb.rdf.closures`), as TriG."""
    from .closures import closure_quads

    return serialize_trig(itertools.chain(reified_quads(records), closure_quads(closures)))


def snapshot_trig(triples: Iterable[tuple[IRI, IRI, Term]]) -> str:
    """Plain triples (e.g. ``ledger.visible(as_of)``) as TriG in the default graph, de-skolemised."""
    return serialize_trig(((s, p, o, None) for s, p, o in triples), deskolemise=True)


def export_ledger(ledger: LedgerView, out: IO[str] | None = None) -> str:
    """Export every span of ``ledger`` and its stored closures (lossless); also writes to ``out`` when given."""
    stored = getattr(ledger, "stored_closures", None)
    text = ledger_trig(ledger.spans(), stored() if stored is not None else ())
    if out is not None:
        out.write(text)
    return text


def export_snapshot(ledger: LedgerView, as_of: AsOf, out: IO[str] | None = None) -> str:
    """Export the plain triples ``ledger`` shows at ``as_of``; also writes to ``out`` when given."""
    text = snapshot_trig(ledger.visible(as_of))
    if out is not None:
        out.write(text)
    return text
