"""Derived facts as columns: the part the engine's proof-step columns and the ledger's columnar
closure store share (:class:`holokb.engine.encoded.StepColumns`,
:class:`holokb.ledger.derived_columns.DerivedGroup`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: core loads no numpy
    import numpy as np


@dataclass(frozen=True, slots=True)
class FactColumns:
    """Derived facts of one relation that one rule derived, one row each: ``seq`` their positions in
    the closure's order, ``args`` (rows × arity) term ids, ``valid_from`` / ``valid_to`` int64
    (int64 max: open end), ``depth``, and ``score`` (None when no scores were kept)."""

    predicate: str
    negated: bool
    rule: str
    seq: np.ndarray
    args: np.ndarray
    valid_from: np.ndarray
    valid_to: np.ndarray
    depth: np.ndarray
    score: np.ndarray | None

    def __len__(self) -> int:
        return len(self.seq)
