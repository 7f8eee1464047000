"""Valid-time references relative to an anchor: "before the kitchen", "after the meeting".

The anchor's timeline is computed over every valid time the KB recorded (as of the question's
system time): the anchor's dependency cone is closed with ``all_valid`` (a fact that held over two
separate intervals keeps both), and the latest interval in which the anchor holds — starting at or
before the question's own valid time — decides the instant: just before its start (``BEFORE``) or
at its end (``AFTER``).  The question is then answered at that instant like any other.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis import check_program
from ..analysis.program import Program, body_atoms
from ..core.limits import Limits
from ..core.terms import IRI, Literal
from ..core.time import MAX_TIME, AsOf, Interval
from ..engine import Database, Model, closure
from ..engine.magic import dependency_cone
from ..ledger import Ledger
from ..reasoning import add_program_facts
from .plan import TimeKind
from .resolve import Goal


@dataclass(frozen=True, slots=True)
class AnchorTime:
    """The instant a relative time reference names, or why there is none."""

    instant: int | None
    reason: str = ""
    truncated: bool = False


def anchor_instant(ledger: Ledger, program: Program, anchor: Goal, kind: TimeKind, as_of: AsOf,
                   version: str | None, limits: Limits) -> AnchorTime:
    """The instant just before (``BEFORE``) or at the end of (``AFTER``) the anchor's latest interval."""
    if not isinstance(anchor.predicate, IRI):
        return AnchorTime(None, "the anchor of a time reference needs a named predicate")
    pred = anchor.predicate.value
    neg = anchor.polarity == "negate"
    model = timeline_model(ledger, program, {(pred, neg)}, as_of, version, limits)
    spans: list[Interval] = []
    for args, valid in model.rows(pred, negated=neg):
        if len(args) == 2 and _matches(anchor.subject, args[0]) and _matches(anchor.object, args[1]):
            if as_of.valid == MAX_TIME or valid.start <= as_of.valid:
                spans.append(valid)
    if not spans:
        return AnchorTime(None, "the anchor of the time reference never holds", model.truncated)
    latest = max(spans, key=lambda v: (v.start, v.end if v.end is not None else MAX_TIME))
    if kind is TimeKind.BEFORE:
        return AnchorTime(latest.start - 1, truncated=model.truncated)
    if latest.end is None:
        return AnchorTime(None, "the anchor still holds: there is no 'after' yet", model.truncated)
    return AnchorTime(latest.end, truncated=model.truncated)


def timeline_model(ledger: Ledger, program: Program, keys: set[tuple[str, bool]], as_of: AsOf,
                   version: str | None, limits: Limits) -> Model:
    """The closure of the dependency cone of ``keys`` (predicate, negated) over every valid time the
    KB recorded as of ``as_of.system``: a fact that held over separate intervals keeps each."""
    cone = dependency_cone(program.rules, keys)
    rules = tuple(program.rules[i] for i in cone)
    preds = {p for p, _ in keys} | {r.head.predicate for r in rules if r.head is not None}
    for r in rules:
        preds.update(a.predicate for a in body_atoms(r.body))
    db = Database()
    for rec in ledger.spans():
        f = rec.fact
        if f.predicate.value not in preds or not rec.system.contains(as_of.system):
            continue
        ver = next((t.lexical for k, t in f.qualifiers if k == "version" and isinstance(t, Literal)), None)
        if version is not None and ver is not None and ver != version:
            continue
        if any(k != "version" for k, _ in f.qualifiers):
            continue
        conf = max((e.confidence for e in rec.evidence), default=1.0)
        db.add(f.predicate.value, (f.subject, f.object), valid=rec.valid, key=f.id, confidence=conf,
               negated=f.polarity == "negate")
    add_program_facts(db, program)  # ground facts written in the rule files are input facts too
    sub = check_program(rules, vocabulary=program.vocabulary, prefixes=program.prefixes, facts=program.facts)
    return closure(sub, db, limits=limits)


def _matches(slot, term) -> bool:
    return slot is None or not isinstance(slot, (IRI, Literal)) or slot == term
