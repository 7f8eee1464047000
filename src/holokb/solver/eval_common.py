"""Shared pieces of the evaluation drivers: the summary and the JSON-lines record writer."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any


@dataclass(frozen=True, slots=True)
class EvalSummary:
    """Accuracy over ``n`` items, with counts of misses by cause (``causes``: sorted (cause, count))."""

    accuracy: float
    n: int
    correct: int
    causes: tuple[tuple[str, int], ...] = field(default_factory=tuple)

    def line(self) -> str:
        """The line the CLI prints: ``accuracy=0.9950 n=600``."""
        return f"accuracy={self.accuracy:.4f} n={self.n}"


class RecordWriter:
    """Writes one JSON object per line (keys in a fixed order) to a path or an open text stream."""

    def __init__(self, out: str | Path | IO[str] | None):
        self._own = isinstance(out, (str, Path))
        self._fh: IO[str] | None = open(out, "w", encoding="utf-8") if self._own else out  # type: ignore[arg-type]

    def write(self, record: dict[str, Any]) -> None:
        if self._fh is not None:
            self._fh.write(json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n")

    def close(self) -> None:
        if self._own and self._fh is not None:
            self._fh.close()

    def __enter__(self) -> "RecordWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def summarise(correct: int, n: int, causes: dict[str, int]) -> EvalSummary:
    """An :class:`EvalSummary` with causes sorted by name."""
    return EvalSummary(correct / n if n else 0.0, n, correct, tuple(sorted(causes.items())))
