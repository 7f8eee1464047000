"""Every parse of a sentence that its grammar's priorities leave standing, so the reader can tell
whether they mean the same thing.

The grammar is parsed with lark's Earley parser and ``ambiguity="explicit"``: a sentence whose
token types fit several derivations comes back with ``_ambig`` nodes.  Rule priorities
(``be_a_adj.2``, ``bare.-1``, …) are the grammar's deliberate preferences; at each ambiguous node
only the alternatives with the highest summed priority stay (lark's own ``resolve`` does the same
locally).  Derivations that differ only in a way the interpreter gives one meaning ("is cold" as an
adjective or as a class noun, "is not rough" with the negation on the predicate or on the item) are
folded into one tree, so most sentences keep a single parse; the reader interprets the rest one by
one and refuses the sentence when their meanings differ.
"""
from __future__ import annotations

from dataclasses import dataclass

from lark import Lark, Token, Tree

#: More derivations than this (after priorities and folding) and the sentence is refused, not guessed.
MAX_PARSES = 64


@dataclass(frozen=True, slots=True)
class Parses:
    """The distinct parse trees of one token-type sequence, best priority first; ``truncated`` when
    there were more than :data:`MAX_PARSES` (the sentence is then refused)."""

    trees: tuple[Tree, ...]
    truncated: bool = False


def priorities(parser: Lark) -> dict[str, int]:
    """Tree label → rule priority, for the rules that declare one."""
    out: dict[str, int] = {}
    for rule in parser.rules:
        if rule.options.priority:
            out[str(rule.alias or rule.origin.name)] = rule.options.priority
    return out


def parses(tree: Tree, prio: dict[str, int]) -> Parses:
    """The distinct readings of an explicit-ambiguity tree under the grammar's priorities."""
    alts, truncated = _alternatives(tree, prio)
    out: list[Tree] = []
    for _, t in alts:
        c = _fold(t)
        if c not in out:
            out.append(c)
    return Parses(tuple(out), truncated)


def _alternatives(t: Tree | Token, prio: dict[str, int]) -> tuple[list[tuple[int, Tree | Token]], bool]:
    """(summed priority, tree) for each derivation of ``t`` that wins its priority contests."""
    if isinstance(t, Token):
        return [(0, t)], False
    truncated = False
    if t.data == "_ambig":
        out: list[tuple[int, Tree | Token]] = []
        for c in t.children:
            a, tr = _alternatives(c, prio)
            out.extend(a)
            truncated |= tr
        best = max(s for s, _ in out)
        out = [(s, x) for s, x in out if s == best]
        return out[:MAX_PARSES], truncated or len(out) > MAX_PARSES
    combos: list[tuple[int, list]] = [(prio.get(str(t.data), 0), [])]
    for c in t.children:
        a, tr = _alternatives(c, prio)
        truncated |= tr
        combos = [(s + s2, kids + [x]) for s, kids in combos for s2, x in a]
        if len(combos) > MAX_PARSES:
            combos, truncated = combos[:MAX_PARSES], True
    return [(s, Tree(t.data, kids)) for s, kids in combos], truncated


def _fold(t: Tree | Token) -> Tree | Token:
    """One tree for derivations the interpreter reads alike (see the module docstring): a one-word
    class noun after a copula is that word as an adjective ("is cold"), and a copula's negation moves
    onto its adjectives ("is not rough" = "is (not rough)")."""
    if isinstance(t, Token):
        return t
    kids = [_fold(c) for c in t.children]
    if t.data == "be_type" and not any(isinstance(c, Token) and c.type == "A" for c in kids):
        trees = [c for c in kids if isinstance(c, Tree)]
        if len(trees) == 1 and trees[0].data == "nominal" and len(trees[0].children) == 1:
            kids = [c for c in kids if isinstance(c, Token)] + [Tree("adjectives", [Tree("adj_item", list(trees[0].children))])]
            t = Tree("be_adj", kids)
    if t.data == "be_adj":
        nots = [c for c in kids if isinstance(c, Token) and c.type == "NOT"]
        if nots:
            if any(isinstance(c, Tree) and any(_own_not(i) for i in c.children) for c in kids):
                # "is not red and not big" as one "not" over "red and not big": no English reading (each
                # "not" denies its own adjective, the other derivation); a form the interpreter refuses
                return Tree("be_adj_not_over_not", kids)
            kids = [_toggle_items(c, nots[0]) if isinstance(c, Tree) else c for c in kids if c is not nots[0]]
    return Tree(t.data, kids)


def _own_not(item: Tree | Token) -> bool:
    return isinstance(item, Tree) and item.data == "adj_item" and any(
        isinstance(c, Token) and c.type == "NOT" for c in item.children)


def _toggle_items(adjectives: Tree, not_token: Token) -> Tree:
    """``adjectives`` with each item's negation flipped (the interpreter negates an item when the
    copula's NOT and the item's NOT differ)."""
    items = []
    for item in adjectives.children:
        if isinstance(item, Tree) and item.data == "adj_item":
            words = [c for c in item.children if not (isinstance(c, Token) and c.type == "NOT")]
            item = Tree("adj_item", words if _own_not(item) else [not_token] + words)
        items.append(item)
    return Tree(adjectives.data, items)
