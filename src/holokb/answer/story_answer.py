"""Answer value and yes/no plans over a closed story at a valid time (bAbI: story time is valid time).

- ``AT t``: what holds at instant ``t``; ``BEFORE anchor``: what held just before the latest
  interval in which the anchor holds ("Where was the football before the kitchen?").
- Functional predicates (the lexicon's ``[functional]``) are closed per subject: another value
  holding at ``t`` answers "No" (with that fact's proof); a group member such as ``maybeIn``
  ("either … or") makes the goal's own place a "maybe" (``unsupported``) and others "No".
"""
from __future__ import annotations

from ..analysis.program import Var
from ..core import IRI, MAX_TIME, RDF_TYPE, Interval
from ..engine.model import Model
from .contract import Answer, Conflict, ConflictReason, Missing, MissingKind, Verdict
from .over_reading import StoryModel, explain_at
from .plan import AnswerForm, QueryPlan, TimeKind
from .story_defaults import default_value


def rows_at(model: Model, predicate: str, subject, t: int, *, negated: bool = False) -> list[tuple]:
    """Args of the facts of ``predicate`` about ``subject`` whose validity contains ``t``."""
    return [args for args, valid in model.rows(predicate, negated=negated)
            if args[0] == subject and valid.contains(t)]


def instant(story: StoryModel, plan: QueryPlan) -> int | None:
    """The valid-time instant a plan asks about (None: the anchor never held)."""
    tr = plan.time
    if tr is None or tr.kind is TimeKind.END:
        return MAX_TIME - 1
    if tr.kind is TimeKind.AT:
        return tr.instant
    a = tr.anchor
    pred, subj, obj = a.predicate.term.value, a.subject.term, a.object.term
    starts = [v for args, v in story.model.rows(pred) if args == (subj, obj)]
    if not starts:
        return None
    latest = max(starts, key=lambda v: v.start)
    return latest.start - 1 if tr.kind is TimeKind.BEFORE else (latest.end if latest.end is not None else None)


