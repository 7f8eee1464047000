"""Reading shapes files: Turtle parsing with located errors, and SHACL well-formedness checks.

Every problem is collected as a :class:`Diagnostic` (code ``HK-SHACL-shape``, citing the W3C
SHACL clause it breaks) and raised once as :class:`MalformedShapesError`.  rdflib does not
keep source positions, so a shape's line is the first line of its file that spells its IRI
(blank-node shapes borrow the line of the shape that refers to them).
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rdflib import XSD, BNode, Graph, Literal, URIRef
from rdflib.term import Node

from ..core.errors import DataSyntaxError, Diagnostic, DiagnosticError, Location
from ..core.inputs import read_text
from .vocab import RDF, SH, TARGET_PREDICATES, spec_link

SHAPE_CODE = "HK-SHACL-shape"


class MalformedShapesError(DiagnosticError):
    """A shapes graph is not well-formed SHACL; ``diagnostics`` cite the W3C clause."""


@dataclass(frozen=True, slots=True)
class SourceText:
    """One parsed shapes file: its name, lines, and the prefixes it bound."""

    file: str
    lines: tuple[str, ...]
    prefixes: tuple[tuple[str, str], ...]


def parse_files(paths: Sequence[Path]) -> tuple[Graph, tuple[SourceText, ...]]:
    """Parse Turtle shapes files into one graph; all syntax errors are raised together."""
    graph = Graph()
    texts: list[SourceText] = []
    problems: list[Diagnostic] = []
    for path in paths:
        path = Path(path)
        text = read_text(path, what="shapes file")
        one = Graph()
        try:
            one.parse(data=text, format="turtle", publicID=path.resolve().as_uri())
        except Exception as exc:  # rdflib raises BadSyntax and plain Exceptions alike
            problems.append(_syntax_diagnostic(str(path), text, exc))
            continue
        for triple in one:
            graph.add(triple)
        for prefix, ns in one.namespaces():
            graph.bind(prefix, ns, override=False)
        texts.append(SourceText(str(path), tuple(text.splitlines()), tuple((p, str(n)) for p, n in one.namespaces())))
    if problems:
        raise DataSyntaxError(f"{len(problems)} shapes file(s) do not parse", tuple(problems))
    return graph, tuple(texts)


def _syntax_diagnostic(file: str, text: str, exc: Exception) -> Diagnostic:
    line0 = getattr(exc, "lines", None)
    pos = getattr(exc, "_i", None)
    why = getattr(exc, "_why", None) or str(exc).splitlines()[0]
    if isinstance(line0, int):
        line = line0 + 1
        column = 1
        if isinstance(pos, int):
            column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        source = text.splitlines()[line - 1] if line - 1 < len(text.splitlines()) else None
        return Diagnostic("HK-SHACL-syntax", f"Turtle syntax error: {why}", Location(file, line, max(1, column)),
                          source_line=source)
    return Diagnostic("HK-SHACL-syntax", f"Turtle syntax error: {why}", Location(file, 1, 1))


class Locator:
    """Finds the source line of a shapes-graph node (first spelling of its IRI)."""

    def __init__(self, graph: Graph, texts: Sequence[SourceText]):
        self._graph = graph
        self._texts = tuple(texts)

    def locate(self, node: Node, _seen: frozenset[Node] = frozenset()) -> Location | None:
        """Location of ``node``'s first mention, or of the nearest IRI that refers to it."""
        if isinstance(node, URIRef):
            for text in self._texts:
                found = _find_iri(text, str(node))
                if found is not None:
                    return found
            return None
        if node in _seen:
            return None
        for parent in sorted(self._graph.subjects(None, node), key=str):
            loc = self.locate(parent, _seen | {node})
            if loc is not None:
                return loc
        return None

    def source_line(self, loc: Location | None) -> str | None:
        """The text of the located line."""
        if loc is None:
            return None
        for text in self._texts:
            if text.file == loc.file and 0 < loc.line <= len(text.lines):
                return text.lines[loc.line - 1]
        return None


