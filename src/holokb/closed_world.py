"""The engine's answers handed to the solver as data: one semantics for `not`, aggregates and depth.

The solver reads rules classically (Horn clauses plus constraints), which agrees with the engine's
least model only for positive rules without a per-rule depth.  Everything else is evaluated here by
the engine and reaches the solver as plain data (:class:`holokb.solver.ActiveSet`):

- ``not q(..)`` reads ``closed_world``: the complete extension of every relation read under
  ``not``, per elementary valid-time segment (so a negation holds exactly where the engine's does);
- an aggregate literal becomes an atom of a helper relation whose rows the engine computes (the rest
  of the rule stays a rule, so cores still reach the asserted facts);
- a rule with a per-rule depth is replaced by the facts the engine derived with it.

``closed`` lists the relations under the closed-world assumption: those read under ``not`` or in
an aggregate, and everything they depend on (their values are fixed by the data, as the engine
reads them).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from .analysis import Program, check_program
from .analysis.program import Aggregate, Atom, Negation, Rule
from .analysis.stratify import CLASS_SEP, atom_key, dependency_edges
from .core import HK, Interval, LimitHit, Limits, RDF_TYPE
from .engine import Database, Model, closure
from .solver import ActiveSet, GroundFact
from .solver.active_set import RelKey, relation_key

#: Helper relations holding the engine's aggregate results: ``hk:aggregate/<rule>/<n>``.
AGGREGATE = HK + "aggregate/"


def _reads(a: Atom, heads: set[RelKey]) -> list[RelKey]:
    """The relation keys an atom reads (a variable class reads every class relation), as stratify does."""
    k = atom_key(a)
    if k[0] == RDF_TYPE:
        return [k] + sorted(h for h in heads if h[0].startswith(RDF_TYPE + CLASS_SEP) and h[1] == k[1])
    if k[0].startswith(RDF_TYPE + CLASS_SEP) and (RDF_TYPE, k[1]) in heads:
        return [k, (RDF_TYPE, k[1])]
    return [k]


def negated_relations(rules: Iterable[Rule]) -> frozenset[RelKey]:
    """Relation keys read under ``not`` in a rule or constraint body."""
    rules = tuple(rules)
    heads = {atom_key(r.head) for r in rules if r.head is not None}
    return frozenset(k for r in rules for b in r.body if isinstance(b, Negation) for k in _reads(b.atom, heads))


def closed_relations(rules: Iterable[Rule]) -> frozenset[RelKey]:
    """Relations read under ``not`` or in an aggregate (rules and constraints), and all they depend on."""
    rules = tuple(rules)
    heads = {atom_key(r.head) for r in rules if r.head is not None}
    todo: list[RelKey] = []
    for r in rules:
        for b in r.body:
            if isinstance(b, Negation):
                todo.extend(_reads(b.atom, heads))
            elif isinstance(b, Aggregate):
                todo.extend(k for a in b.body for k in _reads(a, heads))
    needs: dict[RelKey, set[RelKey]] = {}
    for e in dependency_edges(tuple(r for r in rules if r.head is not None)):
        needs.setdefault(e.head, set()).add(e.body)
    seen: set[RelKey] = set()
    while todo:
        k = todo.pop()
        if k not in seen:
            seen.add(k)
            todo.extend(needs.get(k, ()))
    return frozenset(seen)


@dataclass(frozen=True, slots=True)
class Rewrite:
    """The rules as the solver reads them, and what the engine must evaluate for it."""

    solver_rules: tuple[Rule, ...]      # rules and constraints, aggregates replaced by helper atoms
    helper_rules: tuple[Rule, ...]      # one per aggregate: helper(group..., value) :- aggregate
    engine_only: frozenset[str]         # names of rules the solver does not read (per-rule depth)


def rewrite(rules: Iterable[Rule]) -> Rewrite:
    """Replace each aggregate literal by a helper atom and set depth-bounded rules aside."""
    out: list[Rule] = []
    helpers: list[Rule] = []
    engine_only: set[str] = set()
    for r in rules:
        if r.head is not None and r.depth is not None:
            engine_only.add(r.name)
            continue
        body = []
        for n, b in enumerate(r.body):
            if isinstance(b, Aggregate):
                atom = Atom(f"{AGGREGATE}{r.name}/{n}", tuple(b.group_by) + (b.target,), origin=b.origin)
                helpers.append(Rule(f"aggregate_{r.name}_{n}", atom, (b,), origin=b.origin))
                body.append(atom)
            else:
                body.append(b)
        out.append(replace(r, body=tuple(body)))
    return Rewrite(tuple(out), tuple(helpers), frozenset(engine_only))


def _program(rules: Iterable[Rule], helpers: tuple[Rule, ...]) -> Program:
    """The engine's program: the rules and the aggregate helpers, checked and stratified."""
    rules = tuple(rules)
    return check_program(tuple(r for r in rules if r.head is not None) + helpers,
                         constraints=tuple(r for r in rules if r.head is None))


