"""The answer contract (DS005 §7): a verdict, and the evidence that makes it auditable.

An :class:`Answer` is ``supported`` only when every claim in it is anchored: premises to ledger
facts with evidence (document, chunk, character span, and the quoted source text), derived steps
to the rule and premises that produced them, the conclusion to the chain above it.  A claim
without an anchor is stripped; when nothing remains the answer is ``unsupported``.  Disagreeing
facts give ``conflicting`` with the smallest conflicting pairs and ``text`` null.  ``unsupported``
says what was missing (:class:`Missing`).

JSON (camelCase, schema ``answer.schema.json`` in this package)::

    {"text": "No", "verdict": "supported", "chunksUsed": ["security-handbook.txt#p1"],
     "factChain": [{"factId": …, "role": "premise", "fact": {…}, "evidence": [{…, "text": "…"}]}, …],
     "supportScores": {"<factId>": 0.95}, "conflicts": [], …}

Same input and AsOf ⇒ byte-identical :meth:`Answer.to_json_text`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..core.fact import Polarity
from ..core.terms import IRI, Literal, Term
from ..core.time import MAX_TIME, MIN_TIME, AsOf, Interval
from .plan import QueryPlan


class Verdict(Enum):
    """``supported``: proved, with an anchored chain.  ``conflicting``: the KB disagrees with
    itself on what the question needs.  ``unsupported``: not proved (refuse rather than guess)."""

    SUPPORTED = "supported"
    CONFLICTING = "conflicting"
    UNSUPPORTED = "unsupported"


class ChainRole(Enum):
    """A fact-chain entry's role: an asserted ``premise``, a ``derived`` step, the ``conclusion``."""

    PREMISE = "premise"
    DERIVED = "derived"
    CONCLUSION = "conclusion"


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """One piece of evidence with the text it points at (``text`` is the chunk's ``[start, end)``)."""

    document: str
    chunk: str | None
    char_start: int | None
    char_end: int | None
    text: str | None
    extractor: str
    extractor_version: str
    confidence: float

    @property
    def chunk_ref(self) -> str | None:
        """``document#chunk``: the id ``chunksUsed`` lists (chunk ids repeat across documents)."""
        return None if self.chunk is None else f"{self.document}#{self.chunk}"


@dataclass(frozen=True, slots=True)
class ChainFact:
    """The statement of a chain entry: a fact (or its negation) and where in valid time it holds."""

    subject: Term
    predicate: IRI
    object: Term | None
    qualifiers: tuple[tuple[str, Term], ...] = ()
    polarity: Polarity = "affirm"
    valid: Interval = field(default_factory=Interval.always)


@dataclass(frozen=True, slots=True)
class ChainEntry:
    """One step of the fact chain.

    ``fact_id``: the ledger fact id for a premise; the same canonical hash (``Fact.id``) of the
    derived statement for derived steps and the conclusion.  ``evidence``: the premise's sources.
    ``rule``: the rule (or built-in evaluator, ``builtin:compare``) that produced a derived step,
    with ``rule_evidence`` when the rule itself came from a document.  ``premises``: the fact ids
    this step rests on, in rule-body order.  ``score``: the ThinkingDB path score of the step.
    """

    fact_id: str
    role: ChainRole
    fact: ChainFact
    evidence: tuple[SourceSpan, ...] = ()
    rule: str | None = None
    rule_evidence: tuple[SourceSpan, ...] = ()
    premises: tuple[str, ...] = ()
    score: float | None = None

    @property
    def anchored(self) -> bool:
        """A premise is anchored by evidence; a derived step or conclusion by its premises."""
        if self.role is ChainRole.PREMISE:
            return bool(self.evidence)
        return bool(self.premises)


class ConflictReason(Enum):
    """Why two facts conflict (DS005 §4.4): different values for the same conflict key within
    one version, an ``affirm``/``negate`` clash, or different versions giving different answers
    to a question that named no version."""

    DIFFERENT_VALUE = "differentValue"
    POLARITY = "polarity"
    VERSIONS_DISAGREE = "versionsDisagree"


@dataclass(frozen=True, slots=True)
class SolverCheck:
    """The solver's confirmation of a conflict: the backend and the unsat core (fact ids)."""

    backend: str
    core: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Conflict:
    """A smallest conflicting pair, its conflict key and the solver's confirmation."""

    fact1: ChainEntry
    fact2: ChainEntry
    reason: ConflictReason
    key: tuple[str, ...]
    message: str
    solver: SolverCheck | None = None


