"""What the kinship reader returns for one story: the statements it is sure of, the statements with
several readings (a pronoun with more than one possible antecedent), and what it skipped."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterator

from ..english.reading import Reading, ReadFact, ReadSkip, SourceSpan


@dataclass(frozen=True, slots=True)
class Unnamed:
    """A person the text names only by kinship: "his sister" in "his sister's son [Kevin]" is
    ``Unnamed("Dwight", (sibling,), "female")``.  Statements about them compose by the rules."""

    anchor: str
    path: tuple[str, ...]
    gender: str


Person = str | Unnamed


@dataclass(frozen=True, slots=True)
class ReadChoice:
    """A statement with several readings: each option is what one reading states (possibly nothing,
    when that reading composes to no relation); the first option is the reader's preference."""

    options: tuple[tuple[ReadFact, ...], ...]
    span: SourceSpan
    reason: str


@dataclass(frozen=True)
class StoryReading:
    """The statements of one story: ``facts`` hold in every reading, ``choices`` differ by reading."""

    facts: tuple[ReadFact, ...] = ()
    choices: tuple[ReadChoice, ...] = ()
    skips: tuple[ReadSkip, ...] = ()
    sentences: tuple[SourceSpan, ...] = ()

    def preferred(self) -> Reading:
        """The reading that takes every choice's first option."""
        extra = tuple(f for c in self.choices for f in c.options[0])
        return Reading(self.facts + extra, (), self.skips, self.sentences)

    def count(self) -> int:
        n = 1
        for c in self.choices:
            n *= len(c.options)
        return n

    def readings(self) -> Iterator[Reading]:
        """Every combination of the choices' options (``count()`` of them), the preferred one first."""
        for combo in itertools.product(*(c.options for c in self.choices)):
            yield Reading(self.facts + tuple(f for opt in combo for f in opt), (), self.skips, self.sentences)
