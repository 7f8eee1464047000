"""Error hierarchy and structured diagnostics.

Every error holokb raises derives from :class:`HolokbError`.  Errors that are about
user input carry a tuple of :class:`Diagnostic` (collected, never flattened into one
string), each with a stable code and, where known, a source :class:`Location`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal as _Lit

Severity = _Lit["error", "warning", "note"]


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a source file: 1-based line and column, optional end."""

    file: str | None
    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None

    def __str__(self) -> str:
        return f"{self.file or '<input>'}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: a stable code (e.g. ``HK101``), a message, where, and a hint."""

    code: str
    message: str
    location: Location | None = None
    hint: str | None = None
    severity: Severity = "error"
    source_line: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def render(self) -> str:
        """Render as ``file:line:col: error[CODE]: message`` plus source line and caret."""
        where = f"{self.location}: " if self.location else ""
        out = [f"{where}{self.severity}[{self.code}]: {self.message}"]
        if self.source_line is not None and self.location is not None:
            out.append(f"    {self.source_line.rstrip()}")
            width = 1
            if self.location.end_line == self.location.line and self.location.end_column:
                width = max(1, self.location.end_column - self.location.column)
            out.append("    " + " " * (self.location.column - 1) + "^" * width)
        for n in self.notes:
            out.append(f"  note: {n}")
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)


class HolokbError(Exception):
    """Root of every error holokb raises on purpose."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = ()):
        super().__init__(message)
        self.message = message
        self.diagnostics = tuple(diagnostics)

    def render(self) -> str:
        if not self.diagnostics:
            return self.message
        return "\n".join(d.render() for d in self.diagnostics)


class InvalidValueError(HolokbError, ValueError):
    """A value that cannot enter the KB (NaN, a bad IRI, a confidence outside [0, 1], ...)."""


class DiagnosticError(HolokbError):
    """Input was rejected with one or more diagnostics."""


class RuleSyntaxError(DiagnosticError, SyntaxError):
    """A rule file does not parse.  Also a :class:`SyntaxError` so editors show the caret."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = ()):
        DiagnosticError.__init__(self, message, diagnostics)
        first = diagnostics[0] if diagnostics else None
        self.msg = message
        self.args = (message,)
        if first and first.location:
            self.filename = first.location.file
            self.lineno = first.location.line
            self.offset = first.location.column
            self.text = first.source_line
        else:
            self.filename = self.lineno = self.offset = self.text = None

    def __str__(self) -> str:
        return self.render()


class RuleAnalysisError(DiagnosticError):
    """A rule program parses but is unsafe, unstratifiable, ill-typed, ..."""


class DataSyntaxError(DiagnosticError, SyntaxError):
    """An RDF file (Turtle, TriG, N-Triples, N-Quads) does not parse."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = ()):
        DiagnosticError.__init__(self, message, diagnostics)
        first = diagnostics[0] if diagnostics else None
        self.msg = message
        self.args = (message,)
        if first and first.location:
            self.filename = first.location.file
            self.lineno = first.location.line
            self.offset = first.location.column
        else:
            self.filename = self.lineno = self.offset = None
        self.text = None

    def __str__(self) -> str:
        return self.render()


class ShapeViolationError(DiagnosticError):
    """A write batch was rejected by the SHACL gate; ``report`` holds the details."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = (), report: object = None):
        super().__init__(message, diagnostics)
        self.report = report


class LedgerError(HolokbError):
    """A ledger operation that cannot be carried out (and changed nothing)."""


class RetractionError(LedgerError):
    """Retracting at or before a span's ``system_from``, or a fact that is not there."""


class SystemTimeError(LedgerError):
    """A write at a system time before the ledger's latest committed write (history is append-only)."""


class EvidenceError(LedgerError):
    """Evidence that names a chunk its stored document does not have, or a span outside the text.

    ``document``/``chunk``: the refused evidence's, so that a loader can point at the annotation
    triples that wrote it."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = (), *,
                 document: str | None = None, chunk: str | None = None):
        super().__init__(message, diagnostics)
        self.document, self.chunk = document, chunk


class SchemaVersionError(LedgerError):
    """The ledger file is newer than this holokb, or not a holokb ledger at all."""


class LedgerTooNewError(SchemaVersionError):
    """The ledger file was written by a newer holokb (its schema version is ahead of this one)."""


class WriterBusyError(LedgerError):
    """Another writer held the ledger for longer than the timeout."""


class SolverError(HolokbError):
    """A solver backend failed or is not installed."""


class ProposalRejected(DiagnosticError):
    """A FormalProposal failed a gate; ``gate`` names which."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = (), gate: str = ""):
        super().__init__(message, diagnostics)
        self.gate = gate
