"""Reads: deterministic orders, filters, budgets, vocabulary, aliases, documents and search."""
from __future__ import annotations

import random

import numpy as np
import pytest

from holokb.core import (
    MAX_TIME, RDF_TYPE, AsOf, Evidence, Fact, IRI, Interval, InvalidValueError, LedgerError, Limits, Literal,
    SpanRecord,
)
from holokb.ledger import Ledger

from ledger_support import fact, iri


def _sample_facts() -> list[tuple[Fact, Interval]]:
    out = []
    for s in ("a", "b"):
        for p in ("p", "q"):
            for o in ("x", "y", 3, 2.5, True, '"Text"'):
                out.append((fact(s, p, o), Interval(0, None)))
            out.append((fact(s, p, "x", qualifiers={"v": Literal("1")}), Interval(5, 90)))
            out.append((fact(s, p, "z"), Interval(1, 50)))
            out.append((fact(s, p, "z"), Interval(2, 60)))  # same fact, second span
    out.append((fact("x", "p", "a"), Interval(0, None)))
    out.append((fact("y", "q", "a"), Interval(0, None)))
    return out


def _load(path, items, *, bulk: bool):
    led = Ledger.open(path)
    if bulk:
        led.bulk_assert([SpanRecord(f, v) for f, v in items], at=100)
    else:
        with led.batch(at=100) as b:
            for f, v in items:
                b.assert_fact(f, valid=v)
    return led


def _snapshot(led: Ledger) -> list:
    asof = AsOf(200, 10)
    return [
        [(v.fact, v.span_id, v.valid) for v in led.facts(asof)],
        [(v.fact, v.span_id) for v in led.facts(asof, about=iri("a"))],
        [(v.fact, v.span_id) for v in led.neighbors(iri("a"), asof, direction="both")],
        list(led.visible(asof)),
        [(r.fact, r.span_id) for r in led.spans()],
        [(h.fact, h.span_id) for h in led.history((iri("a"), iri("p")))],
        led.open_values(iri("a"), iri("p"), asof),
    ]


@pytest.mark.parametrize("bulk", [False, True])
def test_order_is_independent_of_insertion_order(tmp_path, bulk):
    items = _sample_facts()
    shuffled = items[:]
    random.Random(7).shuffle(shuffled)
    with _load(tmp_path / "one.db", items, bulk=bulk) as one, _load(tmp_path / "two.db", shuffled, bulk=bulk) as two:
        first, second = _snapshot(one), _snapshot(two)
        assert first == second
        assert len(first[0]) > 20


def test_bulk_and_batch_write_the_same_content(tmp_path):
    items = _sample_facts()
    with _load(tmp_path / "a.db", items, bulk=False) as a, _load(tmp_path / "b.db", items, bulk=True) as b:
        assert list(a.spans()) == list(b.spans())
        assert a.stats() == b.stats()


def test_facts_sort_key(ledger):
    with ledger.batch(at=100) as b:
        b.assert_fact(fact("a", "q", "m"), valid=Interval(0, None))
        b.assert_fact(fact("a", "p", 7), valid=Interval(0, None))
        b.assert_fact(fact("a", "p", "m"), valid=Interval(1, None))
        b.assert_fact(fact("a", "p", "m"), valid=Interval(3, None))
    got = [(v.fact.predicate, v.fact.object, v.valid.start) for v in ledger.facts(AsOf(100, 5), about=iri("a"))]
    assert got == [(iri("p"), iri("m"), 3), (iri("p"), iri("m"), 1), (iri("p"), Literal.of(7), 0),
                   (iri("q"), iri("m"), 0)]


def test_filters(ledger):
    with ledger.batch(at=100) as b:
        for f, v in _sample_facts():
            b.assert_fact(f, valid=v)
    asof = AsOf(200, 10)
    assert {v.fact.predicate for v in ledger.facts(asof, predicate=iri("q"))} == {iri("q")}
    assert {(v.fact.subject, v.fact.object) for v in ledger.facts(asof, obj=iri("a"))} == {
        (iri("x"), iri("a")), (iri("y"), iri("a"))}
    assert ledger.facts(asof, about=iri("nobody")).items == ()
    quals = [v.fact for v in ledger.facts(asof, about=iri("a"), predicate=iri("p")) if v.fact.qualifiers]
    assert quals == [fact("a", "p", "x", qualifiers={"v": Literal("1")})]


def test_limits_truncate_and_say_which(ledger):
    with ledger.batch(at=100) as b:
        for i in range(10):
            b.assert_fact(fact("a", "p", i))
    page = ledger.facts(AsOf.latest(), about=iri("a"), limits=Limits(max_results=4))
    assert len(page) == 4 and page.truncated and page.limit_hit == "max_results"
    full = ledger.facts(AsOf.latest(), about=iri("a"), limits=Limits(max_results=10))
    assert len(full) == 10 and not full.truncated and full.limit_hit is None
    assert page.items == full.items[:4]
    edges = ledger.neighbors(iri("a"), AsOf.latest(), limits=Limits(max_results=None, max_edges=3))
    assert len(edges) == 3 and edges.limit_hit == "max_edges"


