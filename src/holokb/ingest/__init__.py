"""Ingestion: chunking, the Extractor protocol and its typed output, and the ingestion report."""
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
