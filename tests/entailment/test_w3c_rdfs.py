"""W3C RDF 1.1 (rdf-mt, az-tests) and RDF 1.2 (rdf-semantics) entailment tests against rules/rdfs.hkr.

Every entry of the manifests runs; entries outside what Datalog rules over terms can decide are
skipped or expected to fail, each listed below with its reason (the skip list of the h10 report).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from _corpora import corpora_root
from holokb.core import DataSyntaxError
from holokb.engine import closure
from holokb.reasoning import load_program
from triple_view import rule_file, triples_database
from w3c_entailment import Entry, action_triples, entailed, entries, regime_program

pytestmark = pytest.mark.conformance

_ROOT = corpora_root()
_MANIFESTS = ("w3c_rdf_tests/rdf/rdf12/rdf-semantics/manifest.ttl",  # includes rdf11/rdf-mt/manifest.ttl
              "w3c_rdf_tests/rdf/rdf11/rdf-mt/az-tests/manifest.ttl")

#: Entries whose verdict these rules get wrong, by design; strict xfail, so a fix is noticed.
KNOWN_LIMITS: dict[str, str] = {
    "datatypes-semantic-equivalence-between-datatypes": "D: 1 (xsd:integer) = 1.0 (xsd:decimal) needs the datatype map",
    "xmlsch-02-whitespace-facet-1": "D: the engine identifies literals by typed value, so ' 1'^^xsd:int and '1'^^xsd:int are one term",
    "float-zero": "design.md: -0.0 is stored as 0.0, so float -0 and +0 are one term",
    "double-zero": "design.md: -0.0 is stored as 0.0, so double -0 and +0 are one term",
    "float-round-same": "D: two xsd:float lexical forms that round to one value need float32 value spaces",
    "literal-type": "rdfD1 literal generalisation (a blank node per literal, typed by its datatype) is existential",
    "langstring": "rdfD1 for rdf:langString: typing a literal by its datatype needs a datatype-of built-in",
    "json-object-unordered": "D: rdf:JSON value equality",
    "json-round-same": "D: rdf:JSON value equality",
    "json-infinity": "D: rdf:JSON value equality",
    "reifies-range": "RDF 1.2 rdf:reifies axioms are not part of the RDF 1.1 axioms these rules encode",
    "resource-is-literal": "every IRI denotes a resource, also IRIs absent from the graph: not finitely materialisable",
}


def _entries() -> list[Entry]:
    if _ROOT is None:
        return []
    out: list[Entry] = []
    seen: set[Path] = set()
    for m in _MANIFESTS:
        out.extend(entries(_ROOT / m, seen))
    return out


ENTRIES = _entries()


@pytest.fixture(scope="module")
def rdfs_program():
    return load_program([rule_file("rdfs.hkr")])


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_w3c_entailment(entry: Entry, rdfs_program, corpora) -> None:
    if entry.regime not in ("simple", "RDF", "RDFS"):
        pytest.skip(f"regime {entry.regime}: OWL vocabulary, not RDFS")
    if not entry.action.exists() or (entry.result is not None and not entry.result.exists()):
        pytest.skip("the manifest names a file the suite does not contain")
    try:
        triples = action_triples(entry.action)
    except DataSyntaxError as e:
        pytest.skip(f"the loader rejects the action graph by design: {str(e).splitlines()[0]}")
    if entry.result is None:
        if entry.positive:
            pytest.skip("inconsistency from datatype clashes needs a datatype map (D)")
        program = regime_program(rdfs_program, entry.regime)
        assert closure(program, triples_database(triples, program)).violations == ()
        return
    if entry.name in KNOWN_LIMITS:
        if entailed(entry, rdfs_program) != entry.positive:
            pytest.xfail(KNOWN_LIMITS[entry.name])
        pytest.fail(f"{entry.name} now passes: remove it from KNOWN_LIMITS")
    try:
        got = entailed(entry, rdfs_program)
    except DataSyntaxError as e:
        pytest.skip(f"the loader rejects the result graph by design: {str(e).splitlines()[0]}")
    assert got == entry.positive, f"{entry.name}: expected {'entailed' if entry.positive else 'not entailed'}"


def test_known_limits_are_entries() -> None:
    if not ENTRIES:
        pytest.skip("external corpora not found")
    names = {e.name for e in ENTRIES}
    assert set(KNOWN_LIMITS) <= names
