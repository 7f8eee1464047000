"""The controlled-English reader behind the :class:`~holokb.ingest.extract.Extractor` protocol."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, Mapping, Sequence

from ...analysis.program import PredicateDecl
from ...core import Interval
from ..extract import DocumentInput, ExtractedFact, ExtractedRule, Extraction, Skip, SkipReason
from .meaning import Context
from .reader import EXTRACTOR_ID, EXTRACTOR_VERSION, EnglishReader
from .reading import Reading, SkipCode

_REASONS = {SkipCode.TOO_LONG: SkipReason.SENTENCE_TOO_LONG}


class EnglishExtractor:
    """Reads each chunk with :class:`EnglishReader`; context (dates, pronouns) runs across chunks.

    The vocabulary is open (any predicate the lexicon or the text names); functional predicates are
    resolved by the reader itself (a newer statement ends the older one's valid time).
    """

    def __init__(self, *, lexicons: tuple[str | Path, ...] = (), reader: EnglishReader | None = None,
                 story_times: "Sequence[int] | None" = None):
        self.reader = reader or EnglishReader(lexicons=lexicons)
        # A story (bAbI): one story instant per sentence of the document, in order; each chunk reads its share.
        self.story_times = tuple(story_times) if story_times is not None else None

    @property
    def id(self) -> str:
        return EXTRACTOR_ID

    @property
    def version(self) -> str:
        return EXTRACTOR_VERSION

    @property
    def vocabulary(self) -> Mapping[str, PredicateDecl]:
        return {}

    def extract(self, document: DocumentInput) -> Iterator[Extraction]:
        ctx = Context()
        done = 0
        for chunk in document.chunks:
            text = document.chunk_text(chunk)
            times = None if self.story_times is None else self.story_times[done:]
            reading = self.reader.read(text, ctx, story_times=times)
            done += len(reading.sentences)
            yield _extraction(chunk.chunk_id, reading, 0, 0, len(text))


class ReadingPart(EnglishExtractor):
    """One part of a text read as a whole (a story ingested part by part as it is told): each
    document it extracts is the text's ``[start, end)``, and it yields what the whole reading read
    there, spans moved into the part.  So a part is read with everything before it in view
    (pronouns, rule numbering) and a state is ended where a later part changes it, as if the text
    were one document."""

    def __init__(self, reading: "Reading", start: int, end: int, *, reader: EnglishReader | None = None):
        super().__init__(reader=reader)
        self.reading, self.start, self.end = reading, start, end

    def extract(self, document: DocumentInput) -> Iterator[Extraction]:
        for chunk in document.chunks:  # a chunk's offsets are into the part
            yield _extraction(chunk.chunk_id, self.reading, self.start + chunk.start, self.start + chunk.start,
                              self.start + chunk.end)


def _extraction(chunk_id: str, reading: "Reading", origin: int, lo: int, hi: int) -> Extraction:
    """The Extraction of what ``reading`` read in ``[lo, hi)``, spans made relative to ``origin``."""
    def inside(span) -> bool:
        return lo <= span.start < hi

    return Extraction(
        chunk_id, sum(1 for s in reading.sentences if inside(s)),
        tuple(ExtractedFact(f.fact, f.span.start - origin, f.span.end - origin,
                            valid=None if f.valid == Interval.always() else f.valid)
              for f in reading.facts if inside(f.span)),
        tuple(ExtractedRule(r.rule, r.span.start - origin, r.span.end - origin) for r in reading.rules if inside(r.span)),
        (),
        tuple(Skip(_REASONS.get(s.code, SkipReason.NOT_UNDERSTOOD), s.span.start - origin, s.span.end - origin,
                   f"{s.code.value}: {s.detail}" if s.detail else s.code.value) for s in reading.skips if inside(s.span)))
