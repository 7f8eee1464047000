"""QueryPlan: the structured form of a question (DS005 §5.1), data only.

A plan says what to look for (``subjects``, ``predicates``, a ``goal`` pattern with variables),
under which policy ``version`` (the ``version`` qualifier of facts, DS005 §4.4), at which valid
time (``time``), in which form to answer (``form``: yes/no, a value, a count, a list, a path),
and which deterministic checks (``check``: DS005 §6.2 built-in evaluators over the goal's
bindings and the question's ``params``) decide it.  Planners (the controlled-English reader,
JSON files given with ``holokb answer --plan``, an LLM behind a gate) all produce this one type;
the answer path never sees question text.

Terms in a plan are :class:`Var` (``?x``), :class:`Const` (an IRI or a typed literal, both
``holokb.core`` terms) or :class:`Name`: a word the question used for an entity or predicate
(``"session token"``, ``"ex:expiresAfter"``), resolved against the KB's prefixes, vocabulary
and entity aliases when the question is answered.  A name that resolves to nothing makes the
answer ``unsupported`` with that name as the reason — a plan never guesses.

JSON in and out: :mod:`holokb.answer.plan_json` (``QueryPlan.from_json`` / ``to_json``).

>>> plan = QueryPlan(version="v2.0", subjects=(Name("session token"),),
...                  predicates=(Name("expires after"),),
...                  goal=Pattern(Name("expires after"), Name("session token"), Var("duration")))
>>> plan.answer_form
<AnswerForm.VALUE: 'value'>
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Protocol, Union

from ..analysis.program import CompareOp, Const, Var
from ..core.errors import InvalidValueError
from ..core.fact import Polarity
from ..core.terms import Literal

if TYPE_CHECKING:
    from ..core.errors import Diagnostic


@dataclass(frozen=True, slots=True)
class Name:
    """A word or phrase that names an entity or predicate, resolved at answer time.

    Resolution order: a prefixed name (``ex:foo``) with the KB's prefixes; a declared predicate
    or an entity alias (NFKC, case-folded, whitespace collapsed); for an object position, a
    quantity phrase such as ``15 minutes`` (DS005's object form) read as a typed literal.
    """

    text: str

    def __post_init__(self) -> None:
        t = self.text
        if not isinstance(t, str) or not t.strip():
            raise InvalidValueError("a name must be a non-empty string")
        if t.startswith(("?", "<")):
            raise InvalidValueError(f"a name cannot start with '?' or '<': {t[:40]!r}")


#: A position in a pattern: a variable, a constant term, or a name to resolve.
PlanTerm = Union[Var, Const, Name]


@dataclass(frozen=True, slots=True)
class Pattern:
    """A fact pattern (DS005's WorkSignature shape): any position may be a variable.

    ``subject``/``object`` ``None`` means "anything" (an anonymous variable).  ``polarity``
    ``negate`` asks for the explicit negative fact ("The bear is not red.").
    """

    predicate: PlanTerm
    subject: PlanTerm | None = None
    object: PlanTerm | None = None
    qualifiers: tuple[tuple[str, PlanTerm], ...] = ()
    polarity: Polarity = "affirm"

    def __post_init__(self) -> None:
        q = self.qualifiers
        if isinstance(q, dict):
            q = tuple(q.items())
        q = tuple(sorted(((str(k), v) for k, v in q), key=lambda kv: kv[0]))
        keys = [k for k, _ in q]
        if len(set(keys)) != len(keys):
            raise InvalidValueError(f"duplicate qualifier keys in {keys}")
        object.__setattr__(self, "qualifiers", q)
        if self.polarity not in ("affirm", "negate"):
            raise InvalidValueError(f"polarity must be 'affirm' or 'negate', got {self.polarity!r}")

    def variables(self) -> tuple[Var, ...]:
        """The named variables of the pattern, in position order (subject, predicate, object, qualifiers)."""
        out: list[Var] = []
        for t in (self.subject, self.predicate, self.object, *(v for _, v in self.qualifiers)):
            if isinstance(t, Var) and t not in out:
                out.append(t)
        return tuple(out)

    @property
    def ground(self) -> bool:
        """No variables and no wildcard positions."""
        return not self.variables() and self.subject is not None and self.object is not None


class AnswerForm(Enum):
    """What shape the answer text takes.

    ``YES_NO``: "Yes"/"No" for a ground goal (or a check).  ``VALUE``: the one binding of the
    goal's first variable (more than one visible value is a conflict, never a choice).
    ``COUNT``: the number of distinct bindings.  ``LIST``: all distinct bindings, sorted, joined
    by ``,`` (``nothing`` style answers are the reader's wording, not the contract's).
    ``PATH``: the labels of the shortest chain of ``predicates`` edges from the goal's subject to
    its object (bAbI "How do you go from A to B?"), joined by ``,``; an edge ``p(a, b)`` reads
    "from a, going p leads to b" (ties: predicate IRI, then node order).
    """

    YES_NO = "yesNo"
    VALUE = "value"
    COUNT = "count"
    LIST = "list"
    PATH = "path"


class World(Enum):
    """Open world: an unprovable goal is unknown (``unsupported``).  Closed world: it is false.

    Which world a predicate lives in is declared (the plan's ``world`` for this question, else
    the KB's declaration of the predicate, else open) — never guessed.
    """

    OPEN = "open"
    CLOSED = "closed"


class TimeKind(Enum):
    """Which valid time a question is about.

    ``AT``: the instant ``TimeRef.instant``.  ``END``: after everything recorded (bAbI's "at the
    end of the story": the open end of valid time).  ``BEFORE``/``AFTER``: just before the start
    / at the end of the latest valid interval in which ``TimeRef.anchor`` holds ("Where was the
    football before the bedroom?").  Without a ``time``, the question is asked at the answer
    call's ``AsOf.valid``.
    """

    AT = "at"
    END = "end"
    BEFORE = "before"
    AFTER = "after"


@dataclass(frozen=True, slots=True)
class TimeRef:
    """A valid-time reference: an instant, the end of the record, or relative to an anchor fact."""

    kind: TimeKind
    instant: int | None = None
    anchor: Pattern | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, TimeKind):
            raise InvalidValueError(f"time kind must be a TimeKind, got {self.kind!r}")
        if (self.kind is TimeKind.AT) != (self.instant is not None):
            raise InvalidValueError("an 'at' time needs an instant, and only an 'at' time has one")
        if (self.kind in (TimeKind.BEFORE, TimeKind.AFTER)) != (self.anchor is not None):
            raise InvalidValueError("'before'/'after' need an anchor pattern, and only they have one")


class TimeUnit(Enum):
    """The unit of a numeric parameter read as a duration (DS005's ``inactivityMinutes: 20``)."""

    MILLISECONDS = "milliseconds"
    SECONDS = "seconds"
    MINUTES = "minutes"
    HOURS = "hours"
    DAYS = "days"

    @property
    def ms(self) -> int:
        return _UNIT_MS[self]


_UNIT_MS = {TimeUnit.MILLISECONDS: 1, TimeUnit.SECONDS: 1000, TimeUnit.MINUTES: 60_000,
            TimeUnit.HOURS: 3_600_000, TimeUnit.DAYS: 86_400_000}


@dataclass(frozen=True, slots=True)
class Param:
    """A reference to one of the plan's ``params``; with ``unit`` a number is read as a duration."""

    name: str
    unit: TimeUnit | None = None


#: One side of a built-in comparison.
Operand = Union[Var, Const, Param]


@dataclass(frozen=True, slots=True)
class Compare:
    """``left op right``: a deterministic comparison of numbers, durations or timestamps."""

    left: Operand
    op: CompareOp
    right: Operand

    def __post_init__(self) -> None:
        if self.op not in ("=", "!=", "<", "<=", ">", ">="):
            raise InvalidValueError(f"unknown comparison {self.op!r}")


class YesWhen(Enum):
    """How a check's outcome maps to a yes/no answer: ``HOLDS`` (yes when every test holds) or
    ``FAILS`` ("is the session still valid?" is yes when the expiry test fails)."""

    HOLDS = "holds"
    FAILS = "fails"


@dataclass(frozen=True, slots=True)
class Check:
    """DS005 §6.2: built-in tests over the goal's bindings and the params, all of which must hold.

    ``derives`` names the fact the tests establish (``session_expired(session_token)``), shown as
    the derived step of the chain (its negation when the tests fail).  A test whose parameter is
    missing or whose values cannot be compared makes the answer ``unsupported``.
    """

    tests: tuple[Compare, ...]
    derives: Pattern | None = None
    yes_when: YesWhen = YesWhen.HOLDS

    def __post_init__(self) -> None:
        if not self.tests:
            raise InvalidValueError("a check needs at least one test")


@dataclass(frozen=True, slots=True)
class QueryPlan:
    """The structured question (DS005 §5.1) plus room for the reader's questions.

    ``version``: the ``version`` qualifier facts must carry (None: every version participates and
    disagreement is a conflict).  ``subjects``/``predicates``: retrieval hints.  ``goal``: the
    pattern to prove or to bind.  ``params``: the question's values (``inactivityMinutes``),
    sorted by name.  ``form``: None means yes/no for a ground goal, else a value.
    ``question``: the text the plan came from (carried into the answer; never interpreted).
    ``conditions``: further patterns the goal's variables must satisfy at the same time (a conjunctive
    question over an event's roles: "Who gave the apple to Fred?" binds ``giver(?e, ?who)`` where
    ``given(?e, apple)`` and ``recipient(?e, Fred)``).  An answer path that cannot join them refuses the
    plan rather than dropping them.
    """

    version: str | None = None
    subjects: tuple[PlanTerm, ...] = ()
    predicates: tuple[PlanTerm, ...] = ()
    goal: Pattern | None = None
    params: tuple[tuple[str, Literal], ...] = ()
    form: AnswerForm | None = None
    check: Check | None = None
    time: TimeRef | None = None
    world: World | None = None
    question: str | None = field(default=None, compare=False)
    conditions: tuple[Pattern, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "conditions", tuple(self.conditions))
        p = self.params
        if isinstance(p, dict):
            p = tuple(p.items())
        p = tuple(sorted(((str(k), v) for k, v in p), key=lambda kv: kv[0]))
        keys = [k for k, _ in p]
        if len(set(keys)) != len(keys):
            raise InvalidValueError(f"duplicate parameter names in {keys}")
        for k, v in p:
            if not isinstance(v, Literal):
                raise InvalidValueError(f"parameter {k!r} must be a Literal, got {type(v).__name__}")
        object.__setattr__(self, "params", p)
        object.__setattr__(self, "subjects", tuple(self.subjects))
        object.__setattr__(self, "predicates", tuple(self.predicates))
        if self.goal is None and self.check is None and not self.predicates:
            raise InvalidValueError("a plan needs a goal, a check or at least one predicate")

    @property
    def answer_form(self) -> AnswerForm:
        """The form asked for, or the default: yes/no for a ground goal or a check, else a value."""
        if self.form is not None:
            return self.form
        if self.check is not None or (self.goal is not None and self.goal.ground):
            return AnswerForm.YES_NO
        return AnswerForm.VALUE

    def param(self, name: str) -> Literal | None:
        """The parameter's value, or None when the question did not give it."""
        for k, v in self.params:
            if k == name:
                return v
        return None

    # JSON lives in plan_json (imported lazily: it imports this module).
    @staticmethod
    def from_json(data: "str | bytes | dict", *, source: str = "<plan>") -> "QueryPlan":
        """A plan from its JSON form; every problem is a coded diagnostic (:class:`PlanError`)."""
        from .plan_json import plan_from_json

        return plan_from_json(data, source=source)

    def to_json(self) -> dict:
        """The plan's canonical JSON form (camelCase; ``from_json(to_json(p)) == p``)."""
        from .plan_json import plan_to_json

        return plan_to_json(self)


class UnplannableReason(Enum):
    """Why a question has no plan (stable codes; the answer is ``unsupported`` with this reason)."""

    EMPTY = "empty"
    TOO_LONG = "tooLong"
    NOT_UNDERSTOOD = "notUnderstood"
    UNKNOWN_FORM = "unknownForm"
    UNKNOWN_WORD = "unknownWord"


@dataclass(frozen=True, slots=True)
class Unplannable:
    """A question the planner could not turn into a plan: the reason, a message, and where.

    ``start``/``end`` are character offsets into the question text (None when not about one place).
    """

    reason: UnplannableReason
    message: str
    start: int | None = None
    end: int | None = None
    diagnostics: "tuple[Diagnostic, ...]" = ()


class Planner(Protocol):
    """Turns question text into a :class:`QueryPlan` deterministically (DS005 §5.2).

    Implementations never raise on bad input: they return :class:`Unplannable`.  The reference
    implementation is the controlled-English reader (``grammar/``); a JSON plan file needs none.
    """

    def plan(self, question: str) -> QueryPlan | Unplannable: ...