def test_neighbors(ledger):
    with ledger.batch(at=100) as b:
        b.assert_fact(fact("a", "knows", "b"))
        b.assert_fact(fact("a", "likes", "c"))
        b.assert_fact(fact("c", "knows", "a"))
        b.assert_fact(fact("d", "knows", "a", polarity="negate"))
    out = [(v.fact.predicate, v.fact.object) for v in ledger.neighbors(iri("a"), AsOf.latest())]
    assert out == [(iri("knows"), iri("b")), (iri("likes"), iri("c"))]
    inn = [v.fact.subject for v in ledger.neighbors(iri("a"), AsOf.latest(), direction="in")]
    assert inn == [iri("c")]  # the negated edge is not an edge
    both = [v.fact for v in ledger.neighbors(iri("a"), AsOf.latest(), direction="both", predicates=[iri("knows")])]
    assert both == [fact("a", "knows", "b"), fact("c", "knows", "a")]
    assert ledger.neighbors(iri("a"), AsOf(99, 0)).items == ()


def test_visible_and_encoded_visible_agree(ledger):
    with ledger.batch(at=100) as b:
        for f, v in _sample_facts():
            b.assert_fact(f, valid=v)
    asof = AsOf(150, 20)
    triples = list(ledger.visible(asof))
    enc = ledger.encoded_visible(asof)
    assert enc.s.dtype == np.int64 and len(enc) == len(enc.s) == len(enc.valid_to)
    decoded = {(ledger.term(s), ledger.term(p), ledger.term(o)) for s, p, o in zip(enc.s, enc.p, enc.o)}
    assert decoded == set(triples)
    assert len(triples) == len(set(triples))
    # the two overlapping spans of (s, p, z), for 2 subjects x 2 predicates, are two rows but one triple
    assert len(enc) == len(triples) + 4
    assert MAX_TIME in set(enc.valid_to.tolist()) and 50 in set(enc.valid_to.tolist())
    ids = ledger.term_ids([iri("a"), iri("nope"), Literal("text")])
    assert ids[0] is not None and ids[1] is None and ledger.term(ids[2]) == Literal("Text")


def test_types_of(ledger):
    t = IRI(RDF_TYPE)
    with ledger.batch(at=100) as b:
        b.assert_fact(Fact(iri("a"), t, iri("Person")))
        b.assert_fact(Fact(iri("a"), t, iri("Agent")))
        b.assert_fact(Fact(iri("b"), t, iri("Place")), valid=Interval(50, None))
    got = ledger.types_of([iri("a"), iri("b"), iri("c")], AsOf(100, 10))
    assert got == {iri("a"): frozenset({iri("Person"), iri("Agent")}), iri("b"): frozenset(), iri("c"): frozenset()}


def test_aliases_normalise(ledger):
    with ledger.batch(at=1) as b:
        b.add_entity(iri("acme"), aliases=["ACME  Corp", "Ａｃｍｅ"], kind="org")
        b.add_entity(iri("acme2"), aliases=["acme corp"])
    assert ledger.entities_by_alias("  acme\tcorp ") == [iri("acme"), iri("acme2")]
    assert ledger.entities_by_alias("ACME") == [iri("acme")]  # NFKC folds full-width letters
    assert ledger.entities_by_alias("Straße") == []
    with ledger.batch(at=2) as b:
        b.add_entity(iri("street"), aliases=["STRASSE"])
    assert ledger.entities_by_alias("Straße") == [iri("street")]  # casefold: ß == ss
    with pytest.raises(InvalidValueError):
        with ledger.batch(at=3) as b:
            b.add_entity(iri("x"), aliases=["   "])


def test_predicates(ledger):
    with ledger.batch(at=1) as b:
        b.declare_predicate(iri("loc"), functional=True, arg_types=(iri("Person"), iri("Place")))
        b.declare_predicate(iri("age"), arity=2)
    assert ledger.predicate(iri("loc")).functional is True
    assert ledger.predicate(iri("loc")).arg_types == (iri("Person"), iri("Place"))
    assert ledger.predicate(iri("nope")) is None
    assert [p.iri for p in ledger.predicates()] == [iri("age"), iri("loc")]
    with pytest.raises(InvalidValueError):
        with ledger.batch(at=2) as b:
            b.declare_predicate(iri("bad"), arity=2, arg_types=(iri("A"),))


