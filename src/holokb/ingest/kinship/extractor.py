"""The kinship reader behind the :class:`~holokb.ingest.extract.Extractor` protocol, so a family story
can go through ``kb.ingest`` (CLUTRR through ``kb.answer``)."""
from __future__ import annotations

from types import MappingProxyType
from typing import Iterator, Mapping

from ...analysis.program import PredicateDecl
from ..extract import DocumentInput, ExtractedFact, Extraction, Skip, SkipReason
from .reader import KinshipReader
from .story import StoryReading

EXTRACTOR_ID = "holokb.kinship"
EXTRACTOR_VERSION = "1"


class KinshipExtractor:
    """Reads each chunk with :class:`KinshipReader` (genders from the record) and states one reading of
    its pronouns: ``reading`` indexes :meth:`StoryReading.readings` (0 = every choice's first option)."""

    def __init__(self, genders: Mapping[str, str], *, reading: int = 0, reader: KinshipReader | None = None,
                 read: "tuple[str, StoryReading] | None" = None):
        self.genders = dict(genders)
        self.reading = reading
        self.reader = reader or KinshipReader()
        self.read = read   # (text, its reading) already made by the caller: not read again

    # the Extractor protocol's identity; no declared vocabulary (the kinship relations are open)
    id = EXTRACTOR_ID
    version = EXTRACTOR_VERSION
    vocabulary: Mapping[str, PredicateDecl] = MappingProxyType({})

    def extract(self, document: DocumentInput) -> Iterator[Extraction]:
        for chunk in document.chunks:
            text = document.chunk_text(chunk)
            story = self.read[1] if self.read is not None and self.read[0] == text \
                else self.reader.read_story(text, self.genders)
            reading = next((r for i, r in enumerate(story.readings()) if i == self.reading), None)
            facts = reading.facts if reading is not None else ()
            yield Extraction(
                chunk.chunk_id, len(story.sentences),
                tuple(ExtractedFact(f.fact, f.span.start, f.span.end) for f in facts), (), (),
                tuple(Skip(SkipReason.NOT_UNDERSTOOD, s.span.start, s.span.end, f"{s.code.value}: {s.detail}")
                      for s in story.skips if s.code.value != "no_statement"))
