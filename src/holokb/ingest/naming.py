"""How extractors mint IRIs from words, and how quantity phrases become typed literals.

One naming for every extractor (Context Units, the LLM extractor, the reader), so the same word
read by two extractors is the same IRI, and the answer path can resolve a question's words the
same way.

- entities keep their case and join words with ``_``: ``"session token"`` → ``ex:session_token``,
  ``"AchillesIDE"`` → ``ex:AchillesIDE``;
- predicates are lowerCamel: ``"has_capability"``, ``"has capability"`` and ``"hasCapability"`` all
  → ``ex:hasCapability`` (the style of ``rules/example.hkr``).

>>> n = Naming()
>>> n.entity("session token").value, n.predicate("expires_after").value
('http://example.org/session_token', 'http://example.org/expiresAfter')
>>> quantity("15 minutes")
Literal(lexical='PT15M', datatype='http://www.w3.org/2001/XMLSchema#duration', lang=None)
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ..core.errors import InvalidValueError
from ..core.terms import IRI, XSD_DECIMAL, XSD_INTEGER, Literal
from ..core.time import Duration

DEFAULT_NAMESPACE = "http://example.org/"
#: Longest word or phrase turned into an IRI (a 100k-character "name" is not a name).
MAX_NAME_CHARS = 200

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class Naming:
    """Mints entity and predicate IRIs under one namespace."""

    namespace: str = DEFAULT_NAMESPACE

    def words(self, text: str) -> list[str]:
        t = unicodedata.normalize("NFKC", text)
        if len(t) > MAX_NAME_CHARS:
            raise InvalidValueError(f"a name of {len(t)} characters is too long (at most {MAX_NAME_CHARS})")
        return _WORD.findall(t)

    def entity(self, text: str) -> IRI:
        """``namespace + words joined by _`` (case kept); an IRI written ``<…>`` is taken as it is."""
        t = text.strip()
        if t.startswith("<") and t.endswith(">"):
            return IRI(t[1:-1])
        words = self.words(t)
        if not words:
            raise InvalidValueError(f"no word to name an entity in {text[:40]!r}")
        return IRI(self.namespace + "_".join(words))

    def predicate(self, text: str) -> IRI:
        """``namespace + lowerCamel(words)``; camelCase input keeps its word breaks."""
        t = text.strip()
        if t.startswith("<") and t.endswith(">"):
            return IRI(t[1:-1])
        words = [w.lower() for w in self.words(_CAMEL.sub(" ", t))]
        if not words:
            raise InvalidValueError(f"no word to name a predicate in {text[:40]!r}")
        return IRI(self.namespace + words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:]))


_UNITS = {
    "ms": 1, "millisecond": 1, "milliseconds": 1,
    "s": 1000, "sec": 1000, "secs": 1000, "second": 1000, "seconds": 1000,
    "min": 60_000, "mins": 60_000, "minute": 60_000, "minutes": 60_000,
    "h": 3_600_000, "hr": 3_600_000, "hrs": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
    "day": 86_400_000, "days": 86_400_000, "week": 7 * 86_400_000, "weeks": 7 * 86_400_000,
}
_QUANTITY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)?\s*$")


def quantity(text: str) -> Literal | None:
    """A number or a day-time duration phrase as a typed literal; None when it is neither.

    ``"20"`` → 20, ``"1.5"`` → 1.5 (decimal), ``"15 minutes"`` → ``PT15M``.  Months and years are
    not read (their length in days is not fixed, so reading them would be a guess).
    """
    m = _QUANTITY.match(text) if len(text) <= 64 else None
    if not m:
        return None
    num, unit = m.group(1), m.group(2)
    if unit is None:
        return Literal(num, XSD_DECIMAL if "." in num else XSD_INTEGER)
    factor = _UNITS.get(unit.lower())
    if factor is None:
        return None
    try:
        ms = Decimal(num) * factor
    except InvalidOperation:
        return None
    if ms != ms.to_integral_value():
        return None
    return Literal.of(Duration(0, int(ms)))
