"""The story semantics of :class:`~.answering.Answerer`, applied when :class:`~.story_policies.StoryPolicies`
says so (inertia, functional groups live in the answer forms; these are the steps that need
more than the question's instant): a value carried forward, an event join, a list's order, a
default value, and the one shortest path.  A mixin, so that answering.py stays one readable piece."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..analysis.program import Var
from ..core.limits import Limits
from ..core.terms import IRI, Literal, Term, term_sort_key
from ..core.time import AsOf
from .chain import INERTIA, derived_entry
from .contract import AnswerLimit, ChainEntry, ChainRole, MissingKind
from .plan import AnswerForm
from .refusal import Refuse
from .resolve import Goal
from .story_policies import DefaultPolicy, held_since, latest_event
from .timeline import timeline_model


class StoryForms:
    """Answer steps over a story's valid time (mixed into :class:`~.answering.Answerer`)."""

    def _timeline(self, run, keys: set[tuple[str, bool]]):
        """The closure of ``keys``' cone over every valid time (for steps that look back)."""
        o = self.options  # type: ignore[attr-defined]
        model = timeline_model(self.ledger, run.program, keys, run.as_of, run.plan.version,  # type: ignore[attr-defined]
                               Limits(max_derived=o.max_derived, max_results=None, timeout_s=o.timeout_s))
        if model.truncated:
            raise Refuse(MissingKind.BUDGET, "a budget cut the story's timeline", limit=AnswerLimit.MAX_DERIVED)
        return model

    def _event_join(self, run, quoter, rule_views, goal: Goal | None, conditions: list[Goal]):
        """A VALUE plan whose goal asks one role of an event the conditions name by its other roles:
        the latest matching event at or before the question's instant (policy ``latest_event``)."""
        e = goal.subject if goal is not None else None
        shaped = (goal is not None and isinstance(e, Var) and isinstance(goal.object, Var)
                  and isinstance(goal.predicate, IRI) and run.plan.answer_form is AnswerForm.VALUE
                  and all(c.subject == e and isinstance(c.predicate, IRI) and isinstance(c.object, (IRI, Literal))
                          and c.polarity == "affirm" for c in conditions))
        if not shaped or not self.options.policies.latest_event:
            raise Refuse(MissingKind.UNPLANNABLE, "conditions are answered only as one event's roles, with the "
                                                   "latest_event policy")
        assert goal is not None and isinstance(goal.predicate, IRI)
        conds = [(c.predicate.value, c.object) for c in conditions]  # type: ignore[union-attr]
        timeline = self._timeline(run, {(p, False) for p, _ in conds} | {(goal.predicate.value, False)})
        found = latest_event(timeline, goal.predicate.value, conds, run.as_of.valid)
        if isinstance(found, str):
            raise Refuse(MissingKind.NO_FACTS, found)
        at = AsOf(run.as_of.system, found.start)
        chain: list[ChainEntry] = []
        deciding: list[ChainEntry] = []
        for pred, value in conds + [(goal.predicate.value, found.value)]:
            sub, _ = self._sub_run(run, pred, found.event, at)
            if sub.model is None or not sub.model.contains(pred, (found.event, value)):
                raise Refuse(MissingKind.NOT_PROVED, f"{pred} of the event does not hold at its instant")
            entries = self._entries(sub, quoter, rule_views, pred, (found.event, value), False)
            run.views.update(sub.views)
            chain += [x for x in entries if x.fact_id not in {c.fact_id for c in chain}]
            deciding.append(entries[-1])
        score = min((d.score for d in deciding if d.score is not None), default=1.0)
        return self._finish(run, quoter, chain, deciding, self._label(found.value), score, (found.value,), None,
                            frozenset())


    def _first_held(self, run, goal: Goal, goal_preds: tuple[IRI, ...]) -> dict[tuple[str, tuple], int]:
        """(predicate, args) -> the first instant, at or before the question's, at which it held."""
        timeline = self._timeline(run, {(p.value, goal.polarity == "negate") for p in goal_preds})
        first: dict[tuple[str, tuple], int] = {}
        for p in goal_preds:
            for args, valid in timeline.rows(p.value, negated=goal.polarity == "negate"):
                if valid.start <= run.as_of.valid:
                    key = (p.value, tuple(args))
                    first[key] = min(first.get(key, valid.start), valid.start)
        return first


    def _sub_run(self, run, predicate: str, subject, as_of: AsOf) -> tuple[Any, Goal]:
        """A second derivation for ``predicate(subject, ?value)`` at ``as_of`` (a policy's premise)."""
        sub = replace(run, as_of=as_of, views={}, rules=(), model=None, truncated=False, limit=None)
        g = Goal(IRI(predicate), subject, Var("value"), (), "affirm")
        self._derive(sub, g, (IRI(predicate),), (), (subject,))
        if sub.truncated:
            run.truncated, run.limit = True, run.limit or sub.limit
        return sub, g


    def _inertia(self, run, quoter, rule_views, goal: Goal):
        """The goal's value carried forward from the moment it was set (:class:`~.story_policies.Inertia`),
        or None when the policy does not apply or gives nothing."""
        pred = goal.predicate
        spec = self.options.policies.inertia_of(pred.value) if isinstance(pred, IRI) else None
        if spec is None or not isinstance(goal.subject, (IRI, Literal)):
            return None
        timeline = self._timeline(run, {(spec.since, False), (spec.until, False)})
        found = held_since(timeline, spec, goal.subject, run.as_of.valid)
        if found is None:
            return None
        args, start = found
        sub, _ = self._sub_run(run, spec.since, goal.subject, AsOf(run.as_of.system, start))
        if sub.model is None or not sub.model.contains(spec.since, args):
            return None
        entries = self._entries(sub, quoter, rule_views, spec.since, args, False)
        run.views.update(sub.views)
        step = derived_entry(goal.subject, pred, args[1], False, INERTIA, (entries[-1],),  # type: ignore[arg-type]
                             entries[-1].score or 1.0)
        return self._finish(run, quoter, entries + [step], [step], self._label(args[1]), step.score or 1.0,
                            (args[1],), goal, frozenset({pred.value}))


    def _shortest_steps(self, edges: dict[Term, list[tuple[IRI, Term]]], start: Term,
                        end: Term) -> list[tuple[Term, IRI, Term]]:
        """The steps of the one shortest way from ``start`` to ``end`` (breadth first, layer by
        layer).  Shortest ways whose step labels differ are no answer: picking one would be a guess
        (ways through different nodes with the same labels are one answer)."""
        ways: dict[Term, dict[tuple[str, ...], list]] = {start: {(): []}}  # node -> labels -> one way's steps
        seen = {start}
        frontier = [start]
        while frontier and end not in ways:
            nxt: dict[Term, dict[tuple[str, ...], list]] = {}
            for node in frontier:
                for p, to in sorted(edges.get(node, []), key=lambda e: (e[0].value, term_sort_key(e[1]))):
                    if to in seen:
                        continue
                    at = nxt.setdefault(to, {})
                    for labels, steps in ways[node].items():
                        if len(at) < 2:  # two different label sequences already decide "several"
                            at.setdefault(labels + (p.value,), steps + [(node, p, to)])
            seen.update(nxt)
            ways.update(nxt)
            frontier = sorted(nxt, key=term_sort_key)
        if end not in ways:
            raise Refuse(MissingKind.NOT_PROVED, f"no path from {self._label(start)} to {self._label(end)}")
        if len(ways[end]) > 1:
            raise Refuse(MissingKind.NOT_PROVED, f"several different shortest ways from {self._label(start)} to "
                                                  f"{self._label(end)}: none is the answer")
        return next(iter(ways[end].values()))

    def _story_position(self, span) -> tuple:
        """Where a span sits in the story: (ordered across chunks?, its chunk, offset); a chunk of one of the story's documents
        (policy ``documents``, in story order) is named by the document's place, so spans in different
        parts of one story compare."""
        docs = self.options.policies.documents  # type: ignore[attr-defined]
        if span.document in docs and span.chunk == "p0":  # a story part is one paragraph (no blank line)
            return (True, docs.index(span.document), span.char_start)
        return (False, span.chunk_ref or "", span.char_start)

    def _default_value(self, run, quoter, rule_views, goal: Goal, spec: DefaultPolicy):
        """A predicate with several values under a default rule (:class:`~.story_policies.DefaultPolicy`):
        a value stated of the subject itself (``own``) wins; else, with ``prefer = "latest"``, the
        value of the ``mate`` whose link the story states last (its latest premise sentence; a
        restatement counts).  A tie, a mate with several values, or no mate with a value: None."""
        subj, pred = goal.subject, goal.predicate
        assert isinstance(pred, IRI)

        def values(p: str, s) -> tuple[Any, list]:
            sub, g = self._sub_run(run, p, s, run.as_of)
            return sub, [a for a, _ in self._solutions(sub, g, IRI(p), False)]  # type: ignore[attr-defined]

        def proof(sub, p: str, args) -> list[ChainEntry]:
            run.views.update(sub.views)
            return self._entries(sub, quoter, rule_views, p, args, False)  # type: ignore[attr-defined]

        sub, own = values(spec.own, subj)
        if own:
            if len(own) != 1:
                return None
            entries = proof(sub, spec.own, own[0])
            return self._finish(run, quoter, entries, [entries[-1]], self._label(own[0][1]),  # type: ignore[attr-defined]
                                entries[-1].score or 1.0, (own[0][1],), goal, frozenset())
        if spec.prefer != "latest":
            return None
        ranked = []
        msub, mates = values(spec.mate, subj)
        for args in mates:
            mate = args[1]
            tsub, theirs = values(spec.own, mate)
            if not theirs:
                continue
            if len(theirs) != 1:
                return None
            link = proof(msub, spec.mate, args)
            said = max((self._story_position(s) for e in link if e.role is ChainRole.PREMISE
                        and e.fact.subject == mate for s in e.evidence if s.char_start is not None), default=None)
            if said is None:
                continue
            ranked.append((said, term_sort_key(mate), link, proof(tsub, spec.own, theirs[0])))
        if not ranked:
            return None
        if len({r[0][:2] for r in ranked}) > 1 and not all(r[0][0] for r in ranked):
            return None  # spans in different chunks: offsets do not order them (chunk ids are not ordinal)
        ranked.sort(key=lambda r: (r[0], r[1]))
        if len(ranked) > 1 and ranked[-1][0] == ranked[-2][0]:
            return None
        _, _, link, source = ranked[-1]
        value = source[-1].fact.object
        step = derived_entry(subj, pred, value, False, spec.rule, (link[-1], source[-1]),  # type: ignore[arg-type]
                             min(link[-1].score or 1.0, source[-1].score or 1.0))
        chain = link + [e for e in source if e.fact_id not in {x.fact_id for x in link}] + [step]
        return self._finish(run, quoter, chain, [step], self._label(value), step.score or 1.0,  # type: ignore[attr-defined]
                            (value,), goal, frozenset())
