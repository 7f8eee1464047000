"""Issue 14: the columnar path serves gated loads (the gate reads a columnar batch view), registers
entities and aliases as the record path does, and parses without holding the write lock."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st
from rdflib import Graph

from holokb.core import AsOf, Fact, IRI, Literal, ShapeViolationError, parse_instant
from holokb.kb import KnowledgeBase
from holokb.core.terms import XSD_INTEGER
from holokb.ledger import Ledger
from holokb.ledger.plain import discard_staged, stage_plain, staged_rows
from holokb.rdf.batch import PlainBatch
from holokb.rdf.terms import to_rdflib
from holokb.resources import data_dir
from holokb.shapes.batchview import view

import pytest

AT = parse_instant("2026-01-01")
EX = "http://example.org/"
TTL = ("@prefix ex: <http://example.org/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
       "ex:alice a ex:Person ; ex:name \"Alice\" ; rdfs:label \"Alice Smith\", \"Ali\" .\n"
       "ex:lab a ex:Place ; rdfs:label \"The Lab\" .\nex:alice ex:locatedIn ex:lab .\n")


def test_gated_columnar_load_equals_the_record_path_with_entities(tmp_path):
    f = tmp_path / "a.ttl"
    f.write_text(TTL)
    g = tmp_path / "a.trig"  # a named graph forces the record path
    g.write_text(TTL + "ex:g { ex:x ex:p ex:y . }\n")
    with KnowledgeBase.open(tmp_path / "c.db", shapes=[data_dir("shapes")]) as fast, \
            KnowledgeBase.open(tmp_path / "r.db", shapes=[data_dir("shapes")]) as slow:
        r = fast.load([f], at=AT)
        assert r.shapes_run == ("ex:PersonShape",) and r.spans_new == 7
        slow.load([g], at=AT)
        for kb in (fast, slow):
            assert kb.ledger.entities_by_alias("ali") == [IRI(EX + "alice")]
            assert kb.ledger.entities_by_alias("the lab") == [IRI(EX + "lab")]
        assert fast.stats()["entities"] == slow.stats()["entities"] == 2
        fa = {v.fact for v in fast.facts(as_of=AsOf.latest())}
        sa = {v.fact for v in slow.facts(as_of=AsOf.latest())}
        assert fa == sa - {Fact(IRI(EX + "x"), IRI(EX + "p"), IRI(EX + "y"), (("graph", IRI(EX + "g")),))}


def test_a_refused_columnar_batch_changes_nothing_and_points_at_the_file(tmp_path):
    bad = tmp_path / "p.ttl"
    bad.write_text("@prefix ex: <http://example.org/> .\n\nex:carol a ex:Person .\n")
    with KnowledgeBase.open(tmp_path / "kb.db", shapes=[data_dir("shapes")]) as kb:
        with pytest.raises(ShapeViolationError) as e:
            kb.load([bad], at=AT)
        assert kb.stats()["facts"] == 0 and kb.stats()["terms"] == 0
        assert any(d.location and d.location.line == 3 for d in e.value.diagnostics)
        assert staged_rows(kb.ledger._db) == 0
        ok = tmp_path / "ok.ttl"
        ok.write_text(TTL)
        assert kb.load([ok], at=AT).spans_new == 7


def test_another_writer_commits_while_a_load_is_parsed(tmp_path):
    """The write lock is taken after parsing: a second writer is not kept waiting, and the load
    still stores exactly its triples (it notices the change and takes the record path)."""
    path = tmp_path / "kb.db"
    other = Ledger.open(path, timeout_s=0.5)
    with Ledger.open(path, timeout_s=0.5) as led:
        a, p = IRI(EX + "a"), IRI(EX + "p")

        def chunks():
            yield (a, p, Literal.of(1)), [0, 1, 2]
            with other.batch(at=AT) as b:  # would time out if the load held the lock
                b.assert_fact(Fact(IRI(EX + "z"), p, Literal.of(9)))
            yield (Literal.of(2),), [0, 1, 3]

        assert led.bulk_assert_plain(chunks(), at=AT) == 2
        got = sorted(v.fact.object.value for v in led.facts(AsOf.latest(), predicate=p))
        assert got == [1, 2, 9]
    other.close()


terms = st.sampled_from([IRI(EX + c) for c in "abcd"] + [IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")]
                        + [Literal("x"), Literal.of(3)])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(terms, terms, terms), max_size=25), st.booleans(), st.booleans(),
       st.sets(st.sampled_from([IRI(EX + c) for c in "abcd"])))
def test_columnar_batch_view_equals_the_rdflib_view(triples, literals, predicates, classes):
    triples = [(s, p, o) for s, p, o in triples if isinstance(s, IRI) and isinstance(p, IRI)]
    uniq = list(dict.fromkeys(t for tr in triples for t in tr))
    index = {t: i for i, t in enumerate(uniq)}
    batch = PlainBatch(uniq, [index[t] for tr in triples for t in tr])
    g = Graph()
    for s, p, o in triples:
        g.add((to_rdflib(s), to_rdflib(p), to_rdflib(o)))
    full = view(g, literals=literals, predicates=predicates)
    assert view(batch, literals=literals, predicates=predicates) == full
    # Asked for the classes shapes target, the columnar view keeps just the nodes with one of them.
    wanted = {to_rdflib(c) for c in classes}
    narrow = view(batch, literals=literals, predicates=predicates, classes=wanted)
    assert narrow.types == {n: ts for n, ts in full.types.items() if ts & wanted}
    assert (narrow.nodes, narrow.subject_predicates, narrow.object_predicates) == (
        full.nodes, full.subject_predicates, full.object_predicates)
    assert narrow.nodes & wanted == full.nodes & wanted  # the gate intersects nodes with by_node's keys
    assert len(batch) == len(g) and set(batch) == set(g)
    for s, p, o in triples[:3]:
        pat = (to_rdflib(s), None, None)
        assert set(batch.triples(pat)) == set(g.triples(pat))


ONE, ONE_AGAIN = Literal("1", XSD_INTEGER), Literal("01", XSD_INTEGER)  # two terms, one term id
chunk_terms = st.sampled_from([IRI(EX + c) for c in "abc"] + [ONE, ONE_AGAIN, Literal("x")])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([IRI(EX + c) for c in "abc"]), st.sampled_from([IRI(EX + "p")]),
                          chunk_terms), min_size=1, max_size=30), st.integers(1, 4))
def test_staged_distinct_rows_are_the_batch_rows(tmp_path_factory, triples, chunks):
    """The gate reuses the rows staging kept only when they are exactly the batch's distinct
    triples (no two term indices share a term id); otherwise it deduplicates by index itself."""
    uniq = list(dict.fromkeys(t for tr in triples for t in tr))
    index = {t: i for i, t in enumerate(uniq)}
    flat = [index[t] for tr in triples for t in tr]
    step = 3 * max(1, len(triples) // chunks)
    parts, shipped = [], 0
    for k in range(0, len(flat), step):
        part = flat[k:k + step]
        hi = max(shipped, max(part) + 1)
        parts.append((uniq[shipped:hi], part))
        shipped = hi
    with Ledger.open(tmp_path_factory.mktemp("s") / "kb.db") as led:
        staged = stage_plain(led, iter(parts), at=AT)
        discard_staged(led)
    whole = PlainBatch(uniq, flat)
    if ONE in uniq and ONE_AGAIN in uniq:
        assert staged.unique_rows is None
    else:
        assert staged.unique_rows is not None
        reused = PlainBatch(uniq, flat, distinct=staged.unique_rows)
        assert len(reused) == len(whole) and sorted(reused) == sorted(whole)


@pytest.mark.parametrize("values", ['"01"^^xsd:integer, "1"^^xsd:integer', '"hi"@EN, "hi"@en',
                                    '"2"^^xsd:integer, "1"^^xsd:integer', '"1"^^xsd:integer'])
def test_columnar_gate_decides_as_the_record_path(tmp_path, values):
    """Values that are one stored term id but two terms of the file (staging cannot reuse its
    rows then) and plainly different values: the columnar gate accepts or refuses as the record
    path's gate does, and a refused batch leaves the ledger as it was."""
    shapes = tmp_path / "s.ttl"
    shapes.write_text("@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix ex: <http://example.org/> .\n"
                      "ex:S a sh:NodeShape ; sh:targetClass ex:T ; sh:property [ sh:path ex:q ; sh:maxCount 1 ] .\n")
    body = ("@prefix ex: <http://example.org/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
            f"ex:b a ex:T ; ex:q {values} .\n")
    plain, named = tmp_path / "a.ttl", tmp_path / "a.trig"  # a named graph forces the record path
    plain.write_text(body)
    named.write_text(body + "ex:g { ex:x ex:p ex:y . }\n")
    outcome = []
    for f in (named, plain):
        with KnowledgeBase.open(tmp_path / f"{f.suffix[1:]}.db", shapes=[shapes]) as kb:
            try:
                kb.load([f], at=AT)
                outcome.append("accepted")
            except ShapeViolationError:
                assert kb.stats()["facts"] == kb.stats()["terms"] == 0
                assert staged_rows(kb.ledger._db) == 0
                outcome.append("refused")
    assert outcome[1] == outcome[0]
    if values.startswith('"2"'):
        assert outcome == ["refused", "refused"]


