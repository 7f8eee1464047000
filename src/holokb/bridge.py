"""The bridge between the triple view and user rules: entailments reach binary predicates, and back.

``rules/rdfs.hkr`` and ``rules/owl2rl.hkr`` quantify over properties, so they read and write one
ternary relation ``hk:triple(?s, ?p, ?o)``; user rules read and write binary predicates
(``ex:teaches(?x, ?y)``, ``ex:Person(?x)`` = ``rdf:type(?x, ex:Person)``).  When a program has both,
:func:`bridge` adds two kinds of plain rules:

- *from the triple view*, for each binary predicate (and each class) a rule reads:
  ``ex:p(?s, ?o) :- hk:triple(?s, ex:p, ?o)`` — an RDFS-entailed type reaches a user rule;
- *to the triple view*, for each binary predicate (and class) a rule derives:
  ``hk:triple(?s, ex:p, ?o) :- ex:p(?s, ?o)`` — RDFS sees what user rules conclude
  (asserted facts are in the triple view already).

Stratification-aware: a rule *to* the triple view is added only when the predicate does not
depend on the triple view through ``not`` or an aggregate (otherwise the triple view would depend
on its own negation); such predicates are listed in :class:`Bridged.held_back`.  Predicates in
holokb's own namespace (``hk:``, the ``rl:`` helpers of owl2rl.hkr) are never bridged.  Adding the
bridge twice adds nothing (rules are recognised by name).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable

from .analysis import Program, check_program
from .analysis.program import Atom, Const, Rule, Var, body_atoms
from .analysis.stratify import CLASS_SEP, atom_key, dependency_edges, stratify
from .core import HK, IRI, RDF_TYPE

TRIPLE = HK + "triple"
_S, _O = Var("s"), Var("o")


@dataclass(frozen=True, slots=True)
class Bridged:
    """A program with its bridge rules, and the predicates not fed back into the triple view."""

    program: Program
    held_back: tuple[str, ...] = ()


def _uses_triple(program: Program) -> bool:
    return any(a.predicate == TRIPLE for r in program.rules for a in (r.head, *body_atoms(r.body)) if a is not None)


def _bridgeable(a: Atom) -> bool:
    return a.arity == 2 and not a.predicate.startswith(HK)


def _name(kind: str, key: str, taken: set[str]) -> str:
    """A readable, unique rule name such as ``triple_to_Person`` (``key``: predicate or class IRI)."""
    local = re.sub(r"[^A-Za-z0-9_]", "_", re.split(r"[#/:]", key.rstrip("#/"))[-1]) or "p"
    base = f"{kind}_{local}" if kind == "triple_to" else f"{local}_to_triple"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def _down(key: str) -> Rule:
    """``p(?s, ?o) :- hk:triple(?s, p, ?o)`` (or per class: ``rdf:type(?s, C) :- hk:triple(?s, rdf:type, C)``)."""
    if key.startswith(RDF_TYPE + CLASS_SEP):
        cls = Const(IRI(key[len(RDF_TYPE + CLASS_SEP):]))
        return Rule("", Atom(RDF_TYPE, (_S, cls)), (Atom(TRIPLE, (_S, Const(IRI(RDF_TYPE)), cls)),))
    return Rule("", Atom(key, (_S, _O)), (Atom(TRIPLE, (_S, Const(IRI(key)), _O)),))


def _up(key: str) -> Rule:
    """``hk:triple(?s, p, ?o) :- p(?s, ?o)`` (per class for ``rdf:type`` with a constant class)."""
    if key.startswith(RDF_TYPE + CLASS_SEP):
        cls = Const(IRI(key[len(RDF_TYPE + CLASS_SEP):]))
        return Rule("", Atom(TRIPLE, (_S, Const(IRI(RDF_TYPE)), cls)), (Atom(RDF_TYPE, (_S, cls)),))
    return Rule("", Atom(TRIPLE, (_S, Const(IRI(key)), _O)), (Atom(key, (_S, _O)),))


def _bare(a: Atom) -> Atom:
    return replace(a, origin=None)


def _shape(rule: Rule) -> tuple:
    """What a rule says, without its name or source positions (bridge rules are recognised by it)."""
    head = None if rule.head is None else _bare(rule.head)
    return (head, tuple(_bare(b) if isinstance(b, Atom) else b for b in rule.body))


def _is_bridge(rule: Rule) -> bool:
    """Whether a rule is a bridge rule (added here before, perhaps read back from a stored rule set)."""
    head, body = _shape(rule)
    if head is None or len(body) != 1 or not isinstance(body[0], Atom):
        return False
    if head.predicate == TRIPLE and _bridgeable(body[0]):
        return _shape(_up(atom_key(body[0])[0])) == (head, body)
    if body[0].predicate == TRIPLE and _bridgeable(head):
        return _shape(_down(atom_key(head)[0])) == (head, body)
    return False


def _keys(atoms: Iterable[Atom]) -> list[str]:
    """Relation keys (per class for ``rdf:type``) of the bridgeable positive-polarity atoms, sorted."""
    return sorted({atom_key(a)[0] for a in atoms if _bridgeable(a) and not a.negated})


def _negative_reach(rules: tuple[Rule, ...]) -> set[tuple[str, bool]]:
    """Relations that depend on the triple view through a path with a `not` or an aggregate."""
    edges = dependency_edges(rules)
    needs: dict = {}
    for e in edges:
        needs.setdefault(e.head, []).append(e)
    reaches: set = {(TRIPLE, False)}
    changed = True
    while changed:  # relations that depend on the triple view at all
        changed = False
        for e in edges:
            if e.body in reaches and e.head not in reaches:
                reaches.add(e.head)
                changed = True
    bad = {e.head for e in edges if e.negative and e.body in reaches}
    changed = True
    while changed:
        changed = False
        for e in edges:
            if e.body in bad and e.head not in bad:
                bad.add(e.head)
                changed = True
    return bad


def bridge(program: Program, *, reads: Iterable[Atom] = ()) -> Bridged:
    """``program`` with bridge rules between ``hk:triple`` and the binary predicates its rules (and
    ``reads``, e.g. a query's atoms) use; the program unchanged when it has no triple-view rules."""
    if not _uses_triple(program):
        return Bridged(program)
    taken = {r.name for r in program.rules}
    present = {_shape(r) for r in program.rules}
    every = tuple(r for r in tuple(program.rules) + tuple(program.constraints) if not _is_bridge(r))
    read_atoms = [a for r in every for a in body_atoms(r.body)] + [
        a for q in program.queries for a in body_atoms(q.body)] + list(reads)
    head_atoms = [r.head for r in every if r.head is not None and r.head.predicate != TRIPLE]
    added: list[Rule] = []

    def add(kind: str, key: str, rule: Rule) -> None:
        if _shape(rule) in present:
            return
        named = replace(rule, name=_name(kind, key, taken))
        taken.add(named.name)
        present.add(_shape(rule))
        added.append(named)

    for key in _keys(read_atoms):
        add("triple_to", key, _down(key))
    down = tuple(program.rules) + tuple(added)
    bad = _negative_reach(down)
    held_back = []
    for key in _keys(head_atoms):
        if (key, False) in bad or (key.startswith(RDF_TYPE + CLASS_SEP) and (RDF_TYPE, False) in bad):
            held_back.append(key.split(CLASS_SEP)[-1])  # the predicate, or the class for rdf:type
            continue
        add("to_triple", key, _up(key))
    if not added:
        return Bridged(program, tuple(held_back))
    rules = tuple(program.rules) + tuple(added)
    if stratify(rules)[1]:  # cannot happen (held back above); never hand the engine an unstratified program
        return Bridged(program, tuple(k.split(CLASS_SEP)[-1] for k in _keys(head_atoms)))
    return Bridged(check_program(rules, constraints=program.constraints, queries=program.queries,
                                 vocabulary=program.vocabulary, prefixes=program.prefixes, facts=program.facts),
                   tuple(held_back))


__all__ = ["Bridged", "TRIPLE", "bridge"]
