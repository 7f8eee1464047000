"""Shared types: terms, facts, time, budgets, diagnostics.  Imports nothing else of holokb (but the
package's lazy-name helper, ``holokb._lazy``)."""
# The names are loaded from their modules on first use (PEP 562), so importing one module of
# the package (``holokb.core.terms``) does not load the rest: a warm ``holokb query`` needs
# terms, time, limits and errors, not facts or premises.
from typing import TYPE_CHECKING

from .._lazy import lazy_names

_WHERE = {
    **dict.fromkeys(['DataSyntaxError', 'Diagnostic', 'DiagnosticError', 'EvidenceError', 'HolokbError', 'InvalidValueError', 'LedgerError', 'LedgerTooNewError', 'Location', 'ProposalRejected', 'RetractionError', 'RuleAnalysisError', 'RuleSyntaxError', 'SchemaVersionError', 'ShapeViolationError', 'SolverError', 'SystemTimeError', 'WriterBusyError'], 'errors'),
    **dict.fromkeys(['Evidence', 'Fact', 'Polarity', 'SpanRecord', 'alias_key', 'encode_term', 'normalize_text'], 'fact'),
    **dict.fromkeys(['Deadline', 'LimitHit', 'Limits', 'Page'], 'limits'),
    **dict.fromkeys(['AssertedRef', 'DerivedRef', 'InputRef', 'PremiseRef', 'RuleFileRef'], 'premises'),
    **dict.fromkeys(['DateTimeValue', 'DateValue', 'HK', 'IRI', 'Literal', 'OWL', 'RDF', 'RDFS', 'RDF_TYPE', 'Term', 'XSD', 'term_sort_key'], 'terms'),
    **dict.fromkeys(['AsOf', 'Duration', 'Interval', 'MAX_TIME', 'MIN_TIME', 'format_ms', 'parse_duration', 'parse_instant'], 'time'),
}


__getattr__, __dir__ = lazy_names(__name__, _WHERE)

if TYPE_CHECKING:  # what type checkers and readers see: the same names, imported eagerly
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
