"""The one way an answer step says "unsupported" from deep inside: raised, turned into the answer once."""
from __future__ import annotations

from .contract import AnswerLimit, Missing, MissingKind


class Refuse(Exception):
    """An answer that ends ``unsupported``: raised from deep inside, turned into the answer once."""

    def __init__(self, kind: MissingKind, message: str, detail: str | None = None,
                 limit: AnswerLimit | None = None):
        super().__init__(message)
        self.missing = Missing(kind, message, detail)
        self.limit = limit


__all__ = ["Refuse"]
