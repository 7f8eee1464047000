"""holokb.ledger: the bitemporal fact ledger (one SQLite file in WAL mode, the store of record).

Writes go through ``with ledger.batch(at) as b`` (one ``BEGIN IMMEDIATE`` transaction, all or
nothing) or ``ledger.bulk_assert(records, at=...)`` (the same semantics, loaded fast).  Reads take
an explicit :class:`~holokb.core.AsOf` and return :class:`~holokb.core.Page` of frozen views in a
documented order that never depends on insertion order.  Evidence character offsets are relative
to the evidence's chunk text (or to the document text when no chunk is named).

A :class:`Ledger` object is for one thread at a time; open one per thread (or process) for
concurrent use — SQLite lets many readers and one writer share the file.

>>> from holokb.ledger import Ledger, FactView
"""
from .derived import ClosureInfo, DerivedRecord, DerivedView, EncodedClosure, EncodedDerived, StoredClosure
from .schema import APPLICATION_ID, CURRENT_VERSION
from .store import Ledger
from .views import EncodedFacts, FactView, PredicateInfo, QuadChanges, SearchHit, SpanView
from .writes import Batch, WriteCounts

__all__ = [
    "APPLICATION_ID", "Batch", "ClosureInfo", "CURRENT_VERSION", "DerivedRecord", "DerivedView", "EncodedClosure", "EncodedDerived",
    "EncodedFacts", "FactView", "Ledger", "PredicateInfo", "QuadChanges",
    "SearchHit", "SpanView", "StoredClosure", "WriteCounts",
]
