"""Ingestion: chunking, the Extractor protocol and its typed output, and the ingestion report."""
# The names load on first use (PEP 562): a load that only chunks documents (``holokb load``) does
# not import the extractor protocol and, through it, the rule language's analysis.
from typing import TYPE_CHECKING

from .._lazy import lazy_names

_WHERE = {
    **dict.fromkeys(["Chunk", "chunk_paragraphs"], "chunking"),
    **dict.fromkeys(["DocumentInput", "DocumentMeta", "ExtractedEntity", "ExtractedFact", "ExtractedRule",
                     "Extraction", "Extractor", "Skip", "SkipReason"], "extract"),
    **dict.fromkeys(["ConsistencyReport", "IngestionReport", "IngestLimit", "Phase", "SkipEntry"], "report"),
}

__getattr__, __dir__ = lazy_names(__name__, _WHERE)

if TYPE_CHECKING:
    from .chunking import Chunk, chunk_paragraphs
    from .extract import (
        DocumentInput, DocumentMeta, ExtractedEntity, ExtractedFact, ExtractedRule, Extraction, Extractor, Skip,
        SkipReason,
    )
    from .report import ConsistencyReport, IngestionReport, IngestLimit, Phase, SkipEntry

__all__ = [
    "Chunk", "ConsistencyReport", "DocumentInput", "DocumentMeta", "ExtractedEntity", "ExtractedFact",
    "ExtractedRule", "Extraction", "Extractor", "IngestLimit", "IngestionReport", "Phase", "Skip", "SkipEntry",
    "SkipReason", "chunk_paragraphs",
]
