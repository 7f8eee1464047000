"""Span validation (DS005 §4.3): is an extracted fact traceable to the text it cites?

- the subject (or one of its aliases) appears in the span, word for word (case-folded);
- every number in the object (and in qualifier values) appears verbatim in the span;
- negation words in the span agree with the polarity: ``negate`` needs a negation cue, ``affirm``
  refuses one (so the extractor must quote the clause that states the fact, not a longer sentence).

Each check returns None when it passes, else the :class:`SkipReason` and a message.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Iterable

from .extract import SkipReason

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_NEGATION = re.compile(r"\b(?:not|no|never|none|cannot|can't|won't|isn't|aren't|doesn't|don't|didn't|"
                       r"wasn't|weren't|hasn't|haven't|without|neither|nor)\b|n't\b", re.I)


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(unicodedata.normalize("NFKC", text))]


def _contains_run(hay: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return n > 0 and any(hay[i:i + n] == needle for i in range(len(hay) - n + 1))


def subject_in_span(span: str, subject: str, aliases: Iterable[str] = ()) -> tuple[SkipReason, str] | None:
    """The subject's words (or an alias's) occur as a contiguous run in the span."""
    hay = _words(span)
    for name in (subject, *aliases):
        if _contains_run(hay, _words(name)):
            return None
    return SkipReason.SUBJECT_NOT_IN_SPAN, f"subject {subject[:60]!r} does not occur in the cited text"


def numbers_verbatim(span: str, values: Iterable[str]) -> tuple[SkipReason, str] | None:
    """Every number written in ``values`` occurs in the span as the same digits."""
    present = set(_NUMBER.findall(span))
    for v in values:
        for num in _NUMBER.findall(v):
            if num not in present:
                return SkipReason.NUMBER_NOT_VERBATIM, f"the number {num} of {v[:40]!r} is not in the cited text"
    return None


def polarity_consistent(span: str, polarity: str) -> tuple[SkipReason, str] | None:
    """``negate`` iff the span has a negation cue."""
    cue = _NEGATION.search(span)
    if polarity == "negate" and cue is None:
        return SkipReason.POLARITY_MISMATCH, "polarity is negate but the cited text has no negation"
    if polarity == "affirm" and cue is not None:
        return SkipReason.POLARITY_MISMATCH, f"polarity is affirm but the cited text says {cue.group(0)!r}"
    return None