def _find_iri(text: SourceText, iri: str) -> Location | None:
    spellings = [f"<{iri}>"]
    for prefix, ns in text.prefixes:
        if iri.startswith(ns) and len(iri) > len(ns):
            spellings.append(f"{prefix}:{iri[len(ns):]}")
    alternatives = "|".join(re.escape(s) for s in spellings)
    anywhere = re.compile(r"(?<![\w:.-])(?:" + alternatives + r")(?![\w:-])")
    subject = re.compile(r"^\s*(?:" + alternatives + r")(?![\w:-])")
    # prefer the line where the IRI is a subject (its description), else its first mention
    for pattern in (subject, anywhere):
        for number, line in enumerate(text.lines, start=1):
            if line.lstrip().startswith("#"):
                continue
            m = pattern.search(line)
            if m:
                start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
                return Location(text.file, number, start + 1, number, m.end() + 1)
    return None


# -- well-formedness (SHACL §2, §4): value kinds and counts of the core parameters ------------

_INTEGER_PARAMS = {
    SH.minCount: "MinCountConstraintComponent", SH.maxCount: "MaxCountConstraintComponent",
    SH.minLength: "MinLengthConstraintComponent", SH.maxLength: "MaxLengthConstraintComponent",
    SH.qualifiedMinCount: "QualifiedValueShapeConstraintComponent",
    SH.qualifiedMaxCount: "QualifiedValueShapeConstraintComponent",
}
_IRI_PARAMS = {
    SH["class"]: "ClassConstraintComponent", SH.datatype: "DatatypeConstraintComponent",
    SH.equals: "EqualsConstraintComponent", SH.disjoint: "DisjointConstraintComponent",
    SH.lessThan: "LessThanConstraintComponent", SH.lessThanOrEquals: "LessThanOrEqualsConstraintComponent",
    SH.severity: "severity",
}
_SINGLE_PARAMS = {SH.datatype, SH.nodeKind, SH.minCount, SH.maxCount, SH.minLength, SH.maxLength,
                  SH.pattern, SH.flags, SH.closed, SH.deactivated, SH.severity,
                  SH.minInclusive, SH.maxInclusive, SH.minExclusive, SH.maxExclusive}
_LIST_PARAMS = {
    SH["in"]: "InConstraintComponent", SH.languageIn: "LanguageInConstraintComponent",
    SH["and"]: "AndConstraintComponent", SH["or"]: "OrConstraintComponent",
    SH.xone: "XoneConstraintComponent", SH.ignoredProperties: "ClosedConstraintComponent",
}
_NODE_KINDS = frozenset({SH.BlankNode, SH.IRI, SH.Literal, SH.BlankNodeOrIRI, SH.BlankNodeOrLiteral,
                         SH.IRIOrLiteral})
_TARGET_ANCHORS = {SH.targetNode: "targetNode", SH.targetClass: "targetClass",
                   SH.targetSubjectsOf: "targetSubjectsOf", SH.targetObjectsOf: "targetObjectsOf"}


def shape_nodes(graph: Graph) -> list[Node]:
    """Every node that is a shape by SHACL §2.1's syntactic rules, in a stable order."""
    found: set[Node] = set()
    found.update(graph.subjects(RDF.type, SH.NodeShape))
    found.update(graph.subjects(RDF.type, SH.PropertyShape))
    for p in TARGET_PREDICATES:
        found.update(graph.subjects(p, None))
    found.update(graph.subjects(SH.path, None))
    for p in (SH.node, SH.property, SH["not"], SH.qualifiedValueShape):
        found.update(graph.objects(None, p))
    for p in (SH["and"], SH["or"], SH.xone):
        for head in graph.objects(None, p):
            found.update(list_items(graph, head) or ())
    return sorted(found, key=lambda n: (isinstance(n, BNode), str(n)))


