"""The ingestion report (ledger plan §8.5): deterministic counts, skips, truncation, durations.

Everything in a report is a pure function of the input, the extractor and the budgets, except
``durations`` (monotonic per-phase seconds): two runs on the same input give reports that differ
only there (``to_json(durations=False)`` is byte-identical).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .extract import SkipReason


class Phase(Enum):
    """The pipeline's phases, in order (ledger plan §8.4)."""

    PLAN = "plan"
    CHUNK = "chunk"
    EXTRACT = "extract"
    VALIDATE = "validate"
    COMMIT = "commit"


class IngestLimit(Enum):
    """Which ingestion budget was hit (the document is truncated at a chunk boundary)."""

    MAX_BYTES = "maxBytes"
    MAX_CHUNKS = "maxChunks"
    MAX_FACTS_PER_CHUNK = "maxFactsPerChunk"
    DEADLINE = "deadline"


@dataclass(frozen=True, slots=True)
class SkipEntry:
    """A reported skip: reason code, chunk, **document** offsets ``[start, end)``, the text there
    (cut to 200 characters), and the extractor's detail."""

    reason: SkipReason
    chunk_id: str
    start: int
    end: int
    text: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ConsistencyReport:
    """Extraction consistency (DS005 §8): R runs, mean pairwise Jaccard over normalised facts;
    below ``threshold`` the configuration is flagged unreliable."""

    runs: int
    mean_jaccard: float
    threshold: float = 0.8

    @property
    def reliable(self) -> bool:
        return self.mean_jaccard >= self.threshold


@dataclass(frozen=True, slots=True)
class IngestionReport:
    """What one ``ingest`` did to one document.

    ``chunks``: chunks the document has; ``chunks_ingested``: those committed (fewer when
    truncated).  ``facts``/``rules``/``entities``/``evidence``: items written.  ``skipped``: every
    sentence or item not written, in document order.  ``batches``: ledger transactions used
    (one per document, or one per ``chunks_per_batch`` chunks).  ``limits_hit``: which budgets
    stopped it (empty unless ``truncated``).
    """

    doc_id: str
    at: int
    extractor: str
    extractor_version: str
    chunks: int
    chunks_ingested: int
    sentences: int
    facts: int
    rules: int
    entities: int
    evidence: int
    skipped: tuple[SkipEntry, ...] = ()
    truncated: bool = False
    limits_hit: tuple[IngestLimit, ...] = ()
    batches: int = 0
    durations: tuple[tuple[Phase, float], ...] = ()
    consistency: ConsistencyReport | None = None

    def skip_counts(self) -> dict[SkipReason, int]:
        """Skips per reason, in reason-code order."""
        out: dict[SkipReason, int] = {}
        for s in sorted(self.skipped, key=lambda s: s.reason.value):
            out[s.reason] = out.get(s.reason, 0) + 1
        return out

    def to_json(self, *, durations: bool = True) -> dict[str, Any]:
        """camelCase JSON; without ``durations`` it is identical across runs on the same input."""
        out: dict[str, Any] = {
            "docId": self.doc_id, "at": self.at, "extractor": self.extractor,
            "extractorVersion": self.extractor_version, "chunks": self.chunks,
            "chunksIngested": self.chunks_ingested, "sentences": self.sentences, "facts": self.facts,
            "rules": self.rules, "entities": self.entities, "evidence": self.evidence,
            "skipped": [{"reason": s.reason.value, "chunk": s.chunk_id, "start": s.start, "end": s.end,
                         "text": s.text, "detail": s.detail} for s in self.skipped],
            "skipCounts": {k.value: v for k, v in self.skip_counts().items()},
            "truncated": self.truncated, "limitsHit": [x.value for x in self.limits_hit],
            "batches": self.batches,
            "consistency": None if self.consistency is None else {
                "runs": self.consistency.runs, "meanJaccard": self.consistency.mean_jaccard,
                "threshold": self.consistency.threshold, "reliable": self.consistency.reliable},
        }
        if durations:
            out["durations"] = {p.value: round(s, 6) for p, s in self.durations}
        return out

    def to_json_text(self, *, durations: bool = True) -> str:
        return json.dumps(self.to_json(durations=durations), ensure_ascii=False, indent=2) + "\n"
