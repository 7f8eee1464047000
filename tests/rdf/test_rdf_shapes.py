"""shapes/holokb.ttl validates what ledger_trig writes, and catches broken annotations."""
from __future__ import annotations

import pytest
import rdflib
from pyshacl import validate

from holokb.rdf import ledger_trig, read_records
from holokb.resources import data_dir

from rdf_samples import sample_records

HK = "https://w3id.org/holokb/"
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")


@pytest.fixture(scope="module")
def shapes() -> rdflib.Graph:
    g = rdflib.Graph()
    g.parse(data_dir("shapes") / "holokb.ttl", format="turtle")
    return g


def _default_graph(trig: str) -> rdflib.Graph:
    ds = rdflib.Dataset()
    ds.parse(data=trig, format="trig")
    g = rdflib.Graph()
    for s, p, o in ds.graph(rdflib.graph.DATASET_DEFAULT_GRAPH_ID):
        g.add((s, p, o))
    return g


def _violations(data: rdflib.Graph, shapes: rdflib.Graph) -> set[tuple[str, str]]:
    conforms, report, _ = validate(data, shacl_graph=shapes)
    found = {(str(report.value(r, SH.focusNode)), str(report.value(r, SH.resultPath)))
             for r in report.subjects(rdflib.RDF.type, SH.ValidationResult)}
    assert conforms == (not found)
    return found


def test_full_export_conforms(shapes):
    recs = sample_records() + read_records(data_dir("kb") / "people.trig", at=1_767_225_600_000)
    assert _violations(_default_graph(ledger_trig(recs)), shapes) == set()


def test_the_shapes_have_targets_for_every_node_kind(shapes):
    targets = {str(o) for o in shapes.objects(None, SH.targetClass)}
    assert targets == {HK + "Fact", HK + "Span", HK + "Evidence", HK + "Qualifier"}


@pytest.mark.parametrize(
    "edit,path",
    [
        (lambda g, f, s, e: g.remove((f, rdflib.URIRef(HK + "subject"), None)), "subject"),
        (lambda g, f, s, e: g.add((f, rdflib.URIRef(HK + "predicate"), rdflib.URIRef("http://ex.org/other"))),
         "predicate"),
        (lambda g, f, s, e: g.set((e, rdflib.URIRef(HK + "confidence"), rdflib.Literal(1.5))), "confidence"),
        (lambda g, f, s, e: g.add((s, rdflib.URIRef(HK + "systemFrom"), rdflib.Literal(5, datatype=rdflib.XSD.long))),
         "systemFrom"),
        (lambda g, f, s, e: g.set((s, rdflib.URIRef(HK + "validTo"), rdflib.Literal("soon"))), "validTo"),
        (lambda g, f, s, e: g.set((e, rdflib.URIRef(HK + "charStart"), rdflib.Literal(99))), "charStart"),
        (lambda g, f, s, e: g.set((f, rdflib.URIRef(HK + "polarity"), rdflib.URIRef(HK + "maybe"))), "polarity"),
    ],
)
def test_broken_annotation_is_reported(shapes, edit, path):
    g = _default_graph(ledger_trig(sample_records()[:1]))
    f = next(g.subjects(rdflib.RDF.type, rdflib.URIRef(HK + "Fact")))
    s = next(g.subjects(rdflib.RDF.type, rdflib.URIRef(HK + "Span")))
    e = sorted(g.subjects(rdflib.RDF.type, rdflib.URIRef(HK + "Evidence")))[0]
    edit(g, f, s, e)
    found = _violations(g, shapes)
    # nested sh:node results (focus = the bad value) come without a path
    assert any(p == HK + path for _, p in found)
    assert all(p in (HK + path, "None") for _, p in found)
