"""Budgets.  Hitting one never raises: results say ``truncated`` and which limit was hit."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
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
    #: A fixed end on the monotonic clock (set by :meth:`started`): every stage of one command that
    #: reads these limits then shares one deadline, instead of each restarting ``timeout_s``.
    ends_at: float | None = None

    @staticmethod
    def unbounded() -> "Limits":
        return Limits(None, None, None, None, None)

    def started(self) -> "Limits":
        """These limits with the deadline fixed from now (the command's start), for every stage after."""
        if self.timeout_s is None or self.ends_at is not None:
            return self
        return replace(self, ends_at=time.monotonic() + self.timeout_s)

    def deadline(self) -> "Deadline":
        if self.ends_at is not None:
            return Deadline.at(self.ends_at)
        return Deadline(self.timeout_s)


class Deadline:
    """A budget on elapsed time, read from a monotonic clock (affects truncation only)."""

    __slots__ = ("_end",)

    def __init__(self, timeout_s: float | None):
        self._end = None if timeout_s is None else time.monotonic() + timeout_s

    @staticmethod
    def at(end: float) -> "Deadline":
        """The deadline at ``end`` on the monotonic clock."""
        d = Deadline(None)
        d._end = end
        return d

    def expired(self) -> bool:
        return self._end is not None and time.monotonic() >= self._end

    def remaining(self) -> float | None:
        """Seconds left (0 when expired), None without a deadline."""
        return None if self._end is None else max(0.0, self._end - time.monotonic())


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
