"""Import: formats, skolemisation, graph qualifiers, provenance blocks, errors with positions."""
from __future__ import annotations

import gzip

import pytest

from holokb.core import MIN_TIME, DataSyntaxError, Evidence, Fact, Interval, IRI, Literal
from holokb.core.terms import SKOLEM_PREFIX, XSD_INTEGER
from holokb.rdf import GRAPH_QUALIFIER, detect_format, parse_records, read_records
from holokb.rdf.mapping import plain_fact
from holokb.rdf.parse import parse_text

EX = "http://ex.org/"
A, P, B = IRI(EX + "a"), IRI(EX + "p"), IRI(EX + "b")
AT = 1_767_225_600_000


def test_plain_triples_get_open_valid_time_and_load_time():
    recs = parse_records(f"<{EX}a> <{EX}p> <{EX}b> , 42 .", "TURTLE", at=AT)
    assert [r.fact for r in recs] == [Fact(A, P, B), Fact(A, P, Literal("42", XSD_INTEGER))]
    assert all(r.valid == Interval.always() and r.system == Interval(AT, None) for r in recs)
    assert all(r.evidence == () and r.span_id is None for r in recs)


def test_duplicate_triples_collapse_to_one_record():
    recs = parse_records(f"<{EX}a> <{EX}p> <{EX}b> .\n<{EX}a> <{EX}p> <{EX}b> .", "N_TRIPLES", at=AT)
    assert len(recs) == 1


def test_plain_fact_shortcut_equals_validated_fact():
    o = Literal("x", lang="EN")
    assert plain_fact(A, P, o) == Fact(A, P, o)
    assert plain_fact(A, P, o).id == Fact(A, P, o).id


@pytest.mark.parametrize(
    "name,fmt,gz",
    [("x.ttl", "TURTLE", False), ("x.trig.gz", "TRIG", True), ("a.b.nt", "N_TRIPLES", False),
     ("x.NQ", "N_QUADS", False), ("u.owl", "RDF_XML", False), ("u.rdf.gz", "RDF_XML", True)],
)
def test_format_detected_from_extension(name, fmt, gz):
    assert detect_format(name) == (fmt, gz)


def test_unknown_extension_is_a_data_syntax_error():
    with pytest.raises(DataSyntaxError) as e:
        detect_format("notes.txt")
    assert "'.txt'" in e.value.render()


def test_gzip_files_read_like_plain_ones(tmp_path):
    text = f"<{EX}a> <{EX}p> <{EX}b> <{EX}g> .\n"
    (tmp_path / "d.nq").write_text(text)
    (tmp_path / "d.nq.gz").write_bytes(gzip.compress(text.encode()))
    plain = read_records(tmp_path / "d.nq", at=AT, source_id="d")
    zipped = read_records(tmp_path / "d.nq.gz", at=AT, source_id="d")
    assert plain == zipped and len(plain) == 1


def test_corrupt_gzip_is_a_data_syntax_error(tmp_path):
    f = tmp_path / "bad.ttl.gz"
    f.write_bytes(gzip.compress(b"<a> <b> <c> .")[:-6])
    with pytest.raises(DataSyntaxError):
        read_records(f, at=AT)


def test_named_graph_becomes_a_graph_qualifier():
    recs = parse_records(f"<{EX}g> {{ <{EX}a> <{EX}p> <{EX}b> }} <{EX}a> <{EX}p> <{EX}b> .", "TRIG", at=AT)
    facts = {r.fact for r in recs}
    assert facts == {Fact(A, P, B), Fact(A, P, B, ((GRAPH_QUALIFIER, IRI(EX + "g")),))}


def test_blank_nodes_skolemise_deterministically_per_source():
    text = f"_:x <{EX}p> [ <{EX}p> _:x ] ."
    r1 = parse_records(text, "TURTLE", at=AT, name="one.ttl")
    r2 = parse_records(text, "TURTLE", at=AT, name="one.ttl")
    r3 = parse_records(text, "TURTLE", at=AT, name="two.ttl")
    assert r1 == r2
    assert all(r.fact.subject.value.startswith(SKOLEM_PREFIX) for r in r1)
    # _:x is the same node in both triples; the anonymous node is a different one
    by_obj = {r.fact.subject: r.fact.object for r in r1}
    assert len(by_obj) == 2
    assert {r.fact.subject for r in r1} != {r.fact.subject for r in r3}


def test_anonymous_nodes_get_stable_names_across_runs():
    text = f"[] <{EX}p> ( 1 2 ) ."
    runs = [sorted(r.fact.subject.value for r in parse_records(text, "TURTLE", at=AT)) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]


