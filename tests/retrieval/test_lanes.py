"""The structured lane exactly as seed 003 §7.1 (on a fake source), and search end to end over the
example KB: determinism, a hit only the structured lane finds, no-signal queries, bad queries."""
from __future__ import annotations

import pytest

from holokb import AsOf
from holokb.core import IRI, Evidence, Fact, parse_instant
from holokb.retrieval import (
    ChunkRef, EvidenceRef, FactHit, Lane, QueryError, StructuredOptions, entity_candidates, query_tokens,
)
from holokb.retrieval.lanes import structured_lane

from _example import example_kb

EX = "http://example.org/"
AT = parse_instant("2026-01-01")


class FakeSource:
    def __init__(self, aliases, facts):
        self.aliases, self.facts = aliases, facts

    def bm25(self, query, limit):
        return []

    def entities_by_alias(self, norm):
        return sorted(e for a, e in self.aliases if a == norm)

    def facts_about(self, entity, as_of, limit):
        return self.facts.get(entity, [])[:limit]

    def vsa_facts(self, query, as_of, limit):
        return []


def _fh(fid, *evidence):
    return FactHit(fid, Fact(IRI(EX + "s"), IRI(EX + "p"), IRI(EX + fid)), tuple(evidence))


def _ev(doc, chunk, conf, at=None, span=True):
    return EvidenceRef(ChunkRef(doc, chunk), conf, at, span)


def test_tokens_split_on_whitespace_and_ascii_punctuation_and_drop_short_ones():
    assert query_tokens("the x-ray, of Q; Bob") == ["the", "ray", "of", "Bob"]


def test_entity_candidates_prefer_whole_query_matches_then_longer_aliases_then_key():
    src = FakeSource([("server room", "e:z"), ("server", "e:b"), ("room", "e:a"), ("room", "e:c")], {})
    assert entity_candidates(src, "Server  Room", 10) == ["e:z", "e:b", "e:a", "e:c"]
    assert entity_candidates(src, "server room", 2) == ["e:z", "e:b"]


def test_evidence_chunks_rank_by_max_confidence_then_latest_assertion_then_fact_count_then_chunk():
    facts = {"e:x": [
        _fh("f1", _ev("d", "c3", 0.9, 5), _ev("d", "c1", 0.7, 9)),
        _fh("f2", _ev("d", "c2", 0.9, 7)),
        _fh("f3", _ev("d", "c4", 0.7, 9), _ev("d", "c1", 0.5, None)),
        _fh("f4", _ev("d", "c5", 0.7, None), _ev("d", "c6", 0.7, None)),
    ]}
    src = FakeSource([("x", "e:x")], facts)
    r = structured_lane(src, "x", AsOf.latest(), StructuredOptions(), 50)
    # c2 (0.9, t7) > c3 (0.9, t5); c1 (0.7, t9, 2 facts) > c4 (0.7, t9, 1 fact); c5, c6 (0.7, none) by id
    assert [c.chunk for c, _ in r.chunks] == ["c2", "c3", "c1", "c4", "c5", "c6"]
    spans_only = structured_lane(FakeSource([("x", "e:x")], {"e:x": [_fh("f", _ev("d", "a", 1.0, span=False))]}),
                                 "x", AsOf.latest(), StructuredOptions(require_evidence_span=True), 50)
    assert spans_only.chunks == () and len(spans_only.facts) == 1


def test_no_entity_candidate_means_no_signal():
    r = structured_lane(FakeSource([("x", "e:x")], {}), "nothing here", AsOf.latest(), StructuredOptions(), 50)
    assert not r.has_signal


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    k = example_kb(tmp_path_factory.mktemp("kb"))
    # Evidence in a chunk that shares no word with the query "AchillesIDE": only the structured lane finds it.
    k.assert_fact(Fact(IRI(EX + "AchillesIDE"), IRI(EX + "listedIn"), IRI(EX + "inventory")), at=AT + 1,
                  evidence=[Evidence("tools.txt", "p0", 0, 17, confidence=0.99, asserted_at=AT + 1)])
    yield k
    k.close()


def test_search_is_deterministic(kb):
    a = kb.search("sandboxing tools AchillesIDE", as_of=AsOf.latest())
    b = kb.search("sandboxing tools AchillesIDE", as_of=AsOf.latest())
    assert a == b and len(a.hits) > 3
    assert [(h.key, h.score, h.lanes) for h in a.hits] == [(h.key, h.score, h.lanes) for h in b.hits]


def test_a_chunk_only_the_structured_lane_finds_appears_with_that_lane(kb):
    r = kb.search("AchillesIDE", as_of=AsOf.latest())
    p0 = [h for h in r.hits if h.chunk == ChunkRef("tools.txt", "p0")]
    lanes = [l.lane for l in p0[0].lanes] if p0 else []
    assert Lane.STRUCTURED in lanes and Lane.BM25 not in lanes
    bm25 = next(l for l in r.lanes if l.lane is Lane.BM25)
    assert ChunkRef("tools.txt", "p0") not in [c for c, _ in bm25.chunks]


def test_before_the_fact_was_recorded_the_structured_lane_does_not_see_it(kb):
    r = kb.search("AchillesIDE", as_of=AsOf.at(AT))
    assert not [h for h in r.hits if h.chunk == ChunkRef("tools.txt", "p0")]


def test_a_query_naming_no_entity_gets_nothing_from_the_structured_lane(kb):
    r = kb.search("inactivity timeout", as_of=AsOf.latest())
    lanes = {l.lane: l for l in r.lanes}
    assert not lanes[Lane.STRUCTURED].has_signal and lanes[Lane.BM25].has_signal
    assert all(Lane.STRUCTURED not in [x.lane for x in h.lanes] for h in r.hits)


def test_the_vector_lane_finds_facts_by_the_terms_the_query_names(kb):
    r = kb.search("libsandbox sandboxing", as_of=AsOf.latest())
    vsa = next(l for l in r.lanes if l.lane is Lane.VSA)
    top2 = [(fh.fact.subject, fh.fact.object) for fh, _ in vsa.facts[:2]]
    # (the label fact names "libsandbox" twice: the IRI and its label literal)
    assert (IRI(EX + "libsandbox"), IRI(EX + "sandboxing")) in top2


@pytest.mark.parametrize("query,code", [("", "HK710"), ("   ", "HK710"), ("x" * 100_000, "HK711")])
def test_empty_and_huge_queries_are_refused_with_a_code(kb, query, code):
    with pytest.raises(QueryError) as e:
        kb.search(query, as_of=AsOf.latest())
    assert e.value.diagnostics[0].code == code