def answer_at(story: StoryModel, plan: QueryPlan, *, functional: dict[str, str], groups: dict[str, str],
              inertia: dict[str, tuple[str, str]] | None = None, words: dict[str, str] | None = None,
              labels: dict[str, str] | None = None, defaults: dict[str, dict] | None = None) -> Answer:
    """Answer a VALUE or YES_NO plan (constant subject; for YES_NO a constant object) at its time."""
    g = plan.goal
    words = words or {}
    t = instant(story, plan)
    if g is None or t is None:
        return _unsupported(plan, MissingKind.NO_FACTS, "the time the question refers to never occurs in the story")
    m = story.model
    if plan.answer_form is AnswerForm.PATH:
        return _path(story, plan, labels or {}, t)
    pred = g.predicate.term.value
    if plan.conditions:
        return _event_value(story, plan, t)
    if plan.answer_form is AnswerForm.VALUE and not hasattr(g.subject, "term"):
        obj = g.object.term  # "What is north of the kitchen?": the subject is asked for
        values = sorted({args[0] for args, v in m.rows(pred) if args[1] == obj and v.contains(t)}, key=str)
        if len(values) != 1:
            return _unsupported(plan, MissingKind.NO_FACTS, "nothing in the story says" if not values
                                else "the story gives several values")
        chain = explain_at(story, pred, (values[0], obj), False, t)
        return Answer(_word(values[0]), Verdict.SUPPORTED, fact_chain=chain, values=(values[0],), plan=plan)
    subj = g.subject.term
    if plan.answer_form in (AnswerForm.COUNT, AnswerForm.LIST):
        # Listed in the order the story first relates them to the subject (bAbI's set order).
        first: dict = {}
        for args, v in m.rows(pred):
            if args[0] == subj and v.start <= t:
                first[args[1]] = min(first.get(args[1], v.start), v.start)
        rows = sorted(((first[args[1]], args) for args, v in m.rows(pred) if args[0] == subj and v.contains(t)),
                      key=lambda r: (r[0], str(r[1][1])))
        chain = tuple(e for _, args in rows for e in explain_at(story, pred, args, False, t))
        if plan.answer_form is AnswerForm.COUNT:
            text = words.get(str(len(rows)), str(len(rows)))
        else:
            text = ",".join(_word(a[1]) for _, a in rows) or words.get("empty_list", "")
        return Answer(text, Verdict.SUPPORTED, fact_chain=chain, values=tuple(a[1] for _, a in rows), plan=plan)
    if plan.answer_form is AnswerForm.VALUE:
        values = sorted({args[1] for args in rows_at(m, pred, subj, t)}, key=str)
        if not values and inertia and pred in inertia:
            kept = _inertia(m, subj, t, *inertia[pred])
            if kept is not None:
                since_pred, args, at = kept
                chain = explain_at(story, since_pred, args, False, at)
                return Answer(_word(args[1]), Verdict.SUPPORTED, fact_chain=chain, values=(args[1],), plan=plan)
        if len(values) > 1 and defaults and pred in defaults:  # a default with a stated policy (bAbI 16)
            return default_value(story, plan, subj, t, defaults[pred], _class_word(m))
        if len(values) != 1:
            why = "nothing in the story says" if not values else "the story gives several values"
            return _unsupported(plan, MissingKind.NO_FACTS, why)
        chain = explain_at(story, pred, (subj, values[0]), False, t)
        return Answer(_class_word(m)(values[0]), Verdict.SUPPORTED, fact_chain=chain, values=(values[0],), plan=plan)
    obj = g.object.term
    negated = g.polarity == "negate"
    pos = (subj, obj) in rows_at(m, pred, subj, t)
    neg = (subj, obj) in rows_at(m, pred, subj, t, negated=True)
    if pos and neg:  # the story (with its rules) says both: never pick one
        a = explain_at(story, pred, (subj, obj), False, t)
        b = explain_at(story, pred, (subj, obj), True, t)
        conflict = Conflict(a[-1], b[-1], ConflictReason.POLARITY, (_word(subj), pred),
                            "the statement and its negation both follow from the story")
        return Answer(None, Verdict.CONFLICTING, fact_chain=a + b, conflicts=(conflict,), plan=plan)
    if pos or neg:
        holds = pos if not negated else neg
        chain = explain_at(story, pred, (subj, obj), not pos, t)
        return Answer("Yes" if holds else "No", Verdict.SUPPORTED, fact_chain=chain, plan=plan)
    if pred in functional:
        for member, group in sorted(groups.items()):
            if group != pred:
                continue
            maybe = rows_at(m, member, subj, t)
            if (subj, obj) in maybe:
                return _unsupported(plan, MissingKind.NOT_PROVED, "the story says it is one of several (maybe)")
            if maybe:
                chain = explain_at(story, member, maybe[0], False, t)
                return Answer("No" if not negated else "Yes", Verdict.SUPPORTED, fact_chain=chain, plan=plan)
        other = [a for a in rows_at(m, pred, subj, t) if a[1] != obj]
        if other:
            chain = explain_at(story, pred, other[0], False, t)
            return Answer("No" if not negated else "Yes", Verdict.SUPPORTED, fact_chain=chain, plan=plan)
    return _unsupported(plan, MissingKind.NOT_PROVED, "neither the statement nor its negation follows from the story")


def _event_value(story: StoryModel, plan: QueryPlan, t: int) -> Answer:
    """The goal's role of the latest event at or before ``t`` whose other roles match the conditions
    ("Who received the football?" after two givings: the later one).  Several matching events at
    that instant, or several values of the asked role, are no answer."""
    m, g = story.model, plan.goal
    if plan.answer_form is not AnswerForm.VALUE or not _event_shaped(plan):
        return _unsupported(plan, MissingKind.NOT_PROVED, "conditions are joined only on one event variable")
    starts: dict = {}  # event -> the instant its roles hold (events are instantaneous)
    matched: dict = {}
    for c in plan.conditions:
        cp, co = c.predicate.term.value, c.object.term
        hits = {args[0]: v.start for args, v in m.rows(cp) if args[1] == co and v.start <= t}
        for e, start in hits.items():
            starts[e] = start
            matched[e] = matched.get(e, 0) + 1
    events = [e for e, n in matched.items() if n == len(plan.conditions)]
    if not events:
        return _unsupported(plan, MissingKind.NO_FACTS, "nothing in the story says")
    latest = max(starts[e] for e in events)
    events = [e for e in events if starts[e] == latest]
    pred = g.predicate.term.value
    values = sorted({args[1] for args, v in m.rows(pred) if args[0] in events and v.start <= t}, key=str)
    if len(events) != 1 or len(values) != 1:
        return _unsupported(plan, MissingKind.NO_FACTS, "nothing in the story says" if not values
                            else "the story gives several values")
    e = events[0]
    chain = tuple(x for c in plan.conditions for x in explain_at(story, c.predicate.term.value, (e, c.object.term),
                                                                  False, latest)[:-1])
    chain += explain_at(story, pred, (e, values[0]), False, latest)
    return Answer(_word(values[0]), Verdict.SUPPORTED, fact_chain=chain, values=(values[0],), plan=plan)