def test_syntax_error_has_file_line_and_column():
    with pytest.raises(DataSyntaxError) as e:
        parse_records(f"<{EX}a> <{EX}p> <{EX}b> .\n\n<{EX}a> <{EX}p> <{EX}b", "TURTLE", at=AT, name="k.ttl")
    err = e.value
    assert isinstance(err, SyntaxError)
    assert (err.filename, err.lineno) == ("k.ttl", 3)
    assert err.offset and err.offset > 1
    assert err.render().startswith("k.ttl:3:")


@pytest.mark.parametrize(
    "literal,line",
    [('"abc"^^<http://www.w3.org/2001/XMLSchema#integer>', 2),
     ('"INF"^^<http://www.w3.org/2001/XMLSchema#double>', 2),
     ('"NaN"^^<http://www.w3.org/2001/XMLSchema#float>', 2),
     ('"2026-13-45"^^<http://www.w3.org/2001/XMLSchema#date>', 2)],
)
def test_ill_typed_or_non_finite_literal_names_file_and_line(literal, line):
    text = f"<{EX}a> <{EX}p> 1 .\n<{EX}a> <{EX}q> {literal} .\n"
    with pytest.raises(DataSyntaxError) as e:
        parse_records(text, "TURTLE", at=AT, name="lit.ttl")
    assert (e.value.filename, e.value.lineno) == ("lit.ttl", line)


def test_triple_terms_are_rejected_with_a_line():
    text = f"<{EX}a> <{EX}p> <{EX}b> .\n<{EX}a> <{EX}p> <<( <{EX}a> <{EX}p> <{EX}b> )>> .\n"
    with pytest.raises(DataSyntaxError) as e:
        parse_records(text, "TURTLE", at=AT, name="t.ttl")
    assert e.value.lineno == 2 and "triple terms" in e.value.render()


def test_relative_iris_need_a_base():
    with pytest.raises(DataSyntaxError):
        parse_text("<a> <b> <c> .", "TURTLE")
    q = parse_text("<a> <b> <c> .", "TURTLE", base_iri=EX)
    assert q == [(IRI(EX + "a"), IRI(EX + "b"), IRI(EX + "c"), None)]


def test_rdf_xml_ontology_loads(corpora):
    recs = read_records(corpora / "lubm" / "univ-bench.owl", at=AT)
    owl_class = IRI("http://www.w3.org/2002/07/owl#Class")
    classes = {r.fact.subject for r in recs if r.fact.object == owl_class}
    assert IRI("http://www.lehigh.edu/~zhp2/2004/0401/univ-bench.owl#Professor") in classes
    assert len(classes) >= 40


def test_provenance_block_gives_valid_time_and_evidence():
    text = f"""
@prefix hk: <https://w3id.org/holokb/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<{EX}hr> {{ <{EX}a> <{EX}p> <{EX}b> . }}
<{EX}hr> hk:document "hr/2024.txt" ; hk:confidence 0.9 ; hk:charStart 3 ; hk:charEnd 10 ;
         hk:validFrom "2024-01-01T00:00:00Z"^^xsd:dateTime ; hk:validTo "2025-01-01"^^xsd:date .
<{EX}x> hk:document "not a graph, so an ordinary triple" .
"""
    recs = parse_records(text, "TRIG", at=AT)
    block = [r for r in recs if r.fact.subject == A]
    assert len(block) == 1
    r = block[0]
    assert r.fact == Fact(A, P, B)  # no graph qualifier for a block
    assert r.valid == Interval(1_704_067_200_000, 1_735_689_600_000)
    assert r.evidence == (Evidence("hr/2024.txt", char_start=3, char_end=10, confidence=0.9),)
    others = [r for r in recs if r.fact.subject == IRI(EX + "x")]
    assert len(others) == 1 and others[0].valid.start == MIN_TIME


def test_provenance_block_without_document_is_rejected():
    text = f"""@prefix hk: <https://w3id.org/holokb/> .
<{EX}hr> {{ <{EX}a> <{EX}p> <{EX}b> . }}
<{EX}hr> hk:confidence 0.5 .
"""
    with pytest.raises(DataSyntaxError) as e:
        parse_records(text, "TRIG", at=AT, name="b.trig")
    # the annotations that lack hk:document are written on line 3 (issue 8: located by the parser)
    assert (e.value.lineno, e.value.offset) == (3, 1) and "document" in e.value.render()


def test_provenance_block_with_bad_confidence_is_rejected():
    text = f"""@prefix hk: <https://w3id.org/holokb/> .
<{EX}hr> {{ <{EX}a> <{EX}p> <{EX}b> . }}
<{EX}hr> hk:document "d" ; hk:confidence 1.5 .
"""
    with pytest.raises(DataSyntaxError) as e:
        parse_records(text, "TRIG", at=AT)
    assert "confidence" in e.value.render() and (e.value.lineno, e.value.offset) == (3, 38)
