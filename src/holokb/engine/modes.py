"""The two bounded modes: local closure around seeds, and goal-directed answering of a query."""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis import check_program
from ..analysis.program import Aggregate, Atom, Negation, Program, Query
from ..core.limits import LimitHit, Limits
from ..core.terms import IRI, Term, term_sort_key
from .closure import closure, require_checked
from .database import Database
from .magic import dependency_cone, rewrite
from .model import Model


def neighbourhood(db: Database, seeds, hops: int) -> Database:
    """The facts within ``hops`` hops of the seed entities, as a new database sharing the terms.

    Hop 1 is every fact that mentions a seed; hop k adds the facts that mention an IRI reached
    at hop k−1.  Literals never extend the frontier (a shared number is not a connection).
    """
    frontier = {s for s in seeds if isinstance(s, IRI)}
    reached = set(frontier)
    kept: set[tuple] = set()
    facts = [(rk, f) for rk, rows in db._facts.items() for f in rows]
    for _ in range(hops):
        nxt = set()
        for i, (rk, f) in enumerate(facts):
            if i in kept:
                continue
            if any(a in frontier for a in f[0]):
                kept.add(i)
                nxt.update(a for a in f[0] if isinstance(a, IRI) and a not in reached)
        reached |= nxt
        frontier = nxt
        if not frontier:
            break
    out = Database(db.terms)
    for i in sorted(kept):
        rk, (args, valid, key, conf) = facts[i]
        out.add(rk[0], args, valid=valid, key=key, confidence=conf, negated=rk[1])
    return out


def local_closure(program: Program, db: Database, seeds: tuple[Term, ...], *, hops: int = 3,
                  limits: Limits | None = None, record_proofs: bool = True) -> Model:
    """ThinkingDB's bounded local closure: close only the ``hops``-hop neighbourhood of ``seeds``."""
    return closure(program, neighbourhood(db, seeds, hops), limits=limits, record_proofs=record_proofs)


@dataclass(frozen=True, slots=True)
class Answers:
    """Query answers: one row of terms per solution, sorted by ``term_sort_key`` of the row."""

    variables: tuple[str, ...]
    rows: tuple[tuple[Term, ...], ...]
    truncated: bool = False
    limit_hit: LimitHit | None = None
    strategy: str = "magic"


def ask(program: Program, db: Database, query: Query, *, limits: Limits | None = None) -> Answers:
    """Goal-directed answers to ``query``: magic sets for positive cones, else the cone's closure.

    Returns the same answers as ``closure(program, db).query(query)`` (property-tested).
    """
    require_checked(program)
    has_depth = any(r.depth is not None for r in program.rules)
    rewritten = None if has_depth else rewrite(program, query)
    names = tuple(v.name for v in query.variables)
    if rewritten is not None:
        prog, answer = rewritten
        model = closure(prog, db, limits=limits)
        rows = tuple(sorted(set(model.relation(answer)), key=lambda r: [term_sort_key(t) for t in r]))
        return Answers(names, rows, model.truncated, model.limit_hit, "magic")
    preds = set()
    for b in query.body:
        for a in _atoms(b):
            preds.add((a.predicate, a.negated))
    cone = dependency_cone(program.rules, preds)
    sub = check_program(tuple(program.rules[i] for i in cone), vocabulary=program.vocabulary)
    model = closure(sub, db, limits=limits)
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
