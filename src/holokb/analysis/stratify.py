"""Stratification: SCCs of the predicate dependency graph; no cycle may pass through ``not``
or an aggregate.

Relations are keyed like the engine's: (predicate, negated) — a rule with head ``not ex:p(..)``
derives negative facts, a separate relation from ``ex:p``.  Everything is iterated in sorted
or source order, so strata and the cycle reported are deterministic.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ..core.terms import IRI, RDF_TYPE
from .program import Aggregate, Atom, Const, Negation, Rule

Key = tuple[str, bool]
#: Separates rdf:type from the class in a per-class relation key.
CLASS_SEP = "\x00"


def atom_key(a: Atom) -> Key:
    """The relation key of an atom; ``rdf:type(?x, C)`` is refined per class C so that class
    memberships stratify like the unary predicates they were written as."""
    if a.predicate == RDF_TYPE and len(a.args) == 2 and isinstance(a.args[1], Const) and isinstance(a.args[1].term, IRI):
        return (RDF_TYPE + CLASS_SEP + a.args[1].term.value, a.negated)
    return (a.predicate, a.negated)


@dataclass(frozen=True, slots=True)
class Edge:
    """``head`` depends on ``body`` through rule ``rule`` (index); ``negative`` for not/aggregates."""

    head: Key
    body: Key
    negative: bool
    rule: int


@dataclass(frozen=True, slots=True)
class NegativeCycle:
    """A cycle through negation or aggregation: its edges in order (each head needs the next
    edge's head) and the rules on it, in source order."""

    edges: tuple[Edge, ...]
    rules: tuple[int, ...]
    via_aggregate: bool


def dependency_edges(rules: tuple[Rule, ...]) -> list[Edge]:
    """All dependency edges of the (non-constraint) rules, in rule order."""
    heads = {atom_key(r.head) for r in rules if r.head is not None}
    type_family = sorted(k for k in heads if k[0].startswith(RDF_TYPE))

    def reads(a: Atom) -> list[Key]:
        k = atom_key(a)
        if k[0] == RDF_TYPE:  # a variable class reads every class relation
            return [k] + [f for f in type_family if f[1] == k[1] and f != k]
        if k[0].startswith(RDF_TYPE + CLASS_SEP) and (RDF_TYPE, k[1]) in heads:
            return [k, (RDF_TYPE, k[1])]
        return [k]

    edges: list[Edge] = []
    for i, r in enumerate(rules):
        if r.head is None:
            continue
        h = atom_key(r.head)
        for b in r.body:
            if isinstance(b, Atom):
                edges.extend(Edge(h, k, False, i) for k in reads(b))
            elif isinstance(b, Negation):
                edges.extend(Edge(h, k, True, i) for k in reads(b.atom))
            elif isinstance(b, Aggregate):
                edges.extend(Edge(h, k, True, i) for a in b.body for k in reads(a))
    return edges


def _sccs(nodes: list[Key], succ: dict[Key, list[Key]]) -> dict[Key, int]:
    """Tarjan's algorithm, iterative; returns node → component id."""
    index: dict[Key, int] = {}
    low: dict[Key, int] = {}
    comp: dict[Key, int] = {}
    stack: list[Key] = []
    on_stack: set[Key] = set()
    counter = 0
    ncomp = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            children = succ.get(v, [])
            if i < len(children):
                work.append((v, i + 1))
                w = children[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return comp


def stratify(rules: tuple[Rule, ...]) -> tuple[tuple[tuple[int, ...], ...], list[NegativeCycle]]:
    """(strata as rule indices lowest first, cycles through negation/aggregation)."""
    edges = dependency_edges(rules)
    nodes = sorted({e.head for e in edges} | {e.body for e in edges}
                   | {atom_key(r.head) for r in rules if r.head is not None})
    succ: dict[Key, list[Key]] = {}
    for e in edges:  # head → body: "needs"
        succ.setdefault(e.head, [])
        if e.body not in succ[e.head]:
            succ[e.head].append(e.body)
    for k in succ:
        succ[k].sort()
    comp = _sccs(nodes, succ)

    cycles: list[NegativeCycle] = []
    reported: set[int] = set()
    for e in edges:
        if e.negative and comp[e.head] == comp[e.body] and comp[e.head] not in reported:
            reported.add(comp[e.head])
            cycles.append(_cycle(e, edges, comp, rules))

    # Stratum of a relation: longest path counting negative edges, over the condensation.
    level: dict[Key, int] = {k: 0 for k in nodes}
    if not cycles:
        for _ in range(len(nodes) + 1):
            changed = False
            for e in edges:
                want = level[e.body] + (1 if e.negative else 0)
                if want > level[e.head]:
                    level[e.head] = want
                    changed = True
            if not changed:
                break
    by_level: dict[int, list[int]] = {}
    for i, r in enumerate(rules):
        if r.head is not None:
            by_level.setdefault(level[atom_key(r.head)], []).append(i)
    strata = tuple(tuple(by_level[k]) for k in sorted(by_level))
    return strata, cycles


def _cycle(neg: Edge, edges: list[Edge], comp: dict[Key, int], rules) -> NegativeCycle:
    """The shortest cycle through the negative edge ``neg`` (BFS from its body back to its head)."""
    c = comp[neg.head]
    inner = [e for e in edges if comp[e.head] == c and comp[e.body] == c]
    # Walk "needs" edges from neg.body until neg.head is reached.
    prev: dict[Key, Edge | None] = {neg.body: None}
    queue = deque([neg.body])
    while queue:
        k = queue.popleft()
        if k == neg.head:
            break
        for e in inner:
            if e.head == k and e.body not in prev:
                prev[e.body] = e
                queue.append(e.body)
    path_edges = [neg]
    k = neg.head
    while prev.get(k) is not None:
        e = prev[k]
        path_edges.append(e)  # type: ignore[arg-type]
        k = e.head  # type: ignore[union-attr]
    forward = tuple([neg] + path_edges[:0:-1])
    rule_ids = tuple(sorted({e.rule for e in forward}))
    via_agg = any(isinstance(b, Aggregate) and any(atom_key(a) == e.body for a in b.body)
                  for e in forward if e.negative for b in rules[e.rule].body)
    return NegativeCycle(forward, rule_ids, via_agg)