def list_items(graph: Graph, head: Node) -> list[Node] | None:
    """Members of a well-formed RDF list, or None when it is not one."""
    if head == RDF.nil:
        return []
    if not isinstance(head, BNode):
        return None
    items: list[Node] = []
    seen: set[Node] = set()
    node: Node = head
    while node != RDF.nil:
        if node in seen or not isinstance(node, BNode):
            return None
        seen.add(node)
        firsts = list(graph.objects(node, RDF.first))
        rests = list(graph.objects(node, RDF.rest))
        if len(firsts) != 1 or len(rests) != 1:
            return None
        items.append(firsts[0])
        node = rests[0]
    return items


def path_problem(graph: Graph, path: Node, depth: int = 0) -> str | None:
    """Why ``path`` is not a well-formed SHACL property path (§2.3.1), or None."""
    if depth > 64:
        return "property path nests too deeply (or is cyclic)"
    if isinstance(path, URIRef):
        return None
    if not isinstance(path, BNode):
        return f"a property path must be an IRI or a blank node, not the literal {path.n3()}"
    if (path, RDF.first, None) in graph:
        items = list_items(graph, path)
        if items is None or len(items) < 2:
            return "a sequence path must be a well-formed RDF list with at least two members"
        for item in items:
            problem = path_problem(graph, item, depth + 1)
            if problem:
                return problem
        return None
    kinds = [p for p in (SH.alternativePath, SH.inversePath, SH.zeroOrMorePath, SH.oneOrMorePath,
                         SH.zeroOrOnePath) if (path, p, None) in graph]
    if len(kinds) != 1:
        return "a blank-node path must have exactly one of sh:alternativePath, sh:inversePath, " \
               "sh:zeroOrMorePath, sh:oneOrMorePath, sh:zeroOrOnePath"
    values = list(graph.objects(path, kinds[0]))
    if len(values) != 1:
        return f"{kinds[0].n3(graph.namespace_manager)} must have exactly one value"
    if kinds[0] == SH.alternativePath:
        items = list_items(graph, values[0])
        if items is None or len(items) < 2:
            return "sh:alternativePath must be a well-formed RDF list with at least two members"
        for item in items:
            problem = path_problem(graph, item, depth + 1)
            if problem:
                return problem
        return None
    return path_problem(graph, values[0], depth + 1)


def check_well_formed(graph: Graph, locator: Locator) -> list[Diagnostic]:
    """Diagnostics for every ill-formed shape parameter (empty when the shapes are well-formed)."""
    out: list[Diagnostic] = []
    nm = graph.namespace_manager
    for shape in shape_nodes(graph):
        for message, anchor in _shape_problems(graph, shape):
            loc = locator.locate(shape)
            label = shape.n3(nm) if isinstance(shape, URIRef) else "a blank-node shape"
            out.append(Diagnostic(
                SHAPE_CODE, f"{label}: {message}", loc, source_line=locator.source_line(loc),
                notes=(f"W3C SHACL: {spec_link(anchor)}",),
            ))
    return out


