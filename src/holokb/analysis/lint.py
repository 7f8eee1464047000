"""Warnings about a checked program against what the KB holds: predicates nobody declared, predicates
nothing produces, rules that can never fire — each with a "did you mean" where a close name exists.

These are the silent ways a rule query answers "no answers": a typo in a predicate, a declared
relation the ledger has no facts of (or none at the time asked about), a rule whose body needs such
a relation.  ``holokb check`` and ``holokb ask`` print them; they are warnings (the program is valid
and the question may still be meant).  What the KB holds comes in as a :class:`Census` built from
the ledger (:func:`holokb.reasoning.census`), so this module stays free of the ledger.

Codes (stable):

- HK250 a predicate no declaration, rule or fact mentions (usually a typo: "did you mean");
- HK251 a declared predicate that nothing produces: no rule derives it and the ledger has no facts
  of it (or none at the time asked about, when it has some at other times);
- HK252 a rule that can never fire, with the reason (a relation nothing produces, or one that only
  comes from rules that cannot fire themselves);
- HK253 a query that can have no answers for the same reasons.

A unary atom ``ex:Person(?x)`` is ``rdf:type(?x, ex:Person)`` (the KB's convention): it is produced
by ``rdf:type`` facts with that class and by rules deriving that class (or a variable class).  The
ternary ``hk:triple(?s, ?p, ?o)`` sees every visible triple.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..core.errors import Diagnostic, Location
from ..core.terms import HK, IRI, RDF_TYPE
from .program import Atom, Const, Program, Query, body_atoms
from .render import Names

UNDECLARED = "HK250"
UNPRODUCED = "HK251"
DEAD_RULE = "HK252"
EMPTY_QUERY = "HK253"

TRIPLE = HK + "triple"


@dataclass(frozen=True, slots=True)
class Census:
    """What the KB holds: predicates with facts and the classes of ``rdf:type`` facts, at the time
    ``when`` describes (``""``: at any time); ``other_*`` are those with facts only at other times."""

    predicates: frozenset[str] = frozenset()
    classes: frozenset[str] = frozenset()
    when: str = ""
    other_predicates: frozenset[str] = frozenset()
    other_classes: frozenset[str] = frozenset()

    def keys(self) -> set:
        return set(self.predicates) | {("class", c) for c in self.classes}

    def elsewhere(self, key) -> bool:
        return (key[1] in self.other_classes) if isinstance(key, tuple) else key in self.other_predicates


def _key(a: Atom):
    """A relation as rules see it: the predicate IRI, or ("class", IRI) for rdf:type with a constant class."""
    if a.predicate == RDF_TYPE and len(a.args) == 2 and isinstance(a.args[1], Const) and isinstance(a.args[1].term, IRI):
        return ("class", a.args[1].term.value)
    return a.predicate


def _needs(body) -> list[Atom]:
    """Atoms a body needs facts of: the positive ones (a negation or an aggregate may hold on nothing)."""
    return [b for b in body if isinstance(b, Atom)]


class _World:
    """What can be produced: facts (census, rule-file facts) and rule heads, closed to a fixpoint."""

    def __init__(self, program: Program, census: Census | None):
        self.census = census
        have = census.keys() if census is not None else set()
        have.update(_key(a) for a in program.facts if not a.negated)
        self.facts = set(have)
        self.any_triple = census is not None and bool(census.predicates)
        self.any_class = False
        self.have = have
        self.live: set[int] = set()
        rules = [r for r in program.rules if r.head is not None]
        changed = True
        while changed:
            changed = False
            for i, r in enumerate(rules):
                if id(r) in self.live or not all(self.available(_key(a)) for a in _needs(r.body)):
                    continue
                self.live.add(id(r))
                changed = True
                head = r.head
                assert head is not None
                if head.predicate == TRIPLE:
                    self.any_triple = True
                elif head.predicate == RDF_TYPE and not isinstance(_key(head), tuple):
                    self.any_class = True
                have.add(_key(head))
        self.heads: dict = {}
        for r in rules:
            self.heads.setdefault(_key(r.head), []).append(r)  # type: ignore[arg-type]

    def available(self, key) -> bool:
        if key == TRIPLE:
            return self.any_triple
        if isinstance(key, tuple):
            return self.any_class or key in self.have
        if key == RDF_TYPE:
            return self.any_class or key in self.have or any(isinstance(k, tuple) for k in self.have)
        return key in self.have


def lint(program: Program, census: Census | None = None, *, query: Query | None = None) -> tuple[Diagnostic, ...]:
    """Warnings for ``program`` (and ``query``), sorted by place.

    Without a census (no ledger) the facts are unknown, so only names that look like typos of a
    declared or derived name are reported; with one, every relation nothing produces is.
    """
    names = Names(program.prefixes)
    world = _World(program, census)
    vocab = set(program.vocabulary)

    def show(key) -> str:
        return names.iri(key[1]) if isinstance(key, tuple) else names.iri(key)

    mentioned = set(world.heads) | world.facts | set(vocab) | {("class", p) for p in vocab}
    candidates = sorted({show(k) for k in mentioned})

    def did_you_mean(key) -> str | None:
        close = [c for c in difflib.get_close_matches(show(key), candidates, n=3, cutoff=0.75) if c != show(key)]
        return f"did you mean {close[0]}?" if close else None

    def no_facts(key) -> str:
        if census is None:
            return "no ledger was read"
        if census.when and census.elsewhere(key):
            return f"the ledger has no {show(key)} facts {census.when} (it has some at other times)"
        return f"the ledger has no {show(key)} facts" + (f" {census.when}" if census.when else "")

    # With a query, only what the query depends on matters (other rules are not asked about).
    relevant = _relevant(query, world) if query is not None else None
    rules = [r for r in program.rules if relevant is None or r.head is None or _key(r.head) in relevant]
    constraints = program.constraints if relevant is None else ()

    # -- relations read but produced by nothing at all (not even by rules that cannot fire) -----------
    readers: dict = {}
    first: dict = {}
    for r in (*rules, *constraints):
        what = f"{'constraint' if r.head is None else 'rule'} '{r.name}'"
        for a in body_atoms(r.body):
            _read(_key(a), a, what, world, readers, first)
    queries = (query,) if query is not None else program.queries
    for q in queries:
        for a in body_atoms(q.body):
            _read(_key(a), a, "the query", world, readers, first)

    out: list[Diagnostic] = []
    for key, atom in first.items():
        declared = (key[1] if isinstance(key, tuple) else key) in vocab or key in world.facts
        what = f"class {show(key)}" if isinstance(key, tuple) else show(key)
        notes = (f"read by {', '.join(dict.fromkeys(readers[key]))}",)
        hint = did_you_mean(key)
        if census is None and (hint is None or declared):
            continue  # without facts, only a likely typo is worth a word
        if census is not None and census.when and census.elsewhere(key):
            hint = hint or "ask about a time when it holds (--valid / --as-of)"
        if declared:
            out.append(Diagnostic(UNPRODUCED, f"{what} is declared but nothing produces it: no rule derives it "
                                  f"and {no_facts(key)}", atom.origin, severity="warning", notes=notes,
                                  hint=hint or "load facts of it, or add a rule that derives it"))
        else:
            arity = 1 if isinstance(key, tuple) else len(atom.args)
            out.append(Diagnostic(UNDECLARED, f"{what} is not declared, no rule derives it and {no_facts(key)}",
                                  atom.origin, severity="warning", notes=notes,
                                  hint=hint or f"declare it (vocabulary: {show(key)}/{arity}) or load facts of it"))

    if census is not None:
        for r in rules:
            if r.head is None or id(r) in world.live:
                continue
            out.append(Diagnostic(DEAD_RULE, f"rule '{r.name}' can never fire: {_why(r.body, world, show)}",
                                  r.origin, severity="warning",
                                  hint="it derives nothing until the relations it needs have facts"))
        for q in queries:
            if all(world.available(_key(a)) for a in _needs(q.body)):
                continue
            missing = [_key(a) for a in _needs(q.body) if not world.available(_key(a))]
            if all(k in first for k in missing):
                continue  # already said, at the atom
            out.append(Diagnostic(EMPTY_QUERY, f"the query can have no answers: {_why(q.body, world, show)}",
                                  q.origin, severity="warning"))
    return tuple(sorted(out, key=_order))


def _relevant(query: Query, world: _World) -> set:
    """The relations ``query`` depends on through rules (its own atoms' relations, then the bodies of
    the rules deriving them, and so on)."""
    todo = [_key(a) for a in body_atoms(query.body)]
    seen: set = set()
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        for r in world.heads.get(k, ()):
            todo.extend(_key(a) for a in body_atoms(r.body))
    return seen


def _read(key, atom: Atom, where: str, world: _World, readers: dict, first: dict) -> None:
    if world.available(key) or key in world.heads:
        return
    if key == RDF_TYPE and world.any_class:
        return
    readers.setdefault(key, []).append(where)
    first.setdefault(key, atom)


def _why(body, world: _World, show) -> str:
    """Why a body cannot be satisfied: the relations it needs that nothing (live) produces."""
    roots, via = [], []
    for a in _needs(body):
        k = _key(a)
        if world.available(k):
            continue
        rules = world.heads.get(k)
        if rules:
            via.append(f"{show(k)} comes only from {', '.join(repr(r.name) for r in rules)}, which cannot fire")
        else:
            roots.append(show(k))
    parts = ([f"nothing produces {', '.join(dict.fromkeys(roots))}"] if roots else []) + list(dict.fromkeys(via))
    return "; ".join(parts)


def _order(d: Diagnostic) -> tuple:
    loc: Location | None = d.location
    return ((loc.file or "", loc.line, loc.column) if loc else ("", 0, 0)) + (d.code, d.message)


__all__ = ["Census", "DEAD_RULE", "EMPTY_QUERY", "UNDECLARED", "UNPRODUCED", "lint"]
