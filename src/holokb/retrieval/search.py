"""One search: validate the query, run the profile's lanes, fuse, cut."""
from __future__ import annotations

from ..core.errors import Diagnostic, DiagnosticError
from ..core.time import AsOf
from .fusion import cut, fuse
from .lanes import bm25_lane, structured_lane, vsa_lane
from .profile import RetrievalProfile
from .types import Lane, LaneResult, RetrievalSource, SearchResult

#: Longer queries are refused (a question is a sentence or two; a pasted document is not a query).
MAX_QUERY_CHARS = 4096


class QueryError(DiagnosticError):
    """A search query that cannot be run (empty, too long)."""


def check_query(query: str) -> str:
    """The query stripped; QueryError when it is empty or longer than MAX_QUERY_CHARS."""
    q = query.strip() if isinstance(query, str) else ""
    if not q:
        raise QueryError("empty query", (Diagnostic("HK710", "the search query is empty",
                                                    hint="give some words to search for"),))
    if len(q) > MAX_QUERY_CHARS:
        raise QueryError("query too long", (Diagnostic(
            "HK711", f"the search query has {len(q)} characters; at most {MAX_QUERY_CHARS} are searched",
            hint="search for the key words or entity names instead of the whole text"),))
    return q


def search(source: RetrievalSource, query: str, *, as_of: AsOf, profile: RetrievalProfile) -> SearchResult:
    """Fused hits for ``query`` at ``as_of`` under ``profile`` (deterministic: same inputs, same hits)."""
    q = check_query(query)
    results: list[LaneResult] = []
    for s in profile.lanes:
        if s.lane is Lane.BM25:
            results.append(bm25_lane(source, q, s.max_items))
        elif s.lane is Lane.STRUCTURED:
            results.append(structured_lane(source, q, as_of, profile.structured, s.max_items))
        else:
            results.append(vsa_lane(source, q, as_of, s.max_items))
    hits, reason = cut(fuse(results, profile), profile)
    return SearchResult(q, profile.name, hits, tuple(results), reason)
