"""The solver's typed stop conditions (the engine's are :class:`holokb.core.LimitHit`)."""
from __future__ import annotations

from enum import StrEnum
from typing import Union

from ..core.limits import LimitHit


class SolverLimit(StrEnum):
    """What ended a reasoning call short of a decisive answer (printed by its value)."""

    TIMEOUT = "timeout"
    MAX_ATOMS = "max_atoms"
    MAX_ROUNDS = "max_rounds"
    #: The expansion step found nothing new: every fact it can reach was read.
    STAGNATION = "stagnation"


#: A result's limit: the solver's own, or the engine's when a closure fed the answer.
Limit = Union[SolverLimit, LimitHit]

__all__ = ["Limit", "SolverLimit"]