def _event_shaped(plan: QueryPlan) -> bool:
    """Goal and conditions share one subject variable, each condition's object is a constant."""
    e = plan.goal.subject
    return hasattr(e, "name") and isinstance(plan.goal.object, Var) and all(
        c.subject == e and hasattr(c.object, "term") and hasattr(c.predicate, "term") and c.polarity == "affirm"
        for c in plan.conditions)


def _path(story: StoryModel, plan: QueryPlan, labels: dict[str, str], t: int) -> Answer:
    """The labels of the shortest chain of steps from the goal's subject to its object (the plan
    contract: an edge ``p(u, v)`` reads "from u, going p leads to v"); several different shortest
    chains are no answer."""
    m = story.model
    start, goal = plan.goal.subject.term, plan.goal.object.term
    edges: dict = {}
    for p in plan.predicates:
        pred = p.term.value
        for args, v in m.rows(pred):
            if v.contains(t):
                edges.setdefault(args[0], []).append((args[1], pred, args))
    frontier = {start: [()]}
    seen = {start}
    for _ in range(len(edges) + 1):
        nxt: dict = {}
        for u, paths in frontier.items():
            for v, pred, args in sorted(edges.get(u, ()), key=lambda e: (str(e[0]), e[1])):
                if v in seen:
                    continue
                nxt.setdefault(v, []).extend(path + ((pred, args),) for path in paths)
        if not nxt:
            break
        if goal in nxt:
            paths = {tuple(labels.get(pr, pr) for pr, _ in path): path for path in nxt[goal]}
            if len(paths) != 1:
                return _unsupported(plan, MissingKind.NOT_PROVED, "several different shortest ways")
            text, path = next(iter(paths.items()))
            chain = tuple(e for pr, args in path for e in explain_at(story, pr, args, False, t))
            return Answer(",".join(text), Verdict.SUPPORTED, fact_chain=chain, plan=plan)
        seen.update(nxt)
        frontier = nxt
    return _unsupported(plan, MissingKind.NO_FACTS, "no way from one to the other in the story")


def _inertia(m: Model, subj, t: int, since: str, until: str) -> tuple[str, tuple, int] | None:
    """The latest ``since`` fact about ``subj`` starting at or before ``t`` when no ``until`` fact
    about it (``until(?, subj)``) starts after it and at or before ``t``."""
    cands = [(v.start, args) for args, v in m.rows(since) if args[0] == subj and v.start <= t]
    if not cands:
        return None
    start, args = max(cands, key=lambda c: c[0])
    if len({a for s, a in cands if s == start}) > 1:
        return None
    if any(a[1] == subj and start < v.start <= t for a, v in m.rows(until)):
        return None
    return since, args, start


def _class_word(m: Model):
    """The answer word of a value: a class names an adjective or noun ("tired", not "Tired")."""
    classes = {args[1] for args, _ in m.rows(RDF_TYPE)}

    def word(v) -> str:
        w = _word(v)
        return w[:1].lower() + w[1:] if v in classes else w
    return word


def _unsupported(plan: QueryPlan, kind: MissingKind, message: str) -> Answer:
    return Answer(None, Verdict.UNSUPPORTED, plan=plan, missing=Missing(kind, message))


def _word(t) -> str:
    if isinstance(t, IRI):
        return t.value.rsplit("#", 1)[-1].rsplit("/", 1)[-1]
    return getattr(t, "lexical", str(t))


__all__ = ["answer_at", "explain_at", "instant", "rows_at", "Interval"]