def test_documents_chunks_and_search(ledger):
    text = "Ada Lovelace wrote the first program. Babbage built the engine. Ada and Babbage met."
    with ledger.batch(at=1) as b:
        b.add_document("doc1", text, chunks=[("c1", 0, 37), ("c2", 38, 63), ("c3", 64, len(text))])
        b.add_document("doc2", "Engines and more engines.", chunks=[("c1", 0, 25)])
    assert ledger.chunk_text("doc1", "c2") == "Babbage built the engine."
    assert ledger.chunk_text("doc1", "c9") is None
    hits = ledger.search_chunks("engine")
    assert [(h.document, h.chunk) for h in hits] == [("doc1", "c2")]
    hits = ledger.search_chunks("Ada Babbage", limit=2)
    # c3 has both words; c2 (4 tokens) beats c1 (6 tokens) on BM25 length normalisation
    assert [(d, c) for d, c, _ in hits] == [("doc1", "c3"), ("doc1", "c2")]
    assert hits[0].score >= hits[1].score
    assert ledger.search_chunks("'\"(*") == []
    with pytest.raises(LedgerError, match="outside document"):
        with ledger.batch(at=2) as b:
            b.add_document("doc3", "short", chunks=[("c1", 0, 99)])
    with pytest.raises(LedgerError, match="different text"):
        with ledger.batch(at=2) as b:
            b.add_document("doc1", "other text")


def test_evidence_must_lie_inside_stored_chunk(ledger):
    with ledger.batch(at=1) as b:
        b.add_document("d", "Alice lives in Paris.", chunks=[("c", 0, 11)])
        b.assert_fact(fact("alice", "in", "paris"), evidence=[Evidence("d", "c", 0, 11)])
        b.assert_fact(fact("alice", "in", "paris"), evidence=[Evidence("d", None, 15, 20)])
        b.assert_fact(fact("alice", "in", "paris"), evidence=[Evidence("unstored", "c", 0, 999)])
    for ev in (Evidence("d", "c", 5, 12), Evidence("d", None, 0, 99)):
        with pytest.raises(LedgerError, match="outside"):
            with ledger.batch(at=2) as b:
                b.assert_fact(fact("bob", "in", "rome"), evidence=[ev])
        with pytest.raises(LedgerError, match="outside"):
            ledger.bulk_assert([SpanRecord(fact("bob", "in", "rome"), evidence=(ev,))], at=2)
    assert ledger.facts(AsOf.latest(), about=iri("bob")).items == ()
    assert len(ledger.facts(AsOf.latest(), about=iri("alice"))[0].evidence) == 3


def test_close_and_reopen_round_trip(db_path):
    items = _sample_facts()
    with _load(db_path, items, bulk=False) as led:
        with led.batch(at=300) as b:
            b.retract(fact("a", "p", "x"))
            b.add_entity(iri("a"), aliases=["A"])
            b.add_document("d", "hello", chunks=[("c", 0, 5)])
        before = _snapshot(led), led.stats(), list(led.spans())
    with Ledger.open(db_path) as led:
        assert (_snapshot(led), led.stats(), list(led.spans())) == before
        assert led.entities_by_alias("a") == [iri("a")]
        assert [h.system for h in led.history(fact("a", "p", "x"))] == [Interval(100, 300)]


def test_stats(ledger):
    with ledger.batch(at=1) as b:
        b.assert_fact(fact("a", "p", "b"), evidence=[Evidence("d")])
        b.add_entity(iri("a"))
    assert ledger.stats() == {"facts": 1, "spans": 1, "evidence": 1, "entities": 1, "documents": 0,
                              "chunks": 0, "terms": 3}


def test_case_variant_literals_share_identity(ledger):
    with ledger.batch(at=1) as b:
        s1 = b.assert_fact(fact("a", "name", '"Ada"'))
        s2 = b.assert_fact(fact("a", "name", '"ADA"'))
    assert s1 == s2 and ledger.stats()["facts"] == 1
    assert ledger.facts(AsOf.latest(), about=iri("a"))[0].fact.object == Literal("Ada")


def test_an_expired_deadline_truncates_instead_of_raising(ledger):
    with ledger.batch(at=1) as b:
        for i in range(5):
            b.assert_fact(fact("a", "p", i))
    page = ledger.facts(AsOf.latest(), about=iri("a"), limits=Limits(timeout_s=0.0))
    assert page.truncated and page.limit_hit == "timeout"
    assert not ledger.facts(AsOf.latest(), about=iri("a"), limits=Limits(timeout_s=60.0)).truncated


def test_terms_of_many_ids_reads_a_span_and_equals_one_by_one(tmp_path):
    """Ledger.terms over thousands of ids (one range scan of the span, rows not asked for skipped)
    gives the same terms in the order asked as term() one id at a time; an unknown id still fails."""
    items = [(fact(f"s{i}", "p", i if i % 3 else f"o{i % 700}"), Interval(0, None)) for i in range(3000)]
    led = _load(tmp_path / "t.db", items, bulk=True)
    try:
        top = led._db.execute("SELECT max(term_id) FROM terms").fetchone()[0]
        rng = random.Random(5)
        asked = rng.sample(range(1, top + 1), 2500) + [1, 1]  # dense: the range scan; repeats kept
        got = led.terms(asked)
        led._cache.clear()
        assert got == [led.term(i) for i in asked]
        led._cache.clear()
        sparse = sorted(rng.sample(range(1, top + 1), 50))
        assert led.terms(sparse) == [led.term(i) for i in sparse]
        led._cache.clear()
        with pytest.raises(LedgerError):
            led.terms(list(range(1, top + 1)) + [top + 5])
    finally:
        led.close()
