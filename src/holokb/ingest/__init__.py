"""Ingestion: chunking documents (extractors come later)."""
from .chunking import Chunk, chunk_paragraphs

__all__ = ["Chunk", "chunk_paragraphs"]
