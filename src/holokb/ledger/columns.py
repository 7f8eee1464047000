"""The ledger's name for :func:`holokb.core.arrays.distinct` (the engine uses it too, so it lives in core)."""
from __future__ import annotations

from ..core.arrays import distinct

__all__ = ["distinct"]
