"""holokb.sparql: SPARQL 1.1 over as-of snapshots and over the reified ledger (design.md §4–5).

A snapshot is the plain triples visible at an AsOf plus the rule closure at the same AsOf, in a
pyoxigraph store; the latest one is kept warm on disk beside the ledger (``kb.db.sparql/``),
rebuilt whenever the ledger or the rules change; a long-running process keeps its stores current by
each write's delta instead (:class:`LiveCache`).  Results serialise to the W3C formats.

>>> from holokb.sparql import run_query, QueryResult
"""
from .cache import DEFAULT_CACHE, Snapshot, SnapshotCache
from .formats import serialize
from .live import LiveCache
from .query import SparqlSyntaxError, check_syntax, has_outer_order_by, query_form, query_ledger, run_query
from .results import QueryResult, RDFTerm
from .snapshot import SnapshotKey, program_hash

__all__ = [
    "DEFAULT_CACHE", "LiveCache", "QueryResult", "RDFTerm", "Snapshot", "SnapshotCache", "SnapshotKey", "SparqlSyntaxError",
    "check_syntax", "has_outer_order_by", "program_hash", "query_form", "query_ledger", "run_query", "serialize",
]
