"""Words → the terms they name, so a text query can become a vector.

An IRI is named by its local name (after the last ``#`` or ``/``), whole and split into words at
case changes, digits and punctuation (``codeSearch`` → "codesearch", "code search"); a string
literal by its normalised text.  A query word also matches in its singular form by the plain
English rule (``tools`` → ``tool``); names of two or three words match consecutive query words.
"""
from __future__ import annotations

import re
from typing import Iterable

from ..core.fact import alias_key
from ..core.terms import IRI, Literal, Term, term_sort_key

_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_WORD = re.compile(r"\w+")


def names(t: Term) -> set[str]:
    """The normalised names a term answers to."""
    if isinstance(t, IRI):
        local = re.split(r"[#/]", t.value.rstrip("/#"))[-1]
        out = {alias_key(local)}
        words = _CAMEL.findall(local)
        if words:
            out.add(alias_key(" ".join(words)))
        return {n for n in out if n}
    if isinstance(t, Literal) and isinstance(t.value, str):
        n = alias_key(t.lexical)
        return {n} if n and len(n) <= 64 else set()
    return set()


def _variants(word: str) -> list[str]:
    out = [word]
    if len(word) > 3 and word.endswith("ies"):
        out.append(word[:-3] + "y")
    if len(word) > 3 and word.endswith("es"):
        out.append(word[:-2])
    if len(word) > 2 and word.endswith("s") and not word.endswith("ss"):
        out.append(word[:-1])
    return out


class TermLexicon:
    """Name → terms over a set of terms (built once per vector space)."""

    def __init__(self, terms: Iterable[Term]):
        self._by_name: dict[str, set[Term]] = {}
        for t in terms:
            for n in names(t):
                self._by_name.setdefault(n, set()).add(t)

    def lookup(self, query: str) -> list[Term]:
        """Terms the query names (its words, their singulars, runs of 2-3 words), in term order."""
        words = [alias_key(w) for w in _WORD.findall(query)][:256]
        found: set[Term] = set()
        for i in range(len(words)):
            for span in (1, 2, 3):
                if i + span > len(words):
                    break
                phrase = " ".join(words[i:i + span])
                for v in _variants(phrase):
                    found |= self._by_name.get(v, set())
        return sorted(found, key=term_sort_key)