@pytest.mark.parametrize("typed", [False, True])
def test_ledger_context_types_during_equals_the_per_node_reads(tmp_path, typed):
    """types_during answers at once when the ledger holds no rdf:type term; the answer equals the
    per-node span reads it skips (and, with type facts stored, those reads give the types)."""
    from holokb.core.terms import RDF_TYPE
    from holokb.shapes.ledger_context import LedgerContext

    f = tmp_path / "a.ttl"
    f.write_text(TTL if typed else "@prefix ex: <http://example.org/> .\nex:alice ex:locatedIn ex:lab .\n")
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        kb.load([f], at=AT)
        ctx = LedgerContext(kb.ledger, AsOf.latest())
        nodes = [to_rdflib(IRI(EX + n)) for n in ("alice", "lab", "nobody")]
        got = ctx.types_during(nodes)
        per_node = {n: ctx._spans(IRI(str(n)), IRI(RDF_TYPE)) for n in nodes}
        assert got == {n: v for n, v in per_node.items() if v}
        assert set(got) == ({nodes[0], nodes[1]} if typed else set())


def test_an_ungated_columnar_load_registers_the_same_entities(tmp_path):
    """Without shapes the staged terms stay packed (no gate reads them); the entities are those
    the gated load registers."""
    f = tmp_path / "a.ttl"
    f.write_text(TTL)
    with KnowledgeBase.open(tmp_path / "u.db") as kb:
        assert kb.load([f], at=AT).spans_new == 7
        assert kb.ledger.entities_by_alias("ali") == [IRI(EX + "alice")]
        assert kb.ledger.entities_by_alias("the lab") == [IRI(EX + "lab")]
        assert kb.stats()["entities"] == 2


def test_plain_entities_read_packed_terms_as_terms():
    from holokb.kb import _plain_entities
    from holokb.ledger.pipeline import _pack

    label = IRI("http://www.w3.org/2000/01/rdf-schema#label")
    terms = [IRI(EX + "a"), label, Literal.of("Ann"), IRI(EX + "b"), IRI(EX + "p"), Literal("Bea", "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString", "en")]
    spo = [0, 1, 2, 3, 4, 0, 3, 1, 5, 0, 1, 5]
    want = _plain_entities(terms, spo)
    assert want == {IRI(EX + "a"): ("Ann", "Bea"), IRI(EX + "b"): ("Bea",)}
    assert _plain_entities([_pack(t) for t in terms], spo) == want
