"""What the controlled-English reader returns: facts, rules and skips, each with its source span."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ...analysis.program import Rule
from ...core import Fact, Interval


class SkipCode(str, Enum):
    """Why a sentence produced nothing (stable codes for reports)."""

    UNPARSED = "unparsed"                 # no sentence form of the grammar matches
    BAD_CHARACTER = "bad_character"       # a character no token starts with
    NO_STATEMENT = "no_statement"         # a heading or title: read, but it states nothing
    UNSUPPORTED = "unsupported_form"      # parsed, but the reading has no meaning for it yet
    UNRESOLVED = "unresolved_reference"   # a pronoun with nothing to refer to
    TOO_LONG = "too_long"                 # longer than the reader's per-sentence budget
    AMBIGUOUS = "ambiguous"               # parses that mean different things: refused, not guessed


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """``[start, end)`` character offsets into the document text, and the sentence's ordinal."""

    start: int
    end: int
    sentence: int


@dataclass(frozen=True, slots=True)
class ReadFact:
    """A fact stated by a sentence, with where in the valid time it holds."""

    fact: Fact
    valid: Interval
    span: SourceSpan


@dataclass(frozen=True, slots=True)
class ReadRule:
    """A rule stated by a sentence ("If something is round then it is red.")."""

    rule: Rule
    span: SourceSpan


@dataclass(frozen=True, slots=True)
class ReadSkip:
    """A sentence the reader did not turn into facts or rules, and why."""

    code: SkipCode
    span: SourceSpan
    text: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Reading:
    """Everything read from one text, in document order."""

    facts: tuple[ReadFact, ...] = ()
    rules: tuple[ReadRule, ...] = ()
    skips: tuple[ReadSkip, ...] = ()
    sentences: tuple[SourceSpan, ...] = ()


def _short(t) -> str:
    from ...analysis.program import Var
    from ...core import IRI, Literal

    if isinstance(t, Var):
        return "?" + t.name
    if hasattr(t, "term"):
        t = t.term
    if isinstance(t, str):
        t = IRI(t)
    if isinstance(t, IRI):
        path, _, local = t.value.rsplit("#", 1)[-1].rpartition("/")
        return f"kind/{local}" if path.endswith("/kind") else local  # a kind entity is not the individual
    if isinstance(t, Literal):
        return t.lexical
    return str(t)


def describe_atom(predicate: str, args, negated: bool) -> str:
    """``Big(Bob)`` for a type atom, ``chases(cat, dog)`` otherwise; ``not`` for a negative one."""
    from ...core import RDF_TYPE

    if predicate == RDF_TYPE and len(args) == 2:
        text = f"{_short(args[1])}({_short(args[0])})"
    else:
        text = f"{_short(predicate)}({', '.join(_short(a) for a in args)})"
    return ("not " if negated else "") + text


def describe_fact(f: ReadFact) -> str:
    """One line for a read fact: ``not chases(cat, dog)``, plus ``@version`` when qualified."""
    q = f.fact
    text = describe_atom(q.predicate.value, (q.subject, q.object), q.polarity == "negate")
    for k, v in q.qualifiers:
        text += f" {k}={_short(v)}"
    return text


def describe_rule(r: ReadRule) -> str:
    """``Round(?x), Smart(?x) -> not Red(?x)``."""
    from ...analysis.program import Atom

    body = ", ".join(describe_atom(a.predicate, a.args, a.negated) for a in r.rule.body if isinstance(a, Atom))
    h = r.rule.head
    assert h is not None
    return f"{body} -> {describe_atom(h.predicate, h.args, h.negated)}"


def describe(reading: Reading) -> list[str]:
    """One line per fact, rule and refusal of ``reading`` (``Big(Bob)``, ``Red(?x) -> Big(?x)``,
    ``skip:unparsed``): the notation of docs/english.md and tests/ingest/english_forms.tsv."""
    return ([describe_fact(f) for f in reading.facts] + [describe_rule(r) for r in reading.rules]
            + [f"skip:{s.code.value}" for s in reading.skips])
