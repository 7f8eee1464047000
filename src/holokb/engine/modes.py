"""The two bounded modes: local closure around seeds, and goal-directed answering of a query."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..analysis import check_program
from ..analysis.program import Aggregate, Atom, Negation, Program, Query, Rule, body_atoms
from ..core.limits import LimitHit, Limits
from ..core.terms import IRI, Term, term_sort_key
from .closure import closure, require_checked
from .database import Database
from .magic import dependency_cone, negative_keys, rewrite
from .model import INTERNAL, Model


def neighbourhood(db: Database, seeds, hops: int) -> Database:
    """The facts within ``hops`` hops of the seed entities, as a new database sharing the terms.

    Hop 1 is every fact that mentions a seed; hop k adds the facts that mention an IRI reached
    at hop k−1.  Literals never extend the frontier (a shared number is not a connection).
    """
    frontier = {s for s in seeds if isinstance(s, IRI)}
    reached = set(frontier)
    kept: set[int] = set()
    facts = list(db.rows())
    for _ in range(hops):
        nxt = set()
        for i, f in enumerate(facts):
            if i in kept:
                continue
            if any(a in frontier for a in f[1]):
                kept.add(i)
                nxt.update(a for a in f[1] if isinstance(a, IRI) and a not in reached)
        reached |= nxt
        frontier = nxt
        if not frontier:
            break
    out = Database(db.terms)
    for i in sorted(kept):
        rk, args, valid, key, conf = facts[i]
        out.add(rk[0], args, valid=valid, key=key, confidence=conf, negated=rk[1])
    return out


def _full(rk: tuple[str, bool]) -> tuple[str, bool]:
    return (f"{INTERNAL}full#{rk[0]}", rk[1])


def _redirect(a: Atom) -> Atom:
    p, n = _full((a.predicate, a.negated))
    return Atom(p, a.args, n, a.origin)


def _reads_full(rule: Rule, everything: bool) -> Rule:
    """``rule`` with its negated and aggregated atoms (every atom when ``everything``) read from the
    full copies."""
    body = []
    for b in rule.body:
        if isinstance(b, Atom):
            body.append(_redirect(b) if everything else b)
        elif isinstance(b, Negation):
            body.append(Negation(_redirect(b.atom), b.origin))
        elif isinstance(b, Aggregate):
            body.append(replace(b, body=tuple(_redirect(a) for a in b.body)))
        else:
            body.append(b)
    head = _redirect(rule.head) if everything and rule.head is not None else rule.head
    return Rule(rule.name, head, tuple(body), rule.weight, rule.depth, rule.origin)


def local_closure(program: Program, db: Database, seeds: tuple[Term, ...], *, hops: int = 3,
                  limits: Limits | None = None, record_proofs: bool = True, valid_at: int | None = None) -> Model:
    """ThinkingDB's bounded local closure: close only the ``hops``-hop neighbourhood of ``seeds``.

    Positive atoms read the neighbourhood; what a rule reads under ``not`` or inside an aggregate
    is computed over the whole database (an absence or a count is only true of all the facts), so
    every fact a local closure derives, the full closure derives too.
    """
    require_checked(program)
    local = neighbourhood(db, seeds, hops)
    neg = negative_keys(program.rules + program.constraints)
    if not neg:
        return closure(program, local, limits=limits, record_proofs=record_proofs, valid_at=valid_at)
    cone = dependency_cone(program.rules, neg)
    rules = [_reads_full(r, False) for r in program.rules] + [_reads_full(program.rules[i], True) for i in cone]
    needed = neg | {(a.predicate, a.negated) for i in cone for a in body_atoms(program.rules[i].body)}
    for rk, args, valid, key, conf in db.rows():
        if rk in needed:
            p, n = _full(rk)
            local.add(p, args, valid=valid, key=key, confidence=conf, negated=n)
    constraints = tuple(_reads_full(c, False) for c in program.constraints)
    prog = check_program(tuple(rules), constraints=constraints, vocabulary=program.vocabulary)
    return closure(prog, local, limits=limits, record_proofs=record_proofs, valid_at=valid_at)


@dataclass(frozen=True, slots=True)
class Answers:
    """Query answers: one row of terms per solution, sorted by ``term_sort_key`` of the row."""

    variables: tuple[str, ...]
    rows: tuple[tuple[Term, ...], ...]
    truncated: bool = False
    limit_hit: LimitHit | None = None
    strategy: str = "magic"


def ask(program: Program, db: Database, query: Query, *, limits: Limits | None = None,
        valid_at: int | None = None) -> Answers:
    """Goal-directed answers to ``query`` (magic sets, :mod:`.magic`) that hold at ``valid_at``
    (at any time when None).

    Returns the same answers as ``closure(program, db, valid_at=...).query(query)`` (property-tested).
    """
    require_checked(program)
    has_depth = any(r.depth is not None for r in program.rules)
    rewritten = None if has_depth else rewrite(program, query)
    names = tuple(v.name for v in query.variables)
    if rewritten is not None:
        prog, answer = rewritten
        model = closure(prog, db, limits=limits, valid_at=valid_at)
        rows = tuple(sorted(set(model.relation(answer)), key=lambda r: [term_sort_key(t) for t in r]))
        return Answers(names, rows, model.truncated, model.limit_hit, "magic")
    preds = set()
    for b in query.body:
        for a in _atoms(b):
            preds.add((a.predicate, a.negated))
    cone = dependency_cone(program.rules, preds)
    sub = check_program(tuple(program.rules[i] for i in cone), vocabulary=program.vocabulary)
    model = closure(sub, db, limits=limits, valid_at=valid_at)
    page = model.query_page(query)
    return Answers(names, page.items, model.truncated or page.truncated, model.limit_hit or page.limit_hit, "cone")


def _atoms(b):
    if isinstance(b, Atom):
        return [b]
    if isinstance(b, Negation):
        return [b.atom]
    if isinstance(b, Aggregate):
        return list(b.body)
    return []
