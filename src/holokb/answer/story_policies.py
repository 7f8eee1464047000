"""Story semantics kb.answer applies when asked to: stated policies, switched on by data.

Each policy is a small, general rule about valid time that plain Datalog at one instant cannot
state; a reader's lexicon declares which predicates it applies to (``grammar/english.toml``
``[inertia]``, ``[functional_groups]``) and the caller passes them in :class:`AnswerOptions`.

- :class:`Inertia`: a value set at a moment persists.  ``predicate`` of a subject with no value at
  ``t`` takes the value of the latest ``since(subject, v)`` holding at or before ``t``, unless an
  ``until(?, subject)`` starts after it and by ``t`` (a dropped thing stays where it was dropped
  until someone takes it).  Several values at that latest moment are no answer.
- :class:`FunctionalGroup`: predicates that share one functional key (``maybeIn`` with
  ``locatedIn``: "either in the park or in the kitchen").  A yes/no question about the group's
  predicate whose object is one of the member's values is "maybe" (unsupported: the story gives
  alternatives); a member value set at ``t`` that does not include the object answers "No".
- ``latest_event``: a plan with conditions joins the roles of one event (``giver(?e, Bill)``,
  ``recipient(?e, Jeff)``, asked ``given(?e, ?what)``).  Events hold at their instant only, so the
  question asked later means the latest matching event at or before its instant; several matching
  events at that instant, or several values of the asked role, are no answer.
- :class:`DefaultPolicy`: a predicate a default rule can give several values (bAbI 16's induction:
  a thing has the colour a kind-mate is said to have).  A value stated of the subject itself
  (``own``) defeats the default; else, with ``prefer = "latest"``, the value of the ``mate`` whose
  link the text states last (a restatement counts).  Ties and mates with several values are no
  answer: the policy never guesses beyond what it states.  The chain cites the default ``rule``.
- :class:`ListOrder`: a list answer in value order (the default) or in the order its members
  first came to hold, up to the question's instant (``FIRST_HELD``: "What is Mary carrying?" lists
  what she took first, first).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..engine import Model


@dataclass(frozen=True, slots=True)
class Inertia:
    predicate: str
    since: str
    until: str


@dataclass(frozen=True, slots=True)
class FunctionalGroup:
    member: str
    group: str


@dataclass(frozen=True, slots=True)
class DefaultPolicy:
    predicate: str
    rule: str
    own: str
    mate: str
    prefer: str = "latest"


class ListOrder(Enum):
    VALUE = "value"
    FIRST_HELD = "first_held"


@dataclass(frozen=True, slots=True)
class StoryPolicies:
    """The policies one answer may apply (none by default)."""

    inertia: tuple[Inertia, ...] = ()
    groups: tuple[FunctionalGroup, ...] = ()
    list_order: ListOrder = ListOrder.VALUE
    latest_event: bool = False
    defaults: tuple[DefaultPolicy, ...] = ()
    #: The documents of one story in story order (a story ingested in parts, one document each): evidence
    #: in them is ordered by (document, offset), so a default's "latest" link may span the parts.
    documents: tuple[str, ...] = ()

    def default_of(self, predicate: str) -> DefaultPolicy | None:
        return next((d for d in self.defaults if d.predicate == predicate), None)

    def inertia_of(self, predicate: str) -> Inertia | None:
        return next((i for i in self.inertia if i.predicate == predicate), None)

    def members_of(self, group: str) -> tuple[str, ...]:
        return tuple(sorted(g.member for g in self.groups if g.group == group))


def held_since(model: Model, spec: Inertia, subject, t: int) -> tuple[tuple, int] | None:
    """(args, start) of the latest ``since`` fact about ``subject`` starting at or before ``t``, when
    it is the only one starting then and no ``until(?, subject)`` starts after it and by ``t``."""
    cands = [(v.start, args) for args, v in model.rows(spec.since) if args[0] == subject and v.start <= t]
    if not cands:
        return None
    start = max(s for s, _ in cands)
    latest = {a for s, a in cands if s == start}
    if len(latest) > 1:
        return None
    if any(a[1] == subject and start < v.start <= t for a, v in model.rows(spec.until)):
        return None
    return next(iter(latest)), start


@dataclass(frozen=True, slots=True)
class EventMatch:
    """The latest event matching a join's conditions: the event, its instant, the asked role's value."""

    event: object
    start: int
    value: object


def latest_event(model: Model, asked: str, conditions: list[tuple[str, object]], t: int) -> EventMatch | str:
    """The latest event at or before ``t`` whose roles match every (predicate, value) condition, with
    the one value of its ``asked`` role; or why there is none (a message)."""
    starts: dict = {}
    matched: dict = {}
    for pred, value in conditions:
        hits = {args[0]: v.start for args, v in model.rows(pred) if args[1] == value and v.start <= t}
        for e, start in hits.items():
            starts[e] = start
            matched[e] = matched.get(e, 0) + 1
    events = [e for e, n in matched.items() if n == len(conditions)]
    if not events:
        return "nothing in the KB matches the question's conditions"
    latest = max(starts[e] for e in events)
    events = [e for e in events if starts[e] == latest]
    values = {args[1] for args, v in model.rows(asked) if args[0] in events and v.start <= t}
    if len(events) != 1:
        return f"{len(events)} events match the conditions at one instant"
    if len(values) != 1:
        return "the matching event has no value for the asked role" if not values else \
            f"the matching event has {len(values)} values for the asked role"
    return EventMatch(events[0], latest, next(iter(values)))


__all__ = ["FunctionalGroup", "Inertia", "EventMatch", "ListOrder", "StoryPolicies", "held_since", "latest_event"]
