"""Profiles as data (the shipped ones, and files that must be rejected), weighted RRF arithmetic,
signal gating, tie-breaks and cut-offs."""
from __future__ import annotations

import json

import pytest

from holokb.core import IRI, Fact
from holokb.retrieval import (
    ChunkRef, CutReason, FactHit, HitKind, Lane, LaneResult, ProfileError, cut, fuse, load_profile,
    load_profiles, parse_profiles,
)


def test_the_thinkingdb_profile_ships_with_the_ds025_numbers():
    p = load_profile("thinkingdb")
    assert [(s.lane, s.weight) for s in p.lanes] == [(Lane.BM25, 1.0), (Lane.STRUCTURED, 0.5)]
    assert (p.max_results, p.min_score, p.confidence_gap, p.target_latency_ms) == (8, 0.12, 0.25, 700)
    assert {l.lane for l in load_profile("default").lanes} == set(Lane)


BAD = [
    ({"profiles": {"x": {"lanes": {"bm25": {"weight": -1}}}}}, "HK707"),
    ({"profiles": {"x": {"lanes": {"telepathy": {"weight": 1}}}}}, "HK706"),
    ({"profiles": {"x": {"primaryStrategies": ["bm25-lexical", "crystal-ball"]}}}, "HK706"),
    ({"profiles": {"x": {"lanes": {"bm25": {"weight": float("nan")}}}}}, "HK707"),
    ({"profiles": {"x": {"lanes": {"bm25": {}}, "maxResults": 0}}}, "HK707"),
    ({"profiles": {"x": {"lanes": {"bm25": {}}, "minScore": 2}}}, "HK707"),
    ({"profiles": {"x": {"lanes": {"bm25": {}}, "colour": "blue"}}}, "HK704"),
    ({"profiles": {"x": {}}}, "HK705"),
    ({"lanes": {}}, "HK703"),
    ([], "HK703"),
]


@pytest.mark.parametrize("data,code", BAD)
def test_a_bad_profile_is_rejected_with_a_code(data, code):
    with pytest.raises(ProfileError) as e:
        parse_profiles(data)
    assert code in [d.code for d in e.value.diagnostics]


def test_every_problem_of_a_file_is_reported_at_once(tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"profiles": {"a": {"lanes": {"nope": {}, "bm25": {"weight": -2}}},
                                          "b": {"lanes": {"vsa": {"weight": 1}}}}}))
    with pytest.raises(ProfileError) as e:
        load_profiles(f)
    assert sorted(d.code for d in e.value.diagnostics) == ["HK706", "HK707"]


def test_a_profile_file_that_is_not_json_or_missing_is_a_clear_error(tmp_path):
    f = tmp_path / "p.json"
    f.write_text("{not json")
    with pytest.raises(ProfileError) as e:
        load_profiles(f)
    assert e.value.diagnostics[0].code == "HK701" and e.value.diagnostics[0].location.line == 1
    with pytest.raises(ProfileError):
        load_profiles(tmp_path / "absent.json")
    with pytest.raises(ProfileError) as e:
        load_profile("nope")
    assert "thinkingdb" in e.value.diagnostics[0].hint


def _chunks(lane, *names):
    return LaneResult(lane, chunks=tuple((ChunkRef("d", n), 1.0) for n in names))


def _profile(**weights):
    lanes = {k: {"weight": v} for k, v in weights.items()}
    return parse_profiles({"profiles": {"t": {"lanes": lanes, "maxResults": 100, "rrfK": 60}}})["t"]


def test_rrf_adds_weighted_reciprocal_ranks_normalised_by_the_best_possible():
    p = _profile(bm25=1.0, structured=0.5)
    hits = fuse([_chunks(Lane.BM25, "a", "b"), _chunks(Lane.STRUCTURED, "b", "c")], p)
    norm = 1 / 61 + 0.5 / 61
    want = {"a": (1 / 61) / norm, "b": (1 / 62 + 0.5 / 61) / norm, "c": (0.5 / 62) / norm}
    assert [h.chunk.chunk for h in hits] == ["b", "a", "c"]
    for h in hits:
        assert h.score == pytest.approx(want[h.chunk.chunk], abs=1e-9)
    b = hits[0]
    assert [(l.lane, l.rank) for l in b.lanes] == [(Lane.BM25, 2), (Lane.STRUCTURED, 1)]


def test_a_lane_without_signal_changes_nothing():
    p = _profile(bm25=1.0, structured=1.0, vsa=1.0)
    alone = fuse([_chunks(Lane.BM25, "a", "b")], p)
    with_empty = fuse([_chunks(Lane.BM25, "a", "b"), LaneResult(Lane.STRUCTURED), LaneResult(Lane.VSA)], p)
    assert alone == with_empty
    assert alone[0].score == 1.0


def test_ties_break_by_kind_then_document_and_chunk_then_fact_id_whatever_the_lane_order():
    p = _profile(bm25=1.0, structured=1.0)
    fact = FactHit("00ff", Fact(IRI("http://e/a"), IRI("http://e/p"), IRI("http://e/b")))
    a = LaneResult(Lane.BM25, chunks=((ChunkRef("z", "p0"), 1.0),))
    b = LaneResult(Lane.STRUCTURED, chunks=((ChunkRef("a", "p9"), 1.0),), facts=((fact, 1.0),))
    one = fuse([a, b], p)
    two = fuse([b, a], p)
    assert one == two
    assert [(h.kind, h.chunk.document if h.chunk else h.fact.fact_id) for h in one] == [
        (HitKind.CHUNK, "a"), (HitKind.CHUNK, "z"), (HitKind.FACT, "00ff")]


def test_cut_offs_min_score_gap_and_max_results():
    p = parse_profiles({"profiles": {"t": {"lanes": {"bm25": {}, "structured": {}}, "maxResults": 2,
                                           "minScore": 0.3, "confidenceGapThreshold": 0.6}}})["t"]
    hits = fuse([_chunks(Lane.BM25, "a", "b", "c"), _chunks(Lane.STRUCTURED, "a", "b")], p)
    got, why = cut(hits, p)
    assert [h.chunk.chunk for h in got] == ["a", "b"] and why is CutReason.MAX_RESULTS
    gap = parse_profiles({"profiles": {"t": {"lanes": {"bm25": {}, "structured": {}}, "maxResults": 9,
                                             "confidenceGapThreshold": 0.4}}})["t"]
    got, why = cut(hits, gap)
    assert [h.chunk.chunk for h in got] == ["a", "b"] and why is CutReason.CONFIDENCE_GAP  # c is BM25-only: 0.49
    low = parse_profiles({"profiles": {"t": {"lanes": {"bm25": {}, "structured": {}}, "minScore": 0.99}}})["t"]  # b: (2/62)/(2/61) = 0.984
    got, why = cut(hits, low)
    assert [h.chunk.chunk for h in got] == ["a"] and why is CutReason.MIN_SCORE
