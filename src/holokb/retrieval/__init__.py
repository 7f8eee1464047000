"""holokb.retrieval: BM25 over chunks, the structured lane, the VSA lane, weighted RRF fusion.

Lanes read through the :class:`RetrievalSource` protocol (``holokb.ledger_search`` implements it
over a ledger), so this package depends on ``holokb.core`` only.  Profiles (lanes, weights,
cut-offs) come from a JSON file; ``profiles.json`` beside this module ships ``default`` and
``thinkingdb``.
"""
from .fusion import cut, fuse
from .lanes import entity_candidates, query_tokens
from .profile import (
    LaneSettings, ProfileError, RetrievalProfile, StructuredOptions, VSALaneOptions, load_profile, load_profiles,
    parse_profiles,
)
from .search import MAX_QUERY_CHARS, QueryError, check_query, search
from .types import (
    ChunkRef, CutReason, EvidenceRef, FactHit, HitKind, Lane, LaneRank, LaneResult, RetrievalSource, SearchHit,
    SearchResult,
)

__all__ = [
    "ChunkRef", "CutReason", "EvidenceRef", "FactHit", "HitKind", "Lane", "LaneRank", "LaneResult",
    "LaneSettings", "MAX_QUERY_CHARS", "ProfileError", "QueryError", "RetrievalProfile", "RetrievalSource",
    "SearchHit", "SearchResult", "StructuredOptions", "VSALaneOptions", "check_query", "cut",
    "entity_candidates", "fuse", "load_profile", "load_profiles", "parse_profiles", "query_tokens", "search",
]
