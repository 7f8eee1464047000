"""The controlled-English reader behind the :class:`~holokb.ingest.extract.Extractor` protocol."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, Mapping, Sequence

from ...analysis.program import PredicateDecl
from ...core import Interval
from ..extract import DocumentInput, ExtractedFact, ExtractedRule, Extraction, Skip, SkipReason
from .meaning import Context
from .reader import EXTRACTOR_ID, EXTRACTOR_VERSION, EnglishReader
from .reading import SkipCode

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
            yield Extraction(
                chunk.chunk_id, len(reading.sentences),
                tuple(ExtractedFact(f.fact, f.span.start, f.span.end,
                                    valid=None if f.valid == Interval.always() else f.valid)
                      for f in reading.facts),
                tuple(ExtractedRule(r.rule, r.span.start, r.span.end) for r in reading.rules),
                (),
                tuple(Skip(_REASONS.get(s.code, SkipReason.NOT_UNDERSTOOD), s.span.start, s.span.end,
                           f"{s.code.value}: {s.detail}" if s.detail else s.code.value) for s in reading.skips))
