"""Reading the W3C SHACL test suite's manifests as data (mf:include, sht:Validate entries)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rdflib import BNode, Graph, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.term import Node

from holokb.shapes.plans import read_path
from holokb.shapes.vocab import RDF, SH

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
SHT = Namespace("http://www.w3.org/ns/shacl-test#")

ExpectedResult = tuple[str, str, str, str]  # focus, path, component, severity (N-Triples text)


@dataclass(frozen=True)
class Case:
    """One sht:Validate entry: where its graphs are and the report it expects."""

    name: str
    data: Path
    shapes: Path
    conforms: bool
    results: frozenset[ExpectedResult]
    status: str


def _file(uri: Node) -> Path:
    return Path(str(uri).removeprefix("file://"))


def load_cases(manifest: Path) -> list[Case]:
    """Every Validate case reachable from ``manifest`` (includes followed), in file order."""
    g = Graph().parse(manifest, format="turtle", publicID=manifest.resolve().as_uri())
    cases: list[Case] = []
    for inc in sorted(g.objects(None, MF.include), key=str):
        cases.extend(load_cases(_file(inc)))
    for head in g.objects(None, MF.entries):
        for entry in Collection(g, head):
            if (entry, RDF.type, SHT.Validate) not in g:
                continue
            action = g.value(entry, MF.action)
            report = g.value(entry, MF.result)
            results = frozenset(result_key(g, r, g.value(r, SH.focusNode), g.value(r, SH.resultPath))
                                for r in g.objects(report, SH.result))
            cases.append(Case(
                name=str(entry).rsplit("/tests/core/", 1)[-1],
                data=_file(g.value(action, SHT.dataGraph)),
                shapes=_file(g.value(action, SHT.shapesGraph)),
                conforms=g.value(report, SH.conforms).toPython(),
                results=results,
                status=str(g.value(entry, MF.status)).rsplit("#", 1)[-1],
            ))
    return cases


def node_text(node: Node | None) -> str:
    """N-Triples text, with every blank node the same (the suite compares up to bnode renaming)."""
    if node is None:
        return ""
    return "_:b" if isinstance(node, BNode) else node.n3()


def result_key(g: Graph, r: Node, focus: Node | None, path: Node | None) -> ExpectedResult:
    """(focus, path, component, severity) of an expected result in the manifest graph."""
    if path is None:
        path_text = ""
    elif isinstance(path, URIRef):
        path_text = path.n3()
    else:
        path_text = read_path(g, path).render()
    return (node_text(focus), path_text, str(g.value(r, SH.sourceConstraintComponent)),
            str(g.value(r, SH.resultSeverity)))
