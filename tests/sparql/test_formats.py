"""Result serialisation: W3C formats read back by an independent parser, byte determinism."""
from __future__ import annotations

import csv
import io
import json

import pyoxigraph as ox
import pytest

from holokb.core import AsOf, HolokbError
from holokb.sparql import SnapshotCache, run_query
from holokb.sparql.results import RDFTerm

from _sparql_kb import EX

SEL = (f"PREFIX ex: <{EX}> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
       "SELECT ?s ?label ?age WHERE { ?s rdfs:label ?label OPTIONAL { ?s ex:age ?age } }")


def _ox_to_term(t):
    if t is None:
        return None
    if isinstance(t, ox.NamedNode):
        return RDFTerm.iri(t.value)
    if isinstance(t, ox.BlankNode):
        return RDFTerm.bnode(t.value)
    return RDFTerm.literal(t.value, t.datatype.value, t.language)


@pytest.fixture()
def result(kb, cache):
    return run_query(kb, SEL, as_of=AsOf.latest(), cache=cache)


@pytest.mark.parametrize("fmt,oxfmt", [("json", "JSON"), ("xml", "XML"), ("tsv", "TSV")])
def test_select_formats_read_back_to_the_same_rows(result, fmt, oxfmt):
    text = result.serialize(fmt)
    parsed = ox.parse_query_results(text.encode("utf-8"), format=getattr(ox.QueryResultsFormat, oxfmt))
    assert [v.value for v in parsed.variables] == list(result.variables)
    rows = [tuple(_ox_to_term(sol[v]) for v in parsed.variables) for sol in parsed]
    assert rows == list(result.rows)
    kinds = {t.kind for r in rows for t in r if t is not None}
    assert kinds == {"iri", "bnode", "literal"}  # the fixture exercises every kind, and an unbound


def test_json_shape_follows_the_recommendation(result):
    doc = json.loads(result.serialize("json"))
    assert doc["head"]["vars"] == ["s", "label", "age"]
    alice = [b for b in doc["results"]["bindings"] if b["s"]["value"] == EX + "alice"][0]
    assert alice["age"] == {"type": "literal", "value": "41", "datatype": "http://www.w3.org/2001/XMLSchema#integer"}
    assert alice["label"] == {"type": "literal", "value": "Alice"}
    bob = [b for b in doc["results"]["bindings"] if b["s"]["value"] == EX + "bob"][0]
    assert bob["label"] == {"type": "literal", "value": "Bob", "xml:lang": "en"} and "age" not in bob


def test_csv_writes_values_only_with_crlf(result):
    text = result.serialize("csv")
    assert text.startswith("s,label,age\r\n") and text.endswith("\r\n")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    by_s = {r[0]: r for r in rows[1:]}
    assert by_s[EX + "alice"] == [EX + "alice", "Alice", "41"]
    assert by_s[EX + "bob"] == [EX + "bob", "Bob", ""]
    assert any(k.startswith("_:b") for k in by_s)


def test_ask_in_every_format(kb, cache):
    r = run_query(kb, "ASK { ?s ?p ?o }", as_of=AsOf.latest(), cache=cache)
    assert json.loads(r.serialize("json")) == {"head": {}, "boolean": True}
    parsed = ox.parse_query_results(r.serialize("xml").encode(), format=ox.QueryResultsFormat.XML)
    assert bool(parsed) is True
    assert r.serialize("csv") == "true\r\n" and r.serialize("tsv") == "true\n" and r.serialize("table") == "true\n"


def test_construct_turtle_and_ntriples_describe_the_same_graph(kb, cache):
    r = run_query(kb, "CONSTRUCT WHERE { ?s ?p ?o }", as_of=AsOf.latest(), cache=cache)
    ttl = set(ox.parse(r.serialize("turtle").encode(), format=ox.RdfFormat.TURTLE))
    nt = set(ox.parse(r.serialize("ntriples").encode(), format=ox.RdfFormat.N_TRIPLES))
    assert len(ttl) == len(r.triples) == len(nt) > 5
    assert {(q.subject, q.predicate, q.object) for q in ttl} == {(q.subject, q.predicate, q.object) for q in nt}


def test_table_has_a_header_and_a_row_count(result):
    lines = result.serialize("table").splitlines()
    assert lines[0].split() == ["?s", "|", "?label", "|", "?age"]
    assert lines[-1] == "3 rows"


def test_output_is_byte_identical_between_runs_and_processes(kb, tmp_path):
    outs = set()
    for _ in range(2):
        r = run_query(kb, SEL, as_of=AsOf.latest(), cache=SnapshotCache(disk=False))
        outs.add(tuple(r.serialize(f) for f in ("json", "xml", "csv", "tsv", "table")))
    assert len(outs) == 1


def test_a_format_that_does_not_fit_the_form_is_an_error(result):
    with pytest.raises(HolokbError, match="turtle"):
        result.serialize("turtle")
