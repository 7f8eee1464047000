"""The controlled-English reader (grammar/english.lark + grammar/english.toml)."""
from .extractor import EnglishExtractor
from .reader import EXTRACTOR_ID, EXTRACTOR_VERSION, EnglishReader, sentences
from .reading import ReadFact, Reading, ReadRule, ReadSkip, SkipCode, SourceSpan

__all__ = ["EXTRACTOR_ID", "EXTRACTOR_VERSION", "EnglishExtractor", "EnglishReader", "ReadFact", "ReadRule", "ReadSkip", "Reading",
           "SkipCode", "SourceSpan", "sentences"]
