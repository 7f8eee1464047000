"""Weighted reciprocal-rank fusion with stable tie-breaks, then the profile's cut-offs.

An item's fused score is ``sum over lanes of weight / (rrfK + rank)`` (rank 1 = the lane's best;
chunks and facts are ranked separately within a lane), divided by ``sum of weight / (rrfK + 1)``
over the lanes that had a signal, so it lies in [0, 1].  Lanes with no signal are left out of both
sums: they change nothing.  Order: score desc, then chunks before facts, then (document, chunk)
or fact id.  Lanes are summed in a fixed order, so the same lane lists give the same floats.
"""
from __future__ import annotations

from typing import Sequence

from .profile import RetrievalProfile
from .types import CutReason, HitKind, LaneRank, LaneResult, SearchHit


def fuse(results: Sequence[LaneResult], profile: RetrievalProfile) -> list[SearchHit]:
    """All items of the lanes, fused and ordered (no cut-offs)."""
    k = profile.rrf_k
    live = [r for r in sorted(results, key=lambda r: list(type(r.lane)).index(r.lane))
            if r.has_signal and profile.weight(r.lane) > 0]
    norm = sum(profile.weight(r.lane) / (k + 1) for r in live)
    if norm == 0:
        return []
    sums: dict[tuple, float] = {}
    ranks: dict[tuple, list[LaneRank]] = {}
    payload: dict[tuple, tuple] = {}
    for r in live:
        w = profile.weight(r.lane)
        for rank, (chunk, score) in enumerate(r.chunks, start=1):
            key = (HitKind.CHUNK.value, chunk.document, chunk.chunk)
            sums[key] = sums.get(key, 0.0) + w / (k + rank)
            ranks.setdefault(key, []).append(LaneRank(r.lane, rank, score))
            payload.setdefault(key, (HitKind.CHUNK, chunk, None))
        for rank, (fact, score) in enumerate(r.facts, start=1):
            key = (HitKind.FACT.value, fact.fact_id, "")
            sums[key] = sums.get(key, 0.0) + w / (k + rank)
            ranks.setdefault(key, []).append(LaneRank(r.lane, rank, score))
            payload.setdefault(key, (HitKind.FACT, None, fact))
    hits = []
    for key in sorted(sums, key=lambda x: (-round(sums[x] / norm, 12), x)):
        kind, chunk, fact = payload[key]
        hits.append(SearchHit(kind, round(sums[key] / norm, 12), tuple(ranks[key]), chunk, fact))
    return hits


def cut(hits: Sequence[SearchHit], profile: RetrievalProfile) -> tuple[tuple[SearchHit, ...], CutReason | None]:
    """Apply minScore, confidenceGapThreshold and maxResults, in the fused order."""
    out: list[SearchHit] = []
    best = hits[0].score if hits else 0.0
    for h in hits:
        if h.score < profile.min_score:
            return tuple(out), CutReason.MIN_SCORE
        if profile.confidence_gap is not None and best - h.score > profile.confidence_gap:
            return tuple(out), CutReason.CONFIDENCE_GAP
        if len(out) == profile.max_results:
            return tuple(out), CutReason.MAX_RESULTS
        out.append(h)
    return tuple(out), None