def _rows(model: Model, keys: Iterable[RelKey], valid: Interval) -> list[GroundFact]:
    """Every row (input and derived) of the given relation keys, as ground facts valid over ``valid``."""
    out: list[GroundFact] = []
    preds: dict[tuple[str, bool], set[RelKey]] = {}
    for k in keys:
        pred = RDF_TYPE if k[0].startswith(RDF_TYPE + CLASS_SEP) else k[0]
        preds.setdefault((pred, k[1]), set()).add(k)
    for (pred, neg), wanted in sorted(preds.items()):
        for args, _v in model.rows(pred, negated=neg):
            if relation_key(pred, args, neg) in wanted or (pred, neg) in wanted:
                out.append(GroundFact(pred, args, "negate" if neg else "affirm", "", (), valid))
    return out


def _engine_facts(model: Model, rw: Rewrite, valid: Interval) -> list[GroundFact]:
    """What the solver takes from the engine as facts: aggregate results and depth-bounded derivations."""
    out = []
    for d in model.derived():
        if d.predicate.startswith(AGGREGATE) or d.rule in rw.engine_only:
            out.append(GroundFact(d.predicate, d.args, "negate" if d.negated else "affirm",
                                  f"derived:{d.rule}", (), valid))
    return out


@dataclass(frozen=True, slots=True)
class ClosedWorldResult:
    """An active set ready for the solver, and the budget the engine hit building it (None: complete)."""

    active: ActiveSet
    limit_hit: LimitHit | None = None


def _finish(active: ActiveSet, rw: Rewrite, extra_facts: list[GroundFact], closed_world: list[GroundFact],
            limit_hit: LimitHit | None) -> ClosedWorldResult:
    closed = closed_relations(active.rules) | set(active.closed) | {(r.head.predicate, False) for r in rw.helper_rules}
    needs_cw = any(isinstance(b, Negation) for r in rw.solver_rules for b in r.body)
    facts = active.facts + tuple(dict.fromkeys(extra_facts))
    return ClosedWorldResult(replace(active, facts=facts, rules=rw.solver_rules, closed=tuple(sorted(closed)),
                                     closed_world=tuple(dict.fromkeys(closed_world)) if needs_cw else None),
                             limit_hit)


def _segments(facts: tuple[GroundFact, ...]) -> list[Interval]:
    """The elementary valid-time segments of the facts' intervals, in order (one 'always' when no
    interval has a finite end or start)."""
    low = Interval.always().start
    cuts = sorted(({f.valid.start for f in facts} | {f.valid.end for f in facts if f.valid.end is not None}) - {low})
    bounds = [low] + cuts
    return [Interval(start, bounds[k + 1] if k + 1 < len(bounds) else None) for k, start in enumerate(bounds)]


def _plain(rules: tuple[Rule, ...], rw: Rewrite) -> bool:
    """Nothing for the engine to evaluate: no `not`, aggregate or per-rule depth."""
    return not rw.helper_rules and not rw.engine_only and not any(
        isinstance(b, Negation) for r in rules for b in r.body)


def with_closed_world(active: ActiveSet, *, limits: Limits | None = None) -> ClosedWorldResult:
    """``active`` with negation, aggregates and depth-bounded rules evaluated by the engine, per
    elementary valid-time segment of its facts (the facts valid in a segment are closed as one
    snapshot, exactly as ``derive`` closes the facts visible at an instant)."""
    rw = rewrite(active.rules)
    if _plain(active.rules, rw):
        return _finish(active, rw, [], [], None)
    program = _program(active.rules, rw.helper_rules)
    negated = negated_relations(active.rules)
    extra: list[GroundFact] = []
    cw: list[GroundFact] = []
    hit = None
    for seg in _segments(active.facts):
        db = Database()
        for f in active.facts:
            if f.valid.contains(seg.start):
                db.add(f.predicate, f.args, key=f.key or None, negated=f.polarity == "negate")
        model = closure(program, db, limits=limits or Limits.unbounded())
        hit = hit or model.limit_hit
        extra.extend(_engine_facts(model, rw, seg))
        cw.extend(_rows(model, negated, seg))
    return _finish(active, rw, extra, cw, hit)


def with_snapshot(active: ActiveSet, db: Database, *, limits: Limits | None = None,
                  valid_at: int | None = None) -> ClosedWorldResult:
    """``active`` with negation, aggregates and depth-bounded rules read from the engine's closure of
    ``db`` (the complete snapshot at one AsOf, of which ``active`` may hold only a part), as it holds
    at ``valid_at`` (``db`` may span the whole valid-time axis)."""
    rw = rewrite(active.rules)
    if _plain(active.rules, rw):
        return _finish(active, rw, [], [], None)
    program = _program(active.rules, rw.helper_rules)
    model = closure(program, db, limits=limits or Limits.unbounded(), valid_at=valid_at)
    always = Interval.always()
    return _finish(active, rw, _engine_facts(model, rw, always),
                   _rows(model, negated_relations(active.rules), always), model.limit_hit)


__all__ = ["AGGREGATE", "ClosedWorldResult", "Rewrite", "closed_relations", "negated_relations", "rewrite",
           "with_closed_world", "with_snapshot"]
