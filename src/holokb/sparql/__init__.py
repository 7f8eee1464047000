"""holokb.sparql: SPARQL 1.1 over as-of snapshots and over the reified ledger (design.md §4–5).

A snapshot is the plain triples visible at an AsOf plus the rule closure at the same AsOf, in a
pyoxigraph store; the latest one is kept warm on disk beside the ledger (``kb.db.sparql/``),
rebuilt whenever the ledger or the rules change (from the ledger's stored closure when `holokb derive`
left a fresh one; :mod:`.rules_index` finds it by the rule files' digest without parsing them); a
long-running process keeps its stores current by each write's delta instead (:class:`LiveCache`), and
copies a disk store it uses again into memory.  Results serialise to the W3C formats.

>>> from holokb.sparql import run_query, QueryResult
"""
from importlib import import_module
from typing import Any

# Names load with their module on first use: ``holokb query`` on a warm snapshot needs the cache and
# the query runner only, not the live cache, SPARQL Update or every result format's dependencies.
_WHERE = {
    "DEFAULT_CACHE": "cache", "Snapshot": "cache", "SnapshotCache": "cache", "serialize": "formats",
    "LiveCache": "live", "SparqlSyntaxError": "query", "check_syntax": "query", "has_outer_order_by": "query",
    "query_form": "query", "query_ledger": "query", "run_query": "query", "QueryResult": "results",
    "RDFTerm": "results", "SnapshotKey": "snapshot", "program_hash": "snapshot",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{where}", __name__), name)
    globals()[name] = value
    return value


__all__ = sorted(_WHERE)
