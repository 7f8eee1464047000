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
# The names load on first use (PEP 562): ``holokb.ledger.marker`` (what a warm query reads)
# does not load the Ledger class and its mixins.
from typing import TYPE_CHECKING

from .._lazy import lazy_names

_WHERE = {
    **dict.fromkeys(['ClosureInfo', 'DerivedRecord', 'DerivedView', 'EncodedClosure', 'EncodedDerived', 'StoredClosure'], 'derived'),
    **dict.fromkeys(['APPLICATION_ID', 'CURRENT_VERSION'], 'schema'),
    **dict.fromkeys(['Ledger'], 'store'),
    **dict.fromkeys(['EncodedFacts', 'FactView', 'PredicateInfo', 'QuadChanges', 'SearchHit', 'SpanView'], 'views'),
    **dict.fromkeys(['Batch', 'WriteCounts'], 'writes'),
}


__getattr__, __dir__ = lazy_names(__name__, _WHERE)

if TYPE_CHECKING:
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