def _shape_problems(graph: Graph, shape: Node) -> Iterator[tuple[str, str]]:
    nm = graph.namespace_manager
    paths = list(graph.objects(shape, SH.path))
    if len(paths) > 1:
        yield "a property shape has exactly one value for sh:path", "property-shapes"
    for path in paths:
        problem = path_problem(graph, path)
        if problem:
            yield problem, "property-paths"
    if paths and (shape, RDF.type, SH.NodeShape) in graph:
        yield "a sh:NodeShape cannot have sh:path", "node-shapes"
    for p in _SINGLE_PARAMS:
        if len(list(graph.objects(shape, p))) > 1:
            yield f"a shape has at most one value for {p.n3(nm)}", _anchor_for(p)
    for p, anchor in _INTEGER_PARAMS.items():
        for v in graph.objects(shape, p):
            if not (isinstance(v, Literal) and v.datatype == XSD.integer and isinstance(v.value, int)
                    and v.value >= 0):
                yield f"the value of {p.n3(nm)} must be a non-negative xsd:integer literal, got {v.n3(nm)}", anchor
    for p, anchor in _IRI_PARAMS.items():
        for v in graph.objects(shape, p):
            if not isinstance(v, URIRef):
                yield f"the value of {p.n3(nm)} must be an IRI, got {v.n3(nm)}", anchor
    for v in graph.objects(shape, SH.nodeKind):
        if v not in _NODE_KINDS:
            yield f"sh:nodeKind must be one of sh:BlankNode, sh:IRI, sh:Literal, sh:BlankNodeOrIRI, " \
                  f"sh:BlankNodeOrLiteral, sh:IRIOrLiteral; got {v.n3(nm)}", "NodeKindConstraintComponent"
    for p, anchor in _LIST_PARAMS.items():
        for v in graph.objects(shape, p):
            if list_items(graph, v) is None:
                yield f"the value of {p.n3(nm)} must be a well-formed SHACL list", anchor
    for p in (SH.pattern, SH.flags):
        for v in graph.objects(shape, p):
            if not isinstance(v, Literal) or v.datatype not in (None, XSD.string) or v.language:
                yield f"the value of {p.n3(nm)} must be an xsd:string literal", "PatternConstraintComponent"
            elif p == SH.pattern and (problem := _regex_problem(str(v))):
                yield f"the value of sh:pattern is not a valid regular expression: {problem}", \
                    "PatternConstraintComponent"
    for p in (SH.closed, SH.deactivated, SH.uniqueLang, SH.qualifiedValueShapesDisjoint):
        for v in graph.objects(shape, p):
            if not (isinstance(v, Literal) and v.datatype == XSD.boolean):
                yield f"the value of {p.n3(nm)} must be an xsd:boolean literal", _anchor_for(p)
    for p, anchor in _TARGET_ANCHORS.items():
        for v in graph.objects(shape, p):
            if p == SH.targetNode:
                if isinstance(v, BNode):
                    yield "the values of sh:targetNode are IRIs or literals", anchor
            elif not isinstance(v, URIRef):
                yield f"the values of {p.n3(nm)} are IRIs, got {v.n3(nm)}", anchor
    for p in (SH.node, SH.property, SH["not"], SH.qualifiedValueShape):
        for v in graph.objects(shape, p):
            if isinstance(v, Literal):
                yield f"the value of {p.n3(nm)} must be a shape, got the literal {v.n3(nm)}", _anchor_for(p)
    for v in graph.objects(shape, SH.property):
        if isinstance(v, (URIRef, BNode)) and not list(graph.objects(v, SH.path)):
            yield f"the value of sh:property must be a property shape with sh:path ({v.n3(nm)} has none)", \
                "PropertyConstraintComponent"


def _regex_problem(pattern: str) -> str | None:
    """Why ``pattern`` does not compile (pySHACL evaluates sh:pattern with Python's re), or None."""
    try:
        re.compile(pattern)
    except re.error as e:
        return f"{e.msg} at position {e.pos}" if e.pos is not None else e.msg
    except (RecursionError, OverflowError, ValueError) as e:
        return str(e) or type(e).__name__
    return None


def _anchor_for(p: URIRef) -> str:
    name = str(p)[len(str(SH)):]
    special = {"severity": "severity", "deactivated": "deactivated", "flags": "PatternConstraintComponent",
               "closed": "ClosedConstraintComponent", "node": "NodeConstraintComponent",
               "property": "PropertyConstraintComponent", "not": "NotConstraintComponent",
               "uniqueLang": "UniqueLangConstraintComponent",
               "qualifiedValueShape": "QualifiedValueShapeConstraintComponent",
               "qualifiedValueShapesDisjoint": "QualifiedValueShapeConstraintComponent"}
    if name in special:
        return special[name]
    return name[:1].upper() + name[1:] + "ConstraintComponent"
