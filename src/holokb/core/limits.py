"""Budgets.  Hitting one never raises: results say ``truncated`` and which limit was hit."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Generic, Iterator, Sequence, TypeVar

T = TypeVar("T")


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
    limit_hit: str | None = None

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> T:
        return self.items[i]

    @staticmethod
    def of(items: Sequence[T], truncated: bool = False, limit_hit: str | None = None) -> "Page[T]":
        return Page(tuple(items), truncated, limit_hit)
