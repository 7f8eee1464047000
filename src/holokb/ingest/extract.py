"""The Extractor protocol: chunks of a document in, typed facts, rules and skips out.

Every extractor — the controlled-English reader (``grammar/``), the LLM extractor, the Context
Unit importer — implements :class:`Extractor`.  The ingestion pipeline (:mod:`holokb.ingest.pipeline`)
owns chunking, budgets, validation gates common to all extractors, evidence and the ledger
batch; an extractor only reads.

Contract (what the pipeline relies on):

- ``extract(document)`` yields exactly one :class:`Extraction` per chunk of
  ``document.chunks``, in order, lazily (the pipeline stops pulling at a budget, so truncation
  falls on a chunk boundary).  State may carry across the chunks of one document (coreference:
  "Then he went…"), never across documents.
- Pure and deterministic: no network unless the extractor *is* a network client (the LLM one,
  whose recorded-response client makes it deterministic in tests), no clock, no randomness.
- Spans are character offsets ``[start, end)`` **into the chunk text** (the evidence
  convention of the ledger), covering the sentence or clause the item was read from.
- Never raises on bad text: what it cannot read becomes a :class:`Skip` with a stable
  :class:`SkipReason` and the span.  Raising is for misconfiguration only.
- Facts are :class:`holokb.core.Fact` (IRIs minted by the extractor's own naming, qualifiers such
  as ``version`` included, polarity ``negate`` for "The bear is not red.").  A fact's ``valid``
  interval is None for "the document's valid time" (``DocumentMeta.valid``), or an explicit
  interval (story time: bAbI sentence *i* holds from instant *i*).
- Rules are holokb's rule IR (:class:`holokb.analysis.program.Rule`), not text: the reader builds
  them directly (no second parse, no quoting problems), and the pipeline renders them with
  :func:`holokb.analysis.render.rule_text` into the ledger so they carry evidence and time like
  facts.  Rule names must be unique within a document (``s3`` for the sentence index is fine:
  the pipeline qualifies them with the document id).  Predicates are full IRI strings.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Iterator, Mapping, Protocol

from ..analysis.program import PredicateDecl, Rule
from ..core.errors import InvalidValueError
from ..core.fact import Fact
from ..core.terms import IRI
from ..core.time import Interval
from .chunking import Chunk


class SkipReason(Enum):
    """Why a sentence or extracted item did not become a fact or rule (stable report codes)."""

    NOT_UNDERSTOOD = "notUnderstood"          # the reader has no reading for the sentence
    SENTENCE_TOO_LONG = "sentenceTooLong"     # longer than the reader's sentence budget
    UNKNOWN_PREDICATE = "unknownPredicate"    # outside the declared predicate vocabulary
    SCHEMA = "schema"                         # extractor output that is not the expected shape (LLM JSON)
    SUBJECT_NOT_IN_SPAN = "subjectNotInSpan"  # span gate: the subject (or an alias) is not in the span
    NUMBER_NOT_VERBATIM = "numberNotVerbatim"  # span gate: a numeric object does not occur verbatim
    POLARITY_MISMATCH = "polarityMismatch"    # span gate: negation words disagree with the polarity
    SPAN_OUTSIDE_CHUNK = "spanOutsideChunk"   # the span does not lie inside the chunk
    INVALID_VALUE = "invalidValue"            # a value that cannot enter the KB (bad IRI, NaN, …)
    INCOMPLETE_UNIT = "incompleteUnit"        # a Context Unit with some of Subject/Relation/Object
    RULE_REJECTED = "ruleRejected"            # a rule the analysis refuses (unsafe, unstratifiable)
    FACT_BUDGET = "factBudget"                # beyond maxFactsPerChunk
    EXTRACTOR_ERROR = "extractorError"        # the extractor's backend failed (LLM transport error)


@dataclass(frozen=True, slots=True)
class DocumentMeta:
    """What the caller says about a document: its policy ``version`` (copied into facts'
    ``version`` qualifier by extractors that read versions from metadata), its default valid time,
    and where it came from (a file path, for messages)."""

    version: str | None = None
    valid: Interval = field(default_factory=Interval.always)
    source: str | None = None


@dataclass(frozen=True, slots=True)
class DocumentInput:
    """A document as the pipeline hands it to an extractor: text, its chunks, its metadata."""

    doc_id: str
    text: str
    chunks: tuple[Chunk, ...]
    meta: DocumentMeta = field(default_factory=DocumentMeta)

    def chunk_text(self, chunk: Chunk) -> str:
        return self.text[chunk.start:chunk.end]


@dataclass(frozen=True, slots=True)
class ExtractedFact:
    """A fact read from ``[start, end)`` of the chunk, with the extractor's confidence."""

    fact: Fact
    start: int
    end: int
    confidence: float = 1.0
    valid: Interval | None = None

    def __post_init__(self) -> None:
        _check_span(self.start, self.end)
        _check_confidence(self.confidence)


@dataclass(frozen=True, slots=True)
class ExtractedRule:
    """A rule read from ``[start, end)`` of the chunk ("Round people are young.")."""

    rule: Rule
    start: int
    end: int
    confidence: float = 1.0
    valid: Interval | None = None

    def __post_init__(self) -> None:
        _check_span(self.start, self.end)
        _check_confidence(self.confidence)


@dataclass(frozen=True, slots=True)
class ExtractedEntity:
    """An entity the text names, with the surface forms to find it by (alias lookup)."""

    iri: IRI
    aliases: tuple[str, ...] = ()
    kind: str = ""


@dataclass(frozen=True, slots=True)
class Skip:
    """Something not read: the reason, the chunk-relative span, and a short detail for people."""

    reason: SkipReason
    start: int
    end: int
    detail: str = ""

    def __post_init__(self) -> None:
        _check_span(self.start, self.end)


@dataclass(frozen=True, slots=True)
class Extraction:
    """What one chunk yielded: counts of sentences seen, and facts, rules, entities, skips in
    text order.  ``sentences`` counts every sentence the extractor looked at (read or skipped)."""

    chunk_id: str
    sentences: int = 0
    facts: tuple[ExtractedFact, ...] = ()
    rules: tuple[ExtractedRule, ...] = ()
    entities: tuple[ExtractedEntity, ...] = ()
    skipped: tuple[Skip, ...] = ()


class Extractor(Protocol):
    """Reads the chunks of a document (see the module docstring for the contract).

    ``id`` and ``version`` go into every piece of evidence; ``vocabulary`` (predicate IRI →
    declaration, with arity and ``functional``) is what the extractor may emit — the pipeline
    declares it in the ledger (so functional predicates supersede) and drops any fact outside it
    (``UNKNOWN_PREDICATE``).  An empty mapping means an open vocabulary.
    """

    @property
    def id(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def vocabulary(self) -> Mapping[str, PredicateDecl]: ...

    def extract(self, document: DocumentInput) -> Iterator[Extraction]: ...


def _check_span(start: int, end: int) -> None:
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end):
        raise InvalidValueError(f"bad character span [{start}, {end})")


def _check_confidence(c: float) -> None:
    if not isinstance(c, (int, float)) or c != c or not 0.0 <= float(c) <= 1.0:
        raise InvalidValueError(f"confidence must be in [0, 1], got {c!r}")
