"""Where a triple was written: a TriG/Turtle parser with positions, for diagnostics only.

pyoxigraph parses every file and reports no position for the quads it yields.  When an
annotation is wrong (``hk:documnet``, a bad ``hk:confidence``), the diagnostic must point at the
triple that says it, not at the first text that happens to contain a name (a comment, or
``example.org`` inside another IRI).  :class:`TripleLocator` re-reads the file with the lark
grammar in ``grammar/trig.lark`` (TriG 1.1, a superset of Turtle) and answers the line and
column of a triple's subject, predicate or object term as written.  N-Triples and N-Quads are
read line by line with pyoxigraph.  The locator runs only when there is an error to report.

>>> loc = TripleLocator.of(b'@prefix ex: <http://e/> .\\n# ex:s ex:p 1\\nex:s ex:p 1 .', "TURTLE")
>>> loc.find("http://e/s", "http://e/p", term="predicate")
(3, 6)
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from urllib.parse import urljoin

_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_RDF_FIRST = "http://www.w3.org/1999/02/22-rdf-syntax-ns#first"
_RDF_REST = "http://www.w3.org/1999/02/22-rdf-syntax-ns#rest"

Position = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Written:
    """One triple as written: IRIs of its terms (None for blank nodes and literals) and where each term starts."""

    subject: str | None
    predicate: str
    object: str | None
    graph: str | None
    at: tuple[Position, Position, Position]


@functools.lru_cache(maxsize=1)
def _parser():
    from lark import Lark

    from ..resources import data_dir

    return Lark((data_dir("grammar") / "trig.lark").read_text(encoding="utf-8"), parser="lalr",
                maybe_placeholders=False)


class TripleLocator:
    """The triples of one file with their positions (see the module doc)."""

    def __init__(self, triples: list[Written]):
        self.triples = triples

    @classmethod
    def of(cls, data: bytes, format: str, *, base_iri: str | None = None) -> "TripleLocator":
        """Parse ``data``; a file this parser cannot read yields a locator that finds nothing."""
        text = data.decode("utf-8", "replace")
        if format in ("N_TRIPLES", "N_QUADS"):
            return cls(_lines(text, format))
        if format not in ("TURTLE", "TRIG"):
            return cls([])
        try:
            tree = _parser().parse(text)
        except Exception:  # lark's errors: the file parsed with pyoxigraph, so this is a grammar gap
            return cls([])
        walker = _Walk(base_iri)
        walker.document(tree)
        return cls(walker.out)

    def find(self, subject: str, predicate: str | None = None, obj: str | None = None, *,
             term: str = "subject") -> Position | None:
        """(line, column) of ``term`` ("subject", "predicate", "object") of the first triple written with
        these IRIs (``predicate`` / ``obj`` None: any), or None."""
        k = ("subject", "predicate", "object").index(term)
        for t in self.triples:
            if t.subject == subject and predicate in (None, t.predicate) and obj in (None, t.object):
                return t.at[k]
        return None

    def find_graph(self, graph: str) -> Position | None:
        """(line, column) of the first triple written inside named graph ``graph``."""
        for t in self.triples:
            if t.graph == graph:
                return t.at[0]
        return None

    def find_iri(self, iri: str) -> Position | None:
        """(line, column) of the first term written as ``iri`` in any position."""
        best: Position | None = None
        for t in self.triples:
            for v, pos in zip((t.subject, t.predicate, t.object), t.at):
                if v == iri and (best is None or pos < best):
                    best = pos
            if t.graph == iri and (best is None or t.at[0] < best):
                best = t.at[0]
        return best


def _lines(text: str, format: str) -> list[Written]:
    import pyoxigraph as ox  # optional heavy dependency (holokb.rdf.parse imports it the same way)

    out: list[Written] = []
    fmt = getattr(ox.RdfFormat, format)
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            quads = list(ox.parse(line.encode("utf-8"), format=fmt))
        except (SyntaxError, ValueError):
            continue
        col = len(line) - len(line.lstrip()) + 1
        for q in quads:
            s = q.subject.value if isinstance(q.subject, ox.NamedNode) else None
            o = q.object.value if isinstance(q.object, ox.NamedNode) else None
            g = q.graph_name.value if isinstance(q.graph_name, ox.NamedNode) else None
            out.append(Written(s, q.predicate.value, o, g, ((n, col), (n, col), (n, col))))
    return out


class _Walk:
    """Turns the lark tree into :class:`Written` triples (prefixes and base applied in order)."""

    def __init__(self, base: str | None):
        self.base = base or ""
        self.prefixes: dict[str, str] = {}
        self.out: list[Written] = []
        self.graph: str | None = None

    def document(self, tree) -> None:
        for node in tree.children:
            self.block(node)

    def block(self, node) -> None:
        kind = node.data
        if kind == "prefix":
            name, iri = [c for c in node.children if c.type in ("PNAME_NS", "IRIREF")]
            self.prefixes[name[:-1]] = self.resolve(iri)
        elif kind == "base":
            iri = [c for c in node.children if c.type == "IRIREF"][0]
            self.base = self.resolve(iri)
        elif kind == "named_graph":
            _, label, body = node.children
            self.in_graph(self.term(label)[0], body)
        elif kind == "wrapped_graph":
            self.in_graph(None, node)
        elif kind == "triples_or_graph":
            head, rest = node.children[0], node.children[1:]
            if rest and getattr(rest[0], "data", None) == "wrapped_graph":
                self.in_graph(self.term(head)[0], rest[0])
            else:
                self.pairs(self.term(head), rest[0])
        elif kind == "triples2":
            subj = self.term(node.children[0])
            if len(node.children) > 1:
                self.pairs(subj, node.children[1])

    def in_graph(self, name: str | None, wrapped) -> None:
        outer, self.graph = self.graph, name
        for child in wrapped.children:
            self.triples_block(child)
        self.graph = outer

    def triples_block(self, node) -> None:
        for child in node.children:
            if child.data == "triples":
                subj = self.term(child.children[0])
                if len(child.children) > 1:
                    self.pairs(subj, child.children[1])
            else:
                self.triples_block(child)

    def pairs(self, subj: tuple[str | None, Position], pol) -> None:
        children = pol.children
        for i in range(0, len(children), 2):
            verb = children[i]
            if getattr(verb, "type", None) == "A":
                pred = (_RDF_TYPE, (verb.line, verb.column))
            else:
                pred = self.term(verb)
            for obj_node in children[i + 1].children:
                obj = self.term(obj_node)
                self.out.append(Written(subj[0], pred[0] or "", obj[0], self.graph, (subj[1], pred[1], obj[1])))

    def term(self, node) -> tuple[str | None, Position]:
        """(IRI or None, where the term starts); nested blank-node lists and collections add their triples."""
        if not hasattr(node, "data"):  # a bare token (ANON inside blank_node is wrapped)
            return None, (node.line, node.column)
        pos = _first_token(node)
        kind = node.data
        if kind == "iri":
            tok = node.children[0]
            if tok.type == "IRIREF":
                return self.resolve(tok), pos
            prefix, _, local = tok.partition(":")
            return self.prefixes.get(prefix, "") + _unescape_local(local), pos
        if kind == "blank_node_property_list":
            self.pairs((None, pos), node.children[0])
            return None, pos
        if kind == "collection":
            for item in node.children:
                obj = self.term(item)
                self.out.append(Written(None, _RDF_FIRST, obj[0], self.graph, (pos, pos, obj[1])))
            return None, pos
        return None, pos

    def resolve(self, tok) -> str:
        raw = str(tok)[1:-1]
        return urljoin(self.base, raw) if self.base else raw


def _first_token(node) -> Position:
    while hasattr(node, "data"):
        node = node.children[0]
    return node.line, node.column


def _unescape_local(local: str) -> str:
    out, i = [], 0
    while i < len(local):
        if local[i] == "\\" and i + 1 < len(local):
            out.append(local[i + 1])
            i += 2
        else:
            out.append(local[i])
            i += 1
    return "".join(out)


def locate_annotation(paths, annotations: dict[str, str]) -> tuple[str, Position] | None:
    """(file, (line, column)) of the annotation triple ``?node <first key> "value"`` in the first
    of ``paths`` holding a node (an IRI) with every ``predicate "value"`` pair of ``annotations``
    (e.g. an evidence node's hk:document and hk:chunk): the triple a ledger check refused, found
    by the parser rather than by searching the text."""
    from ..core.terms import IRI, Literal
    from .parse import parse_quads, read_source

    first = next(iter(annotations))
    for path in paths:
        src = read_source(path)
        found: dict[str, set[str]] = {}
        for s, p, o, _ in parse_quads(src):
            if isinstance(s, IRI) and isinstance(o, Literal) and annotations.get(p.value) == o.lexical:
                found.setdefault(s.value, set()).add(p.value)
        for node in sorted(n for n, props in found.items() if props == set(annotations)):
            pos = TripleLocator.of(src.data, src.format, base_iri=src.base_iri).find(node, first, term="predicate")
            if pos is not None:
                return str(path), pos
    return None
