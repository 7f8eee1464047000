"""The three lanes.  Each returns a :class:`LaneResult`; an empty one means "no signal".

- **BM25**: chunks by SQLite FTS5's BM25 (any query word may match).
- **Structured** (seed 003 §7.1): alias matching of the whole query and of each token (split on
  whitespace and ASCII punctuation, at least 2 characters) against normalised aliases; entity
  candidates ordered by (whole-query match first, longer alias first, entity key); the visible facts
  of those entities; their evidence grouped by chunk and ranked by max confidence desc, latest
  assertion desc (none = -inf), number of distinct facts desc, then (document, chunk).  No entity
  candidate, or no evidence chunk, gives an empty chunk list (signal gating).
- **VSA**: facts nearest to the query's vector (the terms the query names, in any role), and
  their evidence chunks ranked by their best fact's rank.
"""
from __future__ import annotations

import re

from ..core.fact import alias_key
from ..core.time import AsOf
from .profile import StructuredOptions
from .types import ChunkRef, FactHit, Lane, LaneResult, RetrievalSource

_SPLIT = re.compile(r"[\s!-/:-@\[-`{-~]+")


def query_tokens(query: str) -> list[str]:
    """Tokens of seed 003 §7.1: split on whitespace and ASCII punctuation, length >= 2, first-seen order.

    >>> query_tokens("AchillesIDE's sandboxing, a tool")
    ['AchillesIDE', 'sandboxing', 'tool']
    """
    return list(dict.fromkeys(t for t in _SPLIT.split(query) if len(t.strip()) >= 2))


def bm25_lane(source: RetrievalSource, query: str, max_items: int) -> LaneResult:
    return LaneResult(Lane.BM25, chunks=tuple(source.bm25(query, max_items)))


def entity_candidates(source: RetrievalSource, query: str, limit: int) -> list[str]:
    """Entities whose alias matches the whole query or one of its tokens, in §7.1's order."""
    best: dict[str, tuple[int, int, str]] = {}
    probes = [(0, alias_key(query))] + [(1, alias_key(t)) for t in query_tokens(query)]
    for source_rank, norm in probes:
        if not norm:
            continue
        for e in source.entities_by_alias(norm):
            key = (source_rank, -len(norm), e)
            if e not in best or key < best[e]:
                best[e] = key
    return sorted(best, key=lambda e: best[e])[:limit]


def structured_lane(source: RetrievalSource, query: str, as_of: AsOf, options: StructuredOptions,
                    max_items: int) -> LaneResult:
    entities = entity_candidates(source, query, options.max_entity_candidates)
    if not entities:
        return LaneResult(Lane.STRUCTURED)
    facts: list[FactHit] = []
    seen: set[str] = set()
    for e in entities:
        for fh in source.facts_about(e, as_of, options.max_facts):
            if fh.fact_id not in seen and len(facts) < options.max_facts:
                seen.add(fh.fact_id)
                facts.append(fh)
        if len(facts) >= options.max_facts:
            break
    frames: dict[ChunkRef, list] = {}
    for fh in facts:
        for ev in fh.evidence:
            if options.require_evidence_span and not ev.has_span:
                continue
            f = frames.setdefault(ev.where, [float("-inf"), None, set()])
            f[0] = max(f[0], ev.confidence)
            if ev.asserted_at is not None:
                f[1] = ev.asserted_at if f[1] is None else max(f[1], ev.asserted_at)
            f[2].add(fh.fact_id)
    ranked = sorted(frames, key=lambda c: (-frames[c][0], -(frames[c][1] if frames[c][1] is not None else -2**63 - 1),
                                          -len(frames[c][2]), c))
    chunks = tuple((c, frames[c][0]) for c in ranked[:min(options.max_evidence_frames, max_items)])
    fact_list = tuple((fh, max((ev.confidence for ev in fh.evidence), default=1.0)) for fh in facts[:max_items])
    return LaneResult(Lane.STRUCTURED, chunks=chunks, facts=fact_list)


def vsa_lane(source: RetrievalSource, query: str, as_of: AsOf, max_items: int) -> LaneResult:
    facts = tuple(source.vsa_facts(query, as_of, max_items))
    best: dict[ChunkRef, tuple[int, float]] = {}
    for rank, (fh, score) in enumerate(facts):
        for ev in fh.evidence:
            if ev.where not in best:
                best[ev.where] = (rank, score)
    chunks = tuple((c, best[c][1]) for c in sorted(best, key=lambda c: (best[c][0], c))[:max_items])
    return LaneResult(Lane.VSA, chunks=chunks, facts=facts)
