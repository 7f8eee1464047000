"""Shared types: terms, facts, time, budgets, diagnostics.  Imports nothing else of holokb."""
from .errors import (
    DataSyntaxError, Diagnostic, DiagnosticError, HolokbError, InvalidValueError, LedgerError, LedgerTooNewError,
    Location, ProposalRejected, RetractionError, RuleAnalysisError, RuleSyntaxError,
    SchemaVersionError, ShapeViolationError, SolverError, SystemTimeError, EvidenceError, WriterBusyError,
)
from .fact import Evidence, Fact, Polarity, SpanRecord, alias_key, encode_term, normalize_text
from .limits import Deadline, LimitHit, Limits, Page
from .premises import AssertedRef, DerivedRef, InputRef, PremiseRef, RuleFileRef
from .terms import (
    HK, IRI, OWL, RDF, RDF_TYPE, RDFS, XSD, DateTimeValue, DateValue, Literal, Term, term_sort_key,
)
from .time import MAX_TIME, MIN_TIME, AsOf, Duration, Interval, format_ms, parse_duration, parse_instant

__all__ = [
    "AssertedRef", "AsOf", "DataSyntaxError", "DerivedRef", "InputRef", "LimitHit", "PremiseRef", "RuleFileRef", "DateTimeValue", "DateValue", "Deadline", "Diagnostic",
    "DiagnosticError", "Duration", "Evidence", "Fact", "HK", "HolokbError", "IRI", "Interval",
    "InvalidValueError", "LedgerError", "LedgerTooNewError", "Limits", "Literal", "Location", "MAX_TIME", "MIN_TIME",
    "OWL", "Page", "Polarity", "ProposalRejected", "RDF", "RDFS", "RDF_TYPE", "RetractionError",
    "RuleAnalysisError", "RuleSyntaxError", "SchemaVersionError", "ShapeViolationError",
    "SolverError", "SpanRecord", "SystemTimeError", "EvidenceError", "Term", "WriterBusyError", "XSD", "alias_key", "encode_term",
    "format_ms", "normalize_text", "parse_duration", "parse_instant", "term_sort_key",
]
