"""The work a request asks for, as data (jobs), and the replies a worker sends back.

Jobs cross a process boundary (pickled), so they are plain frozen dataclasses; a worker turns one
into a :class:`Reply` — status, media type, body bytes — so results are serialised where they were
computed and the server process only copies bytes.  Errors come back as a :class:`Problem`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..core import AsOf
from .errors import Problem


@dataclass(frozen=True, slots=True)
class SparqlQuery:
    """A SPARQL query over the snapshot at ``as_of`` or (``ledger_view``) the reified ledger."""

    text: str
    as_of: AsOf
    format: str  # serialiser key chosen by negotiation
    media_type: str
    ledger_view: bool = False
    default_graphs: tuple[str, ...] | None = None  # protocol dataset: None = the store's own
    named_graphs: tuple[str, ...] | None = None
    base_iri: str | None = None
    max_rows: int | None = None
    budget_s: float | None = None


@dataclass(frozen=True, slots=True)
class SparqlUpdate:
    """A SPARQL Update applied to the asserted triples as one ledger batch at system time ``at``."""

    text: str
    at: int
    using_graphs: tuple[str, ...] = ()
    using_named_graphs: tuple[str, ...] = ()
    base_iri: str | None = None


@dataclass(frozen=True, slots=True)
class FactsRead:
    about: str | None
    predicate: str | None
    as_of: AsOf
    limit: int
    derived: bool = False


@dataclass(frozen=True, slots=True)
class HistoryRead:
    subject: str
    predicate: str
    limit: int


@dataclass(frozen=True, slots=True)
class AskQuery:
    query: str
    as_of: AsOf
    budget_s: float | None = None


@dataclass(frozen=True, slots=True)
class ExplainFact:
    fact: str
    as_of: AsOf
    max_depth: int | None = None
    budget_s: float | None = None


@dataclass(frozen=True, slots=True)
class StatsRead:
    pass


@dataclass(frozen=True, slots=True)
class LoadFiles:
    """Files sent in one request, loaded as one gated, all-or-nothing batch at ``at``."""

    files: tuple[tuple[str, bytes], ...]  # (safe base name, content)
    at: int


@dataclass(frozen=True, slots=True)
class AnswerQuestion:
    """A question in English, or a QueryPlan as JSON text (``plan``), answered at ``as_of``."""

    question: str | None
    plan: str | None
    as_of: AsOf
    budget_s: float | None = None


@dataclass(frozen=True, slots=True)
class IngestText:
    """One text document read into facts with evidence, as one batch at ``at``."""

    text: bytes
    doc_id: str
    at: int
    version: str | None = None


Job = (SparqlQuery | SparqlUpdate | FactsRead | HistoryRead | AskQuery | ExplainFact | StatsRead | LoadFiles
       | AnswerQuestion | IngestText)


@dataclass(frozen=True, slots=True)
class Reply:
    """A finished job: HTTP status, media type and body; ``note`` goes to the access log."""

    status: int
    media_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    note: str = ""


#: What a worker sends back for a job: the reply, or the problem that stopped it.
Outcome = Reply | Problem
