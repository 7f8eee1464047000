"""The W3C RDF 1.1 / RDF 1.2 semantics test manifests as data, and one check per entry.

An entry is (name, kind, regime, action file, result file or None for "inconsistent").  A positive
test passes when every triple of the result graph is in the closure of the action graph, blank
nodes of the result read as existential variables (some binding of all of them matches); a
negative test passes when that is not so.  "Inconsistent" results need a datatype map (D), which
these rules do not have: the runner reports them as out of scope.

Regimes: ``simple`` closes under no rules, ``RDF`` under the RDF part of rules/rdfs.hkr (the RDF
axioms and rdfD2), ``RDFS`` under all of it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rdflib import RDF as RDFNS, BNode, Graph, Literal as RLiteral, Namespace, URIRef
from rdflib.collection import Collection

from holokb.analysis import Atom, Const, Program, Query, Var, check_program
from holokb.core import IRI, Literal
from holokb.core.terms import XSD_STRING
from holokb.engine import closure
from holokb.rdf import parse_records
from triple_view import TRIPLE, triples_database

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

_FORMATS = {".nt": "N_TRIPLES", ".ttl": "TURTLE", ".rdf": "RDF_XML", ".nq": "N_QUADS", ".trig": "TRIG"}


@dataclass(frozen=True)
class Entry:
    """One manifest entry."""

    name: str
    positive: bool
    regime: str
    action: Path
    result: Path | None  # None: the result is "false" (the action graph is inconsistent)
    recognized: tuple[str, ...]


def entries(manifest: Path, seen: set[Path] | None = None) -> list[Entry]:
    """Entailment entries of a manifest and the manifests it includes (each once), in listed order."""
    seen = set() if seen is None else seen
    manifest = manifest.resolve()
    if manifest in seen:
        return []
    seen.add(manifest)
    g = Graph()
    g.parse(manifest, format="turtle", publicID=manifest.as_uri())
    out: list[Entry] = []
    for inc in g.objects(None, MF.include):
        for m in Collection(g, inc):
            out.extend(entries(Path(str(m).removeprefix("file://")), seen))
    for lst in g.objects(None, MF.entries):
        for e in Collection(g, lst):
            kinds = set(g.objects(e, RDFNS.type))
            if MF.PositiveEntailmentTest in kinds:
                positive = True
            elif MF.NegativeEntailmentTest in kinds:
                positive = False
            else:
                continue
            res = g.value(e, MF.result)
            result = None if isinstance(res, RLiteral) and res.toPython() is False else Path(str(res).removeprefix("file://"))
            rec = g.value(e, MF.recognizedDatatypes)
            out.append(Entry(str(g.value(e, MF.name)), positive, str(g.value(e, MF.entailmentRegime)),
                             Path(str(g.value(e, MF.action)).removeprefix("file://")), result,
                             tuple(str(x) for x in Collection(g, rec)) if rec is not None else ()))
    return out


def _fmt(p: Path) -> str:
    return _FORMATS[p.suffix]


def action_triples(p: Path) -> list:
    """The action graph as holokb triples (blank nodes skolemised; ill-typed literals raise)."""
    recs = parse_records(p.read_bytes(), _fmt(p), at=0, name=p.as_uri(), base_iri=p.as_uri())
    return [(r.fact.subject, r.fact.predicate, r.fact.object) for r in recs]


def _term(n, bnodes: dict):
    if isinstance(n, BNode):
        return bnodes.setdefault(n, Var(f"b{len(bnodes)}"))
    if isinstance(n, URIRef):
        return Const(IRI(str(n)))
    assert isinstance(n, RLiteral)
    if n.language:
        return Const(Literal(str(n), lang=n.language))
    return Const(Literal(str(n), str(n.datatype) if n.datatype else XSD_STRING))


def result_query(p: Path) -> Query:
    """The result graph as one query: a ``hk:triple`` atom per triple, its blank nodes as variables."""
    g = Graph()
    g.parse(p, format={"N_TRIPLES": "nt", "TURTLE": "turtle", "RDF_XML": "xml"}[_fmt(p)], publicID=p.as_uri())
    bnodes: dict = {}
    body = tuple(Atom(TRIPLE, (_term(s, bnodes), _term(pr, bnodes), _term(o, bnodes)))
                 for s, pr, o in sorted(g, key=lambda t: tuple(map(str, t))))
    return Query(body, tuple(bnodes.values()))


def regime_program(rdfs: Program, regime: str) -> Program:
    """The rules a regime closes under: none (simple), RDF axioms + rdfD2 (RDF), everything (RDFS)."""
    if regime == "RDFS":
        return rdfs
    if regime == "simple":
        return check_program(())
    cmp = tuple(Atom(TRIPLE, (Const(IRI(f"{RDF_NS}_{n}")), Const(IRI(RDF_NS + "type")), Const(IRI(RDF_NS + "Property"))))
                for n in range(1, 10))
    rdf_facts = tuple(a for a in rdfs.facts if _is_rdf_axiom(a)) + cmp
    rules = tuple(r for r in rdfs.rules if r.name == "rdfD2")
    return check_program(rules, vocabulary=rdfs.vocabulary, prefixes=rdfs.prefixes, facts=rdf_facts)


def _is_rdf_axiom(a: Atom) -> bool:
    s, p, o = (x.term.value if isinstance(x, Const) and isinstance(x.term, IRI) else "" for x in a.args)
    return s.startswith(RDF_NS) and p == RDF_NS + "type" and o in (RDF_NS + "Property", RDF_NS + "List")


def entailed(entry: Entry, rdfs: Program) -> bool:
    """Whether the closure of the action graph contains the result graph (blank nodes existential)."""
    assert entry.result is not None
    program = regime_program(rdfs, entry.regime)
    model = closure(program, triples_database(action_triples(entry.action), program))
    q = result_query(entry.result)
    if not q.body:
        return True
    return len(model.query(q)) > 0