class MissingKind(Enum):
    """What an ``unsupported`` answer lacked (stable codes)."""

    UNPLANNABLE = "unplannable"          # the question has no plan (planner's reason in the message)
    UNKNOWN_NAME = "unknownName"         # a name in the plan resolves to no entity, predicate or value
    NO_FACTS = "noFacts"                 # nothing in the KB matches the goal or predicates
    NO_VERSION = "noVersion"             # facts exist, but none of the version asked for
    MISSING_PARAMETER = "missingParameter"  # a check needs a parameter the question did not give
    INCOMPARABLE = "incomparable"        # a check compares values of different kinds
    NOT_PROVED = "notProved"             # open world: neither the goal nor its negation is proved
    NO_ANCHOR = "noAnchor"               # claims without evidence were stripped and nothing remained
    BUDGET = "budget"                    # a budget stopped the search before an answer was proved


@dataclass(frozen=True, slots=True)
class Missing:
    """Why an answer is ``unsupported``: a kind, a message, and the name or parameter at fault."""

    kind: MissingKind
    message: str
    detail: str | None = None


class AnswerLimit(Enum):
    """Which budget cut an answer short (typed, never a free string)."""

    MAX_FACTS = "maxFacts"
    MAX_CHUNKS = "maxChunks"
    MAX_DEPTH = "maxDepth"
    MAX_DERIVED = "maxDerived"
    DEADLINE = "deadline"
    SOLVER = "solver"


@dataclass(frozen=True, slots=True)
class Answer:
    """A verdict with its evidence chain (DS005 §7).

    ``values``: the typed answer values behind ``text`` (one for a value, all for a list, none
    for yes/no).  ``missing``: set exactly when the verdict is ``unsupported``.
    """

    text: str | None
    verdict: Verdict
    chunks_used: tuple[str, ...] = ()
    fact_chain: tuple[ChainEntry, ...] = ()
    support_scores: tuple[tuple[str, float], ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    missing: Missing | None = None
    values: tuple[Term, ...] = ()
    plan: QueryPlan | None = None
    as_of: AsOf | None = None
    truncated: bool = False
    limit_hit: AnswerLimit | None = None

    def __post_init__(self) -> None:
        if (self.verdict is Verdict.UNSUPPORTED) != (self.missing is not None):
            raise ValueError("an answer says what was missing exactly when it is unsupported")
        if self.verdict is not Verdict.SUPPORTED and self.text is not None:
            raise ValueError("only a supported answer has text")
        if self.verdict is Verdict.CONFLICTING and not self.conflicts:
            raise ValueError("a conflicting answer lists its conflicts")

    @property
    def supported(self) -> bool:
        return self.verdict is Verdict.SUPPORTED

    def to_json(self) -> dict:
        """The camelCase contract (DS005 §7) plus ``reason``, ``values``, ``plan``, ``asOf``, ``truncated``."""
        from .contract_json import answer_to_json

        return answer_to_json(self)

    def to_json_text(self) -> str:
        """Canonical JSON text: fixed key order, no NaN, UTF-8 kept, one trailing newline."""
        return json.dumps(self.to_json(), ensure_ascii=False, allow_nan=False, indent=2) + "\n"


def interval_json(iv: Interval) -> dict[str, Any]:
    """``{"from": ms | null, "to": ms | null}`` — null for an open end."""
    return {"from": None if iv.start == MIN_TIME else iv.start, "to": iv.end}


def term_json(t: Term) -> dict[str, Any]:
    """SPARQL-JSON style term: ``{"type": "uri", "value": …}`` or a typed literal."""
    if isinstance(t, IRI):
        return {"type": "uri", "value": t.value}
    assert isinstance(t, Literal)
    d: dict[str, Any] = {"type": "literal", "value": t.lexical, "datatype": t.datatype}
    if t.lang:
        d["lang"] = t.lang
    return d


def as_of_json(a: AsOf) -> dict[str, Any]:
    """``{"system": ms | "latest", "valid": ms | "latest"}``."""
    return {"system": "latest" if a.system == MAX_TIME else a.system,
            "valid": "latest" if a.valid == MAX_TIME else a.valid}
