"""Answering a plan: resolve → retrieve → derive → check conflicts → build the verdict (DS005 §5–7).

Derivation is goal-directed: only the rules in the goal's dependency cone run (both polarities
of the goal predicate), over the candidate facts retrieval returns for the cone's predicates,
with proofs on.  What decides the answer:

- yes/no: the goal proved → "Yes"; its negation proved (an explicit negative fact, or a rule with a
  negated conclusion) → "No"; both → ``conflicting``; neither → "No" only when a functional
  predicate holds another value, or the predicate is declared closed-world (``hk:world "closed"``
  or the plan's ``world``); otherwise ``unsupported``;
- a check (DS005 §6.2): the goal's bindings and the params compared exactly; a missing parameter or
  incomparable values → ``unsupported``;
- value / list / count / path: the goal's solutions (a list or count claims completeness, so it
  needs a closed world).

Before ``supported`` is returned, conflicts among the facts the answer rests on are checked
(:mod:`holokb.answer.conflicts`); a budget that cut retrieval or closure never yields a "No".
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Mapping

from ..analysis import check_program
from ..analysis.program import Atom, Const, Program, Query, Var, body_atoms
from ..core.limits import LimitHit, Limits
from ..core.terms import HK, IRI, OWL, RDF, RDFS, XSD, Literal, Term, term_sort_key
from ..core.time import MAX_TIME, AsOf
from ..engine import Database, Model, closure, path_score
from ..engine.magic import dependency_cone
from ..ingest.naming import Naming
from ..ledger import FactView, Ledger
from .chain import (
    CLOSED_WORLD, COMPARE, FUNCTIONAL, Quoter, conclusion_entry, derived_entry, proof_entries,
)
from .conflicts import answer_focus, derived_conflict, detect_conflicts
from .contract import (
    Answer, AnswerLimit, ChainEntry, ChainRole, Conflict, Missing, MissingKind, Verdict,
)
from .refusal import Refuse as _Refuse
from .evaluate import Incomparable, MissingParam, run_test
from .plan import AnswerForm, Pattern, QueryPlan, TimeKind, Unplannable, World, YesWhen
from .program import RuleBook, declared_worlds, rule_sources
from .resolve import Goal, Resolver, Unresolved
from ..reasoning import add_program_facts
from .story_forms import StoryForms
from .story_policies import ListOrder, StoryPolicies
from .timeline import anchor_instant
from .retrieve import FactRequest, Retrieval, RetrievalRequest, Retriever, StructuredRetriever, version_of


@dataclass(frozen=True, slots=True)
class AnswerOptions:
    """Budgets and switches for one answer (DS005's ``limitFacts``/``limitChunks`` and more)."""

    limit_facts: int = 10_000
    limit_chunks: int = 20
    max_derived: int | None = 1_000_000
    timeout_s: float | None = 10.0
    backend: str = "z3"
    policies: StoryPolicies = StoryPolicies()  # story semantics the caller switches on (none by default)


_STANDARD_PREFIXES = {"rdf": RDF, "rdfs": RDFS, "owl": OWL, "xsd": XSD, "hk": HK}
_LIMITS = {LimitHit.MAX_DEPTH: AnswerLimit.MAX_DEPTH, LimitHit.MAX_DERIVED: AnswerLimit.MAX_DERIVED,
           LimitHit.TIMEOUT: AnswerLimit.DEADLINE}


@dataclass
class _Run:
    """State of one answer: inputs, what retrieval and closure gave, and the budgets hit."""

    plan: QueryPlan
    as_of: AsOf
    program: Program
    views: dict[str, FactView]
    rule_views: dict[str, FactView]
    rules: tuple = ()
    model: Model | None = None
    truncated: bool = False
    limit: AnswerLimit | None = None


class Answerer(StoryForms):
    """Answers plans against one ledger (the KB builds one per call or keeps one)."""

    def __init__(self, ledger: Ledger, *, rules: Program | None = None, prefixes: Mapping[str, str] | None = None,
                 naming: Naming = Naming(), retriever: Retriever | None = None,
                 options: AnswerOptions = AnswerOptions(), rulebook: RuleBook | None = None):
        self.ledger = ledger
        self.rulebook = rulebook or RuleBook(ledger, rules)
        self.prefixes = dict(prefixes or {})
        self.naming = naming
        self.retriever = retriever or StructuredRetriever()
        self.options = options

    # -- entry point --------------------------------------------------------------------------------

    def answer(self, plan: QueryPlan | Unplannable, as_of: AsOf) -> Answer:
        """The verdict for ``plan`` at ``as_of`` (never raises on what the KB lacks)."""
        if isinstance(plan, Unplannable):
            return Answer(None, Verdict.UNSUPPORTED, missing=Missing(MissingKind.UNPLANNABLE, plan.message,
                                                                     plan.reason.value), as_of=as_of)
        program, rule_views = self.rulebook.at(as_of)
        if plan.answer_form is AnswerForm.YES_NO and plan.conditions and plan.check is None:
            return self._all_of(plan, as_of, program, rule_views)
        return self._answer(plan, as_of, program, rule_views)

    def _answer(self, plan: QueryPlan, as_of: AsOf, program: Program, rule_views: dict[str, FactView]) -> Answer:
        quoter = Quoter(self.ledger)
        run = _Run(plan, as_of, program, {}, rule_views)
        try:
            chain, text, values, conflicts = self._decide(run, quoter, rule_views)
        except _Refuse as r:
            return Answer(None, Verdict.UNSUPPORTED, missing=r.missing, plan=plan, as_of=as_of,
                          truncated=run.truncated or r.limit is not None, limit_hit=r.limit or run.limit)
        if conflicts:
            return Answer(None, Verdict.CONFLICTING, conflicts=conflicts, plan=plan, as_of=as_of,
                          truncated=run.truncated, limit_hit=run.limit)
        return self._supported(run, chain, text, values)

    def _supported(self, run: _Run, chain: list[ChainEntry], text: str, values: tuple[Term, ...]) -> Answer:
        kept = _anchored(chain)
        if not kept or kept[-1].role is not ChainRole.CONCLUSION:
            return Answer(None, Verdict.UNSUPPORTED, missing=Missing(
                MissingKind.NO_ANCHOR, "the claims of this answer have no source to anchor them"),
                plan=run.plan, as_of=run.as_of, truncated=run.truncated, limit_hit=run.limit)
        chunks: list[str] = []
        for e in kept:
            for s in e.evidence:
                ref = s.chunk_ref
                if ref is not None and ref not in chunks:
                    chunks.append(ref)
        truncated, limit = run.truncated, run.limit
        if len(chunks) > self.options.limit_chunks:
            chunks = chunks[:self.options.limit_chunks]
            truncated, limit = True, limit or AnswerLimit.MAX_CHUNKS
        scores: dict[str, float] = {}
        for e in kept:
            if e.score is not None:
                scores[e.fact_id] = max(scores.get(e.fact_id, 0.0), round(e.score, 12))
        return Answer(text, Verdict.SUPPORTED, tuple(chunks), tuple(kept), tuple(scores.items()), (), None, values,
                      run.plan, run.as_of, truncated, limit)

    def _all_of(self, plan: QueryPlan, as_of: AsOf, program: Program, rule_views: dict[str, FactView]) -> Answer:
        """A yes/no question stating several things at once ("Is the bear big and red?": the goal and
        each condition, all ground): each is answered on its own, and the question is "Yes" when
        every one is (the chains one after the other), "No" when one is "No" (that one's chain: one
        false part makes the whole false), conflicting when one is, and unsupported otherwise (the
        first part not decided says what was missing)."""
        parts = []
        for g in (plan.goal, *plan.conditions):
            if g is None or any(isinstance(t, Var) for t in (g.predicate, g.subject, g.object)):
                return Answer(None, Verdict.UNSUPPORTED, missing=Missing(
                    MissingKind.UNPLANNABLE, "a yes/no question of several parts must name everything it asks about"),
                    plan=plan, as_of=as_of)
            parts.append(self._answer(replace(plan, goal=g, conditions=(), predicates=(g.predicate,)), as_of,
                                      program, rule_views))
        truncated = any(a.truncated for a in parts)
        limit = next((a.limit_hit for a in parts if a.limit_hit is not None), None)
        decided = next((a for a in parts if a.verdict is Verdict.CONFLICTING
                        or (a.verdict is Verdict.SUPPORTED and a.text == "No")), None)
        if decided is None:
            decided = next((a for a in parts if a.verdict is Verdict.UNSUPPORTED), None)
        if decided is not None:
            chain = self._one_conclusion(plan, [decided], decided.text) if decided.text else decided.fact_chain
            return replace(decided, fact_chain=chain, plan=plan, truncated=truncated, limit_hit=limit)
        chunks, scores = [], {}
        for a in parts:
            chunks += [c for c in a.chunks_used if c not in chunks]
            for k, v in a.support_scores:
                scores[k] = max(scores.get(k, 0.0), v)
        return Answer("Yes", Verdict.SUPPORTED, tuple(chunks), self._one_conclusion(plan, parts, "Yes"),
                      tuple(scores.items()), plan=plan, as_of=as_of, truncated=truncated, limit_hit=limit)

    def _one_conclusion(self, plan: QueryPlan, parts: list[Answer], text: str) -> tuple[ChainEntry, ...]:
        """The parts' chains, each step once, ending in one conclusion about the whole question that
        rests on what decided each part (its score the weakest of theirs)."""
        chain, seen, deciding, score = [], set(), {}, 1.0
        first: dict[str, ChainEntry] = {}  # a fact id's first step in the chain
        for a in parts:
            for e in a.fact_chain:
                if e.role is ChainRole.CONCLUSION:
                    deciding.update(dict.fromkeys(e.premises))
                    score = min(score, e.score if e.score is not None else 1.0)
                elif (e.fact_id, e.role) not in seen:
                    seen.add((e.fact_id, e.role))
                    chain.append(e)
                    first.setdefault(e.fact_id, e)
        premises = [first[i] for i in deciding if i in first]
        return tuple(chain) + (conclusion_entry(self._question(plan), text, premises, score),)

    # -- the decision ---------------------------------------------------------------------------------

    def _decide(self, run: _Run, quoter: Quoter, rule_views: dict[str, FactView]):
        plan = run.plan
        resolver = self._resolver(run.program)
        try:
            goal_pattern = plan.goal or _implicit_goal(plan)
            path = plan.answer_form is AnswerForm.PATH  # the goal only names start and end; edges are the predicates
            goal = resolver.goal(goal_pattern, mint=path) if goal_pattern is not None else None
            hint_preds = tuple(p for p in (resolver.predicate(t) for t in plan.predicates) if isinstance(p, IRI))
            hint_subjects = tuple(s for s in (resolver.entity(t) for t in plan.subjects) if isinstance(s, (IRI, Literal)))
            derives = resolver.goal(plan.check.derives, mint=True) if plan.check and plan.check.derives else None
        except Unresolved as u:
            raise _Refuse(MissingKind.UNKNOWN_NAME, u.message, u.name) from None
        run.as_of = self._valid_time(plan, run.as_of, resolver)
        if plan.conditions:  # a join over an event's roles: never dropped (refused unless the policy says how)
            try:
                conditions = [resolver.goal(c) for c in plan.conditions]
            except Unresolved as u:
                raise _Refuse(MissingKind.UNKNOWN_NAME, u.message, u.name) from None
            return self._event_join(run, quoter, rule_views, goal, conditions)
        if goal is None:
            if plan.check is None:
                raise _Refuse(MissingKind.UNPLANNABLE, "a plan without a goal needs exactly one predicate or a check")
            return self._check(run, quoter, rule_views, None, derives)
        goal_preds = (goal.predicate,) if isinstance(goal.predicate, IRI) and not path else hint_preds
        if not goal_preds:
            raise _Refuse(MissingKind.UNPLANNABLE, "a goal with a variable predicate needs the candidate predicates")
        self._derive(run, goal, goal_preds, hint_preds, hint_subjects)
        form = plan.answer_form
        if plan.check is not None:
            return self._check(run, quoter, rule_views, goal, derives)
        if form is AnswerForm.YES_NO:
            return self._yes_no(run, quoter, rule_views, goal, goal_preds)
        if form is AnswerForm.PATH:
            return self._path(run, quoter, rule_views, goal, hint_preds)
        return self._values(run, quoter, rule_views, goal, goal_preds, form)

    def _resolver(self, program: Program) -> Resolver:
        known = {p.iri.value for p in self.ledger.predicates()} | set(program.vocabulary) | program.idb_predicates()
        for r in program.rules:
            known.update(a.predicate for a in body_atoms(r.body))
        prefixes = {**_STANDARD_PREFIXES, "ex": self.naming.namespace, **dict(program.prefixes), **self.prefixes}
        return Resolver(self.ledger, prefixes=prefixes, predicates=known, naming=self.naming)

    def _valid_time(self, plan: QueryPlan, as_of: AsOf, resolver: Resolver) -> AsOf:
        t = plan.time
        if t is None:
            return as_of
        if t.kind is TimeKind.AT:
            return AsOf(as_of.system, t.instant)  # type: ignore[arg-type]
        if t.kind is TimeKind.END:
            return AsOf(as_of.system, MAX_TIME)
        assert t.anchor is not None
        try:
            anchor = resolver.goal(t.anchor)
        except Unresolved as u:
            raise _Refuse(MissingKind.UNKNOWN_NAME, u.message, u.name) from None
        program, _ = self.rulebook.at(as_of)
        o = self.options
        found = anchor_instant(self.ledger, program, anchor, t.kind, as_of, plan.version,
                               Limits(max_derived=o.max_derived, max_results=None, timeout_s=o.timeout_s))
        if found.instant is None:
            raise _Refuse(MissingKind.NO_FACTS, found.reason,
                          limit=AnswerLimit.MAX_DERIVED if found.truncated else None)
        return AsOf(as_of.system, found.instant)

    # -- retrieval and closure ------------------------------------------------------------------------

    def _derive(self, run: _Run, goal: Goal, goal_preds: tuple[IRI, ...], hint_preds: tuple[IRI, ...],
                hint_subjects: tuple[Term, ...]) -> None:
        program = run.program
        keys = {(p.value, neg) for p in goal_preds for neg in (False, True)}
        cone = dependency_cone(program.rules, keys)
        rules = tuple(program.rules[i] for i in cone)
        run.rules = rules
        preds = {p.value for p in goal_preds}
        for r in rules:
            preds.add(r.head.predicate)  # type: ignore[union-attr]
            preds.update(a.predicate for a in body_atoms(r.body))
        subject = goal.subject if isinstance(goal.subject, (IRI, Literal)) else None
        if run.plan.answer_form is AnswerForm.PATH:
            subject = None  # a path walks edges from every node, not only the start
        heads = {r.head.predicate for r in rules}  # type: ignore[union-attr]
        requests = []
        for p in sorted(preds):
            narrow = p in {g.value for g in goal_preds} and p not in heads and not any(
                p in {a.predicate for a in body_atoms(r.body)} for r in rules)
            requests.append(FactRequest(IRI(p), subject if narrow else None))
        got: Retrieval = self.retriever.retrieve(self.ledger, RetrievalRequest(
            run.as_of, tuple(requests), hint_preds + goal_preds, hint_subjects + ((subject,) if subject else ()),
            run.plan.version, self.options.limit_facts, run.plan.question))
        if got.truncated:
            run.truncated, run.limit = True, got.limit_hit or AnswerLimit.MAX_FACTS
        db = Database()
        goal_quals = tuple(sorted((k, term_sort_key(t)) for k, t in goal.qualifiers if k != "version"))
        for v in got.facts:
            f = v.fact
            quals = tuple(sorted((k, term_sort_key(t)) for k, t in f.qualifiers if k != "version"))
            if quals != (goal_quals if f.predicate.value in {g.value for g in goal_preds} else ()):
                continue
            run.views[v.fact_id] = v
            db.add(f.predicate.value, (f.subject, f.object), valid=v.valid, key=v.fact_id,
                   confidence=max((e.confidence for e in v.evidence), default=1.0), negated=f.polarity == "negate")
        add_program_facts(db, program)  # ground facts written in the rule files are input facts too
        sub = check_program(rules, vocabulary=program.vocabulary, prefixes=program.prefixes, facts=program.facts)
        o = self.options
        model = closure(sub, db, limits=Limits(max_depth=None, max_derived=o.max_derived, max_results=None,
                                               timeout_s=o.timeout_s), record_proofs=True,
                        valid_at=run.as_of.valid)
        run.model = model
        if model.truncated:
            run.truncated = True
            run.limit = run.limit or _LIMITS.get(model.limit_hit, AnswerLimit.MAX_DERIVED)  # type: ignore[arg-type]

    # -- helpers over the model ---------------------------------------------------------------------

    def _entries(self, run: _Run, quoter: Quoter, rule_views, pred: str, args: tuple[Term, ...],
                 negated: bool) -> list[ChainEntry]:
        assert run.model is not None
        proof = run.model.explain(pred, args, negated=negated)
        assert proof is not None
        return proof_entries(proof, run.views, quoter, rule_sources(rule_views, run.program, quoter))

    def _solutions(self, run: _Run, goal: Goal, pred: IRI, negated: bool) -> list[tuple[tuple[Term, Term], dict]]:
        """(args, bindings) of the goal pattern over the model, sorted."""
        assert run.model is not None
        s = goal.subject if goal.subject is not None else Var("_any_s")
        o = goal.object if goal.object is not None else Var("_any_o")
        args = tuple(t if isinstance(t, Var) else Const(t) for t in (s, o))
        variables = tuple(dict.fromkeys(a for a in args if isinstance(a, Var)))
        q = Query((Atom(pred.value, args, negated),), variables)
        page = run.model.query_page(q)
        if page.truncated:
            run.truncated, run.limit = True, run.limit or AnswerLimit.MAX_DERIVED
        out = []
        for row in page.items:
            b = {v.name: t for v, t in zip(variables, row)}
            full = tuple(b[a.name] if isinstance(a, Var) else a.term for a in args)
            out.append((full, b))
        return out

    def _world(self, run: _Run, pred: IRI) -> World:
        if run.plan.world is not None:
            return run.plan.world
        return World.CLOSED if declared_worlds(self.ledger, run.as_of).get(pred.value) == "closed" else World.OPEN

    def _functional(self, run: _Run) -> frozenset[str]:
        out = {p.iri.value for p in self.ledger.predicates() if p.functional}
        out |= {p for p, d in run.program.vocabulary.items() if d.functional}
        return frozenset(out)

    def _conflicts(self, run: _Run, quoter: Quoter, chain: list[ChainEntry], goal: Goal | None,
                   one_value: frozenset[str]) -> tuple[Conflict, ...]:
        """Conflicts about the statements the answer rests on: the chain's premises and the goal."""
        gs = goal.subject if goal is not None and isinstance(goal.subject, (IRI, Literal)) else None
        gp = goal.predicate if goal is not None and isinstance(goal.predicate, IRI) else None
        go = goal.object if goal is not None and isinstance(goal.object, (IRI, Literal)) else None
        focus = answer_focus(chain, gs, gp, go)
        check = detect_conflicts(run.views.values(), focus=focus, functional=self._functional(run), one_value=one_value,
                                 version=run.plan.version, quoter=quoter, backend=self.options.backend)
        if check.undecided and not check.conflicts:
            raise _Refuse(MissingKind.BUDGET, "the solver could not decide whether the facts conflict",
                          limit=AnswerLimit.SOLVER)
        return check.conflicts

    # -- answer forms -----------------------------------------------------------------------------

    def _question(self, plan: QueryPlan) -> IRI:
        text = json.dumps(plan.to_json(), sort_keys=True, ensure_ascii=False)
        return IRI(HK + "question/" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32])

    def _finish(self, run: _Run, quoter: Quoter, chain: list[ChainEntry], deciding: list[ChainEntry], text: str,
                score: float, values: tuple[Term, ...], goal: Goal | None, one_value: frozenset[str]):
        conflicts = self._chain_clashes(run, quoter, chain) or self._conflicts(run, quoter, chain, goal, one_value)
        chain = chain + [conclusion_entry(self._question(run.plan), text, deciding, score)]
        return chain, text, values, conflicts

    def _chain_clashes(self, run: _Run, quoter: Quoter, chain: list[ChainEntry]) -> tuple[Conflict, ...]:
        """A statement of the chain whose opposite the KB also proves: the answer would rest on a
        contradiction (anything follows from one), so it is ``conflicting`` with both proofs."""
        if run.model is None:
            return ()
        out: list[Conflict] = []
        seen: set[tuple] = set()
        for e in chain:
            f = e.fact
            if e.role is ChainRole.CONCLUSION or f.object is None or e.rule in (CLOSED_WORLD, COMPARE, FUNCTIONAL):
                continue
            args, neg = (f.subject, f.object), f.polarity == "negate"
            key = (f.predicate.value, args)
            if key in seen or not run.model.contains(f.predicate.value, args, negated=not neg):
                continue
            seen.add(key)
            out.append(self._derived_clash(run, quoter, run.rule_views, f.predicate, args)[3][0])
        return tuple(out)

    def _yes_no(self, run: _Run, quoter: Quoter, rule_views, goal: Goal, goal_preds: tuple[IRI, ...]):
        pred = goal_preds[0]
        if not goal.ground:
            return self._exists(run, quoter, rule_views, goal, pred)
        args = (goal.subject, goal.object)
        assert run.model is not None
        pos, neg = run.model.contains(pred.value, args), run.model.contains(pred.value, args, negated=True)
        asks_negation = goal.polarity == "negate"
        functional = self._functional(run)
        if pos and neg:
            return self._derived_clash(run, quoter, rule_views, pred, args)
        if pos or neg:
            entries = self._entries(run, quoter, rule_views, pred.value, args, negated=neg)
            yes = pos != asks_negation
            return self._finish(run, quoter, entries, [entries[-1]], "Yes" if yes else "No", entries[-1].score or 0.0, (),
                                goal, frozenset())
        # Neither proved: "No" only from a functional predicate's other value, or a closed world.
        if pred.value in functional:
            for member in self.options.policies.members_of(pred.value):  # "either … or" shares the key
                sub, g = self._sub_run(run, member, goal.subject, run.as_of)
                maybe = [a for a, _ in self._solutions(sub, g, g.predicate, False)]  # type: ignore[arg-type]
                if any(a[1] == goal.object for a in maybe):
                    raise _Refuse(MissingKind.NOT_PROVED, f"the KB gives {_atom(pred, args)} as one of "
                                                          f"{len(maybe)} alternatives (maybe)")
                if maybe:
                    entries = self._entries(sub, quoter, rule_views, member, maybe[0], negated=False)
                    run.views.update(sub.views)
                    step = derived_entry(goal.subject, pred, goal.object, True, FUNCTIONAL, (entries[-1],),  # type: ignore[arg-type]
                                         entries[-1].score or 0.0)
                    return self._finish(run, quoter, entries + [step], [step], "Yes" if asks_negation else "No",
                                        step.score or 0.0, (), goal, frozenset())
            others = [(a, b) for a, b in self._solutions(run, Goal(pred, goal.subject, Var("v"), (), "affirm"),
                                                          pred, False) if a[1] != goal.object]
            if others:
                a, _ = others[0]
                entries = self._entries(run, quoter, rule_views, pred.value, a, negated=False)
                step = derived_entry(goal.subject, pred, goal.object, True, FUNCTIONAL, (entries[-1],),  # type: ignore[arg-type]
                                     entries[-1].score or 0.0)
                chain = entries + [step]
                return self._finish(run, quoter, chain, [step], "Yes" if asks_negation else "No", step.score or 0.0, (), goal,
                                    frozenset())
        if self._world(run, pred) is World.CLOSED:
            if run.truncated:
                raise _Refuse(MissingKind.BUDGET, "a budget cut the search, so the closed-world 'No' cannot be given",
                              limit=run.limit)
            step = derived_entry(goal.subject, pred, goal.object, True, CLOSED_WORLD, (), 1.0)  # type: ignore[arg-type]
            return self._finish(run, quoter, [step], [step], "Yes" if asks_negation else "No", 1.0, (), goal, frozenset())
        raise _Refuse(MissingKind.NOT_PROVED, f"neither {_atom(pred, args)} nor its negation follows from the KB",
                      limit=run.limit if run.truncated else None)

    def _exists(self, run: _Run, quoter: Quoter, rule_views, goal: Goal, pred: IRI):
        sols = self._solutions(run, goal, pred, goal.polarity == "negate")
        if not sols:
            raise _Refuse(MissingKind.NOT_PROVED, f"nothing matches {_atom(pred, (goal.subject, goal.object))}")
        args, _ = sols[0]
        entries = self._entries(run, quoter, rule_views, pred.value, args, goal.polarity == "negate")
        return self._finish(run, quoter, entries, [entries[-1]], "Yes", entries[-1].score or 0.0, (), goal, frozenset())

    def _derived_clash(self, run: _Run, quoter: Quoter, rule_views, pred: IRI, args):
        """Both the goal and its negation are proved: a polarity conflict between the two proofs."""
        pos = self._entries(run, quoter, rule_views, pred.value, args, False)
        neg = self._entries(run, quoter, rule_views, pred.value, args, True)
        conflict = derived_conflict(pos, neg, run.rules, run.views, self.options.backend)
        if conflict is None:
            raise _Refuse(MissingKind.BUDGET, "the solver could not confirm the clash between the two proofs",
                          limit=AnswerLimit.SOLVER)
        return [], None, (), (conflict,)

    def _values(self, run: _Run, quoter: Quoter, rule_views, goal: Goal, goal_preds: tuple[IRI, ...],
                form: AnswerForm):
        negated = goal.polarity == "negate"
        found: list[tuple[Term, IRI, tuple]] = []
        pvar = goal.predicate if isinstance(goal.predicate, Var) else None
        others = [v for v in goal.variables() if v != pvar]
        for pred in goal_preds:
            for args, b in self._solutions(run, goal, pred, negated):
                value = pred if pvar is not None else b[others[0].name] if others else args[1]
                found.append((value, pred, args))
        found.sort(key=lambda x: (term_sort_key(x[0]), x[1].value, [term_sort_key(a) for a in x[2]]))
        if form is AnswerForm.LIST and self.options.policies.list_order is ListOrder.FIRST_HELD:
            first = self._first_held(run, goal, goal_preds)
            found.sort(key=lambda x: first.get((x[1].value, x[2]), MAX_TIME))  # stable: ties keep value order
        values = tuple(dict.fromkeys(v for v, _, _ in found))
        one_value = frozenset({goal.predicate.value}) if isinstance(goal.predicate, IRI) and form is AnswerForm.VALUE \
            else frozenset()
        closed = all(self._world(run, p) is World.CLOSED for p in goal_preds)
        if form in (AnswerForm.LIST, AnswerForm.COUNT):
            if not closed:
                raise _Refuse(MissingKind.NOT_PROVED, f"a {form.value} claims completeness: declare "
                              f"{', '.join(p.value for p in goal_preds)} closed-world (hk:world \"closed\" or the plan's world)")
            if run.truncated:
                raise _Refuse(MissingKind.BUDGET, f"a budget cut the search, so the {form.value} may be incomplete",
                              limit=run.limit)
        if not values and form is AnswerForm.VALUE:
            kept = None if negated else self._inertia(run, quoter, rule_views, goal)
            if kept is not None:
                return kept
            raise self._nothing(run, goal, goal_preds)
        spec = self.options.policies.default_of(goal.predicate.value) if isinstance(goal.predicate, IRI) else None
        if form is AnswerForm.VALUE and len(values) > 1 and spec is not None and not negated \
                and isinstance(goal.subject, (IRI, Literal)):
            settled = self._default_value(run, quoter, rule_views, goal, spec)
            if settled is not None:
                return settled
        if form is AnswerForm.VALUE and len(values) > 1:
            chain = []
            for _, pred, args in found:
                chain += self._entries(run, quoter, rule_views, pred.value, args, negated)
            conflicts = self._conflicts(run, quoter, chain, goal, one_value)
            if conflicts:
                return [], None, (), conflicts
            raise _Refuse(MissingKind.NOT_PROVED, f"the question has {len(values)} answers, not one "
                                                  f"({', '.join(self._label(v) for v in values[:5])}); ask for a list")
        chain: list[ChainEntry] = []
        deciding: list[ChainEntry] = []
        for _, pred, args in found:
            entries = self._entries(run, quoter, rule_views, pred.value, args, negated)
            chain += [e for e in entries if e.fact_id not in {c.fact_id for c in chain}]
            deciding.append(entries[-1])
        if not found:
            step = derived_entry(goal.subject if goal.subject is not None and not isinstance(goal.subject, Var)
                                 else self._question(run.plan), goal_preds[0], None, True, CLOSED_WORLD, (), 1.0)
            chain, deciding = [step], [step]
        text = str(len(values)) if form is AnswerForm.COUNT else ",".join(self._label(v) for v in values)
        score = min((d.score for d in deciding if d.score is not None), default=1.0)
        return self._finish(run, quoter, chain, deciding, text, score, values, goal, one_value)

    def _nothing(self, run: _Run, goal: Goal, goal_preds: tuple[IRI, ...]) -> _Refuse:
        pattern = _atom(goal_preds[0], (goal.subject, goal.object))
        if run.plan.version is not None:
            other = [v for v in self.ledger.facts(run.as_of, about=goal.subject if isinstance(goal.subject, IRI) else None,
                                                  predicate=goal_preds[0], limits=Limits(max_results=50))
                     if version_of(v) not in (None, run.plan.version)]
            if other:
                versions = sorted({version_of(v) or "" for v in other})
                return _Refuse(MissingKind.NO_VERSION, f"no {pattern} in version {run.plan.version} "
                                                       f"(the KB has it for {', '.join(versions)})", run.plan.version)
        return _Refuse(MissingKind.NO_FACTS, f"nothing in the KB matches {pattern}",
                       limit=run.limit if run.truncated else None)

    def _check(self, run: _Run, quoter: Quoter, rule_views, goal: Goal | None, derives: Goal | None):
        plan = run.plan
        check = plan.check
        assert check is not None
        rows: list[tuple[dict, list[ChainEntry]]] = []
        one_value: frozenset[str] = frozenset()
        if goal is not None:
            pred = goal.predicate
            if not isinstance(pred, IRI):
                raise _Refuse(MissingKind.UNPLANNABLE, "a check needs a goal whose predicate is named, not a variable")
            one_value = frozenset({pred.value})
            for args, b in self._solutions(run, goal, pred, goal.polarity == "negate"):
                rows.append((b, self._entries(run, quoter, rule_views, pred.value, args, goal.polarity == "negate")))
            if not rows:
                raise self._nothing(run, goal, (pred,))
        else:
            rows.append(({}, []))
        # Conflicts first: two versions' values must not be silently compared one by one.
        all_entries = [e for _, es in rows for e in es]
        conflicts = self._conflicts(run, quoter, all_entries, goal, one_value)
        if conflicts:
            return [], None, (), conflicts
        outcomes = []
        for b, _ in rows:
            holds = True
            for t in check.tests:
                r, _vals = run_test(t, plan, b)
                if isinstance(r, MissingParam):
                    raise _Refuse(MissingKind.MISSING_PARAMETER, f"the question does not give {r.name!r}", r.name)
                if isinstance(r, Incomparable):
                    raise _Refuse(MissingKind.INCOMPARABLE, r.message)
                holds = holds and r
            outcomes.append(holds)
        if len(set(outcomes)) > 1:
            raise _Refuse(MissingKind.NOT_PROVED, f"the goal has {len(rows)} solutions and the check differs between them")
        holds = outcomes[0]
        premises = tuple(es[-1] for _, es in rows if es)
        chain = [e for _, es in rows for e in es]
        prod = 1.0
        for p in premises:
            prod *= p.score if p.score is not None else 1.0
        if derives is not None and isinstance(derives.predicate, IRI):
            subj = derives.subject if isinstance(derives.subject, (IRI, Literal)) else self._question(plan)
            obj = derives.object if isinstance(derives.object, (IRI, Literal)) else None
            step = derived_entry(subj, derives.predicate, obj, not holds, COMPARE, premises, path_score(prod, 1))
        else:
            step = derived_entry(self._question(plan), IRI(HK + "checkHolds"), Literal.of(holds), False, COMPARE,
                                 premises, path_score(prod, 1))
        yes = holds if check.yes_when is YesWhen.HOLDS else not holds
        return self._finish(run, quoter, chain + [step], [step], "Yes" if yes else "No", step.score or 0.0, (), goal,
                            one_value)

    def _path(self, run: _Run, quoter: Quoter, rule_views, goal: Goal, hint_preds: tuple[IRI, ...]):
        assert run.model is not None
        if not isinstance(goal.subject, IRI) or not isinstance(goal.object, IRI) or not hint_preds:
            raise _Refuse(MissingKind.UNPLANNABLE, "a path question needs a start, an end and the edge predicates")
        edges: dict[Term, list[tuple[IRI, Term]]] = {}
        for p in sorted(hint_preds, key=lambda x: x.value):
            for args, _valid in run.model.rows(p.value):
                if len(args) == 2:
                    edges.setdefault(args[0], []).append((p, args[1]))
        steps = self._shortest_steps(edges, goal.subject, goal.object)
        chain: list[ChainEntry] = []
        deciding = []
        for frm, p, to in steps:
            entries = self._entries(run, quoter, rule_views, p.value, (frm, to), False)
            chain += [e for e in entries if e.fact_id not in {c.fact_id for c in chain}]
            deciding.append(entries[-1])
        text = ",".join(self._label(p) for _, p, _ in steps)
        score = min((d.score for d in deciding if d.score is not None), default=1.0)
        return self._finish(run, quoter, chain, deciding, text, score, tuple(p for _, p, _ in steps), None, frozenset())

    def _label(self, t: Term) -> str:
        """How a value is written in the answer text: an IRI by its local name (``_`` as spaces)."""
        if isinstance(t, IRI):
            v = t.value
            if v.startswith(self.naming.namespace):
                return v[len(self.naming.namespace):].replace("_", " ")
            return v.rsplit("#", 1)[-1].rsplit("/", 1)[-1] or v
        return t.lexical


def _implicit_goal(plan: QueryPlan) -> Pattern | None:
    """DS005 plans may give only predicates and subjects: one predicate → ``p(subject?, ?value)``."""
    if plan.check is not None and plan.goal is None and len(plan.predicates) != 1:
        return None
    if len(plan.predicates) != 1:
        return None
    return Pattern(plan.predicates[0], plan.subjects[0] if len(plan.subjects) == 1 else None, Var("value"))


def _atom(pred: IRI, args) -> str:
    shown = ", ".join("_" if a is None else f"?{a.name}" if isinstance(a, Var) else
                      (a.value if isinstance(a, IRI) else a.lexical) for a in args)
    return f"{pred.value}({shown})"


def _anchored(chain: list[ChainEntry]) -> list[ChainEntry]:
    """Entries that are anchored and rest only on kept entries (claims without anchors are stripped)."""
    kept: dict[str, ChainEntry] = {}
    out = []
    for e in chain:
        if e.anchored and all(p in kept for p in e.premises):
            kept[e.fact_id] = e
            out.append(e)
    return out


__all__ = ["AnswerOptions", "Answerer"]
