"""Magic-sets rewriting (left-to-right sideways information passing) for goal-directed queries.

A query ``?- body`` becomes the rule ``answer(vars) :- body``; every derived predicate reachable
from it is adorned with which argument positions arrive bound (``b``/``f``), each adorned rule is
guarded by a ``magic`` relation holding the bindings asked for, and magic rules pass bindings
from a head and the literals left of an atom to that atom.  Constants count as bound.  Derived
predicates that also have input facts get a copy rule from the input relation.

Negation and aggregates (stratified magic): a predicate read under ``not`` or inside an aggregate
anywhere in the query's cone is computed in full by its own rules, unguarded, together with
everything it depends on; guarded (adorned) rules read it like an input relation.  Full relations
never depend on guarded ones, so the rewritten program stays stratified whenever the original is,
and a negated atom always sees the complete relation (negation as failure stays sound).
"""
from __future__ import annotations

from ..analysis import check_program
from ..core.errors import RuleAnalysisError
from ..analysis.program import Aggregate, Assignment, Atom, Comparison, Const, Negation, Program, Query, Rule, Var
from .joins import expr_vars
from .model import INTERNAL

ANSWER = INTERNAL + "answer"


def _vars(a: Atom) -> set[str]:
    return {t.name for t in a.args if isinstance(t, Var)}


def dependency_cone(rules: tuple[Rule, ...], preds: set[tuple[str, bool]]) -> list[int]:
    """Indices of the rules the given relation keys depend on (transitively), in rule order."""
    by_head: dict = {}
    for i, r in enumerate(rules):
        by_head.setdefault((r.head.predicate, r.head.negated), []).append(i)
    seen, todo, keep = set(preds), list(preds), set()
    while todo:
        rk = todo.pop()
        for i in by_head.get(rk, ()):
            keep.add(i)
            for b in rules[i].body:
                atoms = [b] if isinstance(b, Atom) else [b.atom] if isinstance(b, Negation) else \
                    list(b.body) if isinstance(b, Aggregate) else []
                for a in atoms:
                    k = (a.predicate, a.negated)
                    if k not in seen:
                        seen.add(k)
                        todo.append(k)
    return sorted(keep)


def answer_rule(query: Query) -> Rule:
    """``answer(?v1, ..., ?vn) :- body`` for a query."""
    return Rule("?-", Atom(ANSWER, tuple(query.variables)), tuple(query.body))


def _adorned(a: Atom, bound: set[str]) -> str:
    return "".join("b" if isinstance(t, Const) or t.name in bound else "f" for t in a.args)


def _name(rk: tuple[str, bool], ad: str) -> str:
    return f"{INTERNAL}{rk[0]}#{'-' if rk[1] else '+'}#{ad}"


def _magic(rk: tuple[str, bool], ad: str) -> str:
    return f"{INTERNAL}magic#{rk[0]}#{'-' if rk[1] else '+'}#{ad}"


def negative_keys(rules) -> set[tuple[str, bool]]:
    """Relation keys read under ``not`` or inside an aggregate by any of ``rules``."""
    out: set[tuple[str, bool]] = set()
    for r in rules:
        for b in r.body:
            if isinstance(b, Negation):
                out.add((b.atom.predicate, b.atom.negated))
            elif isinstance(b, Aggregate):
                out.update((a.predicate, a.negated) for a in b.body)
    return out


def _bound_args(a: Atom, ad: str) -> tuple:
    return tuple(t for t, c in zip(a.args, ad) if c == "b")


def rewrite(program: Program, query: Query) -> tuple[Program, str] | None:
    """The magic-sets program for ``query`` and the answer relation name (module doc); None when the
    rewritten program would not stratify (the caller then closes the query's cone instead)."""
    rules = list(program.rules) + [answer_rule(query)]
    idb = {(r.head.predicate, r.head.negated) for r in rules}
    cone = dependency_cone(tuple(rules), {(ANSWER, False)})
    full = set(dependency_cone(tuple(rules), negative_keys(rules[i] for i in cone)))
    full_keys = {(rules[i].head.predicate, rules[i].head.negated) for i in full}
    out: list[Rule] = [rules[i] for i in sorted(full)]
    goal = ((ANSWER, False), "")
    todo, done = [goal], {goal}
    while todo:
        rk, ad = todo.pop(0)
        guard = Atom(_magic(rk, ad), _bound_args(Atom(rk[0], tuple(Var(f"_h{i}") for i in range(len(ad)))), ad))
        for i in cone:
            r = rules[i]
            if (r.head.predicate, r.head.negated) != rk:
                continue
            head_guard = Atom(guard.predicate, _bound_args(r.head, ad))
            bound = {t.name for t, c in zip(r.head.args, ad) if c == "b" and isinstance(t, Var)}
            body: list = [head_guard]
            prefix: list = [head_guard]
            for b in r.body:
                if isinstance(b, Atom) and (b.predicate, b.negated) in idb and (b.predicate, b.negated) not in full_keys:
                    bad = _adorned(b, bound)
                    brk = (b.predicate, b.negated)
                    out.append(Rule(f"magic:{r.name}", Atom(_magic(brk, bad), _bound_args(b, bad)), tuple(prefix)))
                    if (brk, bad) not in done:
                        done.add((brk, bad))
                        todo.append((brk, bad))
                    new = Atom(_name(brk, bad), b.args, False, b.origin)
                    body.append(new)
                    prefix.append(new)
                    bound |= _vars(b)
                elif isinstance(b, Atom):
                    body.append(b)
                    prefix.append(b)
                    bound |= _vars(b)
                else:
                    body.append(b)
                    needs = expr_vars(b.left) | expr_vars(b.right) if isinstance(b, Comparison) else \
                        expr_vars(b.expr) if isinstance(b, Assignment) else None
                    if needs is not None and needs <= bound:
                        prefix.append(b)
                        if isinstance(b, Assignment):
                            bound.add(b.target.name)
            out.append(Rule(r.name, Atom(_name(rk, ad), r.head.args, False, r.head.origin), tuple(body),
                            r.weight, r.depth, r.origin))
        if rk[0] != ANSWER:  # facts of a derived predicate that were also given as input
            vs = tuple(Var(f"_c{i}") for i in range(len(ad)))
            copy = Atom(rk[0], vs, rk[1])
            out.append(Rule(f"input:{rk[0]}", Atom(_name(rk, ad), vs), (Atom(guard.predicate, _bound_args(copy, ad)), copy)))
    seed = Rule("magic:seed", Atom(_magic((ANSWER, False), ""), ()), ())
    try:
        checked = check_program(tuple([seed] + out), vocabulary=program.vocabulary)
    except RuleAnalysisError:  # pragma: no cover - full relations never read guarded ones
        return None
    return checked, _name((ANSWER, False), "")
