"""What the controlled-English interpreter passes between its parts: the references, props, frames
and context of a sentence's meaning, the exceptions that refuse a reading, and small tree helpers."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from lark import Token, Tree

from ...analysis.program import Rule, Var
from ...core import IRI, Term

DAY_MS = 86_400_000
STORY_RANK = 1_000_000  # story time = rank of its time word × this + the sentence's line number


class Unsupported(Exception):
    """The sentence parsed but this reading gives it no meaning (the message says what)."""


class Unresolved(Exception):
    """A pronoun with nothing to refer to."""


#: Predicate forms that repeat with "does" ("So does the dog."); every other one repeats with "is".
VERBAL = frozenset({"verb", "do_verb", "verbs"})


@dataclass(frozen=True, slots=True)
class Ref:
    """What a noun phrase denotes: a term (IRI or literal) or a rule variable.

    ``kind`` marks a generic reading (a bare plural or an indefinite: the class ``cls``, named by
    all its words, and ``members``, the classes a member belongs to: "big fire trucks" are Big and
    FireTruck, see :meth:`~holokb.ingest.english.meaning.Interpreter.member_classes`);
    ``types`` are classes the phrase itself asserts ("the libsandbox library" is a Library);
    ``agree`` is what a pronoun referring back to it must be: "m" (he), "f" (she), "n" (it),
    "p" (they: a bare plural), "h" (he or she: a person), "" when the phrase does not say (a name:
    the text may tell).
    """

    term: Term | Var
    kind: bool = False
    cls: IRI | None = None
    types: tuple[IRI, ...] = ()
    members: tuple[IRI, ...] = ()
    agree: str = ""


@dataclass(frozen=True, slots=True)
class Prop:
    """One atomic statement about a subject: ``predicate(subject, object)``, maybe negated."""

    subject: Term | Var
    predicate: str
    object: Term | Var
    negated: bool = False
    kind: str = ""       # the verb kind from the lexicon (move, acquire, ...), for time handling


@dataclass
class Frame:
    """Sentence-level modifiers: time, version, validity end."""

    valid_from: int | None = None
    valid_to: int | None = None
    version: str | None = None
    time_rank: int = 0          # story time words ("yesterday" < "this morning"), 0 when none


@dataclass
class Context:
    """What one sentence may use from the sentences before it (per document)."""

    date: int | None = None                       # ms of the day a dated heading names
    story_time: int | None = None                 # the sentence's story time (bAbI line number), if any
    last_subjects: tuple[Ref, ...] = ()           # for pronouns outside rules
    last_objects: tuple[Ref, ...] = ()            # the direct objects of the latest sentence that had some
    prev_objects: tuple[Ref, ...] = ()            # the direct objects of the sentence just before (maybe none)
    rule_count: int = 0
    genders: dict = field(default_factory=dict)   # term → "m"/"f"/"n" the text has given it (pronoun agreement)
    # What the latest sentence said of its last subject, for "So is the dog." / "The dog is too.": the
    # auxiliary that repeats it ("BE" or "DO") and (predicate, object, negated) per statement; () when
    # that sentence was no plain statement about a named thing.
    last_said: tuple = ()

    def copy(self) -> "Context":
        """A copy one parse of a sentence may change without touching the others'."""
        return replace(self, genders=dict(self.genders))

    def restore(self, other: "Context") -> None:
        """Take ``other``'s state (the context a chosen parse left behind)."""
        self.__dict__.update(other.copy().__dict__)

    def key(self) -> tuple:
        """What later sentences can see of this context (two parses must leave the same)."""
        return (self.date, self.story_time, self.last_subjects, self.last_objects, self.prev_objects, self.rule_count,
                tuple(sorted((str(k), v) for k, v in self.genders.items())), self.last_said)


@dataclass
class Meaning:
    """The facts (props with their frame) and rules of one sentence."""

    props: list[tuple[Prop, Frame]] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    heading: bool = False
    judgement: str | None = None   # a judgement question's key ("session valid"); props = its condition
    version: str | None = None
    ask: tuple = ()                # a wh-question: ("where", subject) / ("where_before", subject, anchor) /
                                   # ("event", asked role, ((role, term), ...)) /
                                   # ("what", subject, predicate)


def tokens_of(t: Tree | Token) -> list[Token]:
    if isinstance(t, Token):
        return [t]
    out: list[Token] = []
    for c in t.children:
        out.extend(tokens_of(c))
    return out


def kids(t: Tree, name: str) -> list[Tree]:
    return [c for c in t.children if isinstance(c, Tree) and c.data == name]


def has(t: Tree, ttype: str) -> bool:
    return any(isinstance(c, Token) and c.type == ttype for c in t.children)


def camel(words: list[str], upper_first: bool) -> str:
    parts = [w[:1].upper() + w[1:] for w in words if w]
    s = "".join(parts)
    return (s[:1].upper() if upper_first else s[:1].lower()) + s[1:]
