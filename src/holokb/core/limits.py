"""Budgets.  Hitting one never raises: results say ``truncated`` and which limit was hit."""
from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, Iterator, Sequence, TypeVar

T = TypeVar("T")


class LimitHit(StrEnum):
    """Which budget stopped a computation (stored and printed by its value, e.g. ``"timeout"``).

    >>> LimitHit.TIMEOUT.value, LimitHit("max_derived") is LimitHit.MAX_DERIVED
    ('timeout', True)
    """

    MAX_DEPTH = "max_depth"
    MAX_DERIVED = "max_derived"
    MAX_RESULTS = "max_results"
    MAX_EDGES = "max_edges"
    #: The engine's own cap on the rows one join step may produce (``Limits.max_edges`` unset).
    MAX_INTERMEDIATE = "max_intermediate"
    MEMORY = "memory"
    TIMEOUT = "timeout"

    @staticmethod
    def from_stored(text: str | None) -> "LimitHit | None":
        """The member a stored value names (``"timeout_s"``, an older name, is ``TIMEOUT``); None for
        None or a name this version does not know (the stored ``truncated`` flag still says so)."""
        if text is None:
            return None
        try:
            return LimitHit("timeout" if text == "timeout_s" else text)
        except ValueError:
            return None


@dataclass(frozen=True, slots=True)
class Limits:
    """Budgets for traversal, closure and solving.  ``None`` means unbounded.

    >>> Limits(max_results=10).max_results
    10
    """

    max_depth: int | None = None
    max_derived: int | None = None
    max_results: int | None = 1000
    max_edges: int | None = None
    timeout_s: float | None = None

    @staticmethod
    def unbounded() -> "Limits":
        return Limits(None, None, None, None, None)

    def deadline(self) -> "Deadline":
        return Deadline(self.timeout_s)


class Deadline:
    """A budget on elapsed time, read from a monotonic clock (affects truncation only)."""

    __slots__ = ("_end",)

    def __init__(self, timeout_s: float | None):
        self._end = None if timeout_s is None else time.monotonic() + timeout_s

    def expired(self) -> bool:
        return self._end is not None and time.monotonic() >= self._end


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """A bounded result: items in their documented order, and whether a limit cut it short."""

    items: tuple[T, ...]
    truncated: bool = False
    limit_hit: LimitHit | None = None

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> T:
        return self.items[i]

    @staticmethod
    def of(items: Sequence[T], truncated: bool = False, limit_hit: LimitHit | None = None) -> "Page[T]":
        return Page(tuple(items), truncated, limit_hit)
