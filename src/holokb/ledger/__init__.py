"""holokb.ledger: the bitemporal fact ledger (one SQLite file, the store of record).

>>> from holokb.ledger import Ledger, FactView
"""
from .schema import APPLICATION_ID, CURRENT_VERSION
from .store import Ledger
from .views import EncodedFacts, FactView, PredicateInfo, SearchHit, SpanView
from .writes import Batch

__all__ = [
    "APPLICATION_ID", "Batch", "CURRENT_VERSION", "EncodedFacts", "FactView", "Ledger", "PredicateInfo",
    "SearchHit", "SpanView",
]
