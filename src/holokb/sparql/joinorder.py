"""Triple patterns put in an order pyoxigraph joins well, from the snapshot's statistics.

pyoxigraph plans a basic graph pattern greedily with fixed size guesses (a pattern with a constant
object is "1000 rows", one with two variables "a million"), so patterns that guess alike tie and
the tie goes to the first one in the query text.  On LUBM that choice alone moves q02 from 32 ms
to under 1 ms and q09 from 48 to 24 ms (in-memory store, CPU).  This module reads the query just
enough to find runs of plain triple patterns inside one group and writes each run in the order a
greedy planner with real counts would join them (smallest estimated pattern first, then always a
pattern sharing a variable with those before it, estimated with those variables bound).

Only the order of the text changes, and only where that cannot change the answer: a run is
consecutive ``s p o .`` patterns (variables, IRIs, prefixed names, literals, ``a``) in one group —
never across OPTIONAL, MINUS, UNION, BIND, VALUES, FILTER, subqueries, GRAPH or SERVICE — and a
query whose result may depend on the order solutions come in (LIMIT/OFFSET, ORDER BY, REDUCED,
SAMPLE, GROUP_CONCAT, SUM/AVG/MIN/MAX, BNODE/RAND/UUID/STRUUID, SERVICE) or that is not a SELECT
or ASK is passed through untouched, as is anything the reader does not understand.  The same
multiset of solutions either way (tests/sparql/test_join_order.py).

Statistics (:mod:`.join_stats`) are made when the snapshot is built and kept in its ``meta.json``:
triples per predicate with distinct subjects and objects, and ``rdf:type`` triples per class.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"

_TOKEN = re.compile(
    r'(?P<ws>\s+|#[^\n]*)'
    r'|(?P<iri><[^<>"{}|^`\\\s]*>)'
    r'|(?P<lit>(?:"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\')'
    r'(?:@[A-Za-z]+(?:-[A-Za-z0-9]+)*|\^\^(?:<[^<>"{}|^`\\\s]*>|(?:[^\W\d][\w.-]*)?:(?:[\w:%-]|\\\S|\.+(?=[\w:%-]))*))?)'
    r'|(?P<var>[?$]\w+)'
    r'|(?P<bnode>_:[\w-]+(?:\.+[\w-]+)*)'
    r'|(?P<pname>(?:[^\W\d][\w.-]*)?:(?:[\w:%-]|\\\S|\.+(?=[\w:%-]))*)'
    r'|(?P<num>[+-]?(?:\d+\.\d*[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?))'
    r'|(?P<word>[A-Za-z_]\w*)'
    r'|(?P<other>.)')
# Words that make a query's result depend on the order its solutions come in, or that this reader
# leaves alone (upper case; matched as whole words outside strings and IRIs).
_UNSAFE = frozenset({"LIMIT", "OFFSET", "ORDER", "REDUCED", "SAMPLE", "GROUP_CONCAT", "SUM", "AVG", "MIN", "MAX",
                     "BNODE", "RAND", "UUID", "STRUUID", "SERVICE", "LATERAL"})
_TERM = frozenset({"iri", "lit", "var", "bnode", "pname", "num"})
_PREDICATE = frozenset({"iri", "var", "pname"})
_OPENS_DATA = frozenset({"VALUES", "EXISTS"})  # a '{' after these is not a group this module reorders


def reorder(text: str, stats: Mapping[str, Any] | None, form: str,
            prefixes: Mapping[str, str] | None = None) -> str:
    """``text`` with each run of plain triple patterns in estimated join order (module doc); the
    text itself when nothing moves, when there are no ``stats``, or when the query is not one this
    module may touch."""
    if not stats or form not in ("SELECT", "ASK"):
        return text
    tokens = [(m.lastgroup, m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text) if m.lastgroup != "ws"]
    if any(k == "word" and v.upper() in _UNSAFE for k, v, _, _ in tokens):
        return text
    runs = _runs(tokens)
    if not runs:
        return text
    names = _prefixes(tokens, prefixes)
    out, last = [], 0
    for run in runs:
        order = _greedy([tuple(_term(tokens[i + j], names) for j in range(3)) for i in run], stats)
        if order == sorted(order):
            continue
        start, end = tokens[run[0]][2], tokens[run[-1] + 2][3]
        out.append(text[last:start])
        out.append(" .\n".join(text[tokens[run[k]][2]:tokens[run[k] + 2][3]] for k in order))
        last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _runs(tokens: list[tuple[str, str, int, int]]) -> list[list[int]]:
    """Runs of two or more plain triple patterns: each a list of their first tokens' indexes."""
    runs: list[list[int]] = []
    groups: list[bool] = []  # per open '{': may its patterns move
    depth = 0  # open '(' and '[' (a '{' inside them, FILTER(EXISTS {…}), is never reordered)
    data = False  # a VALUES data block or an EXISTS group opens at the next '{'
    run: list[int] = []
    at_start = False  # where a group element may begin: after '{', '.', or a nested group's '}'
    i, n = 0, len(tokens)

    def close() -> None:
        if len(run) > 1:
            runs.append(list(run))
        run.clear()

    while i < n:
        kind, value = tokens[i][0], tokens[i][1]
        if at_start and depth == 0 and groups and groups[-1] and i + 3 < n and _plain(tokens, i):
            run.append(i)
            i += 3
            if tokens[i][1] == ".":
                i += 1
            else:  # the run ends here ('}', a keyword or a nested group follows without a '.')
                close()
                at_start = False
            continue
        close()
        at_start = value in ("{", "}") or (value == "." and depth == 0)
        if value == "{":
            groups.append(depth == 0 and not data)
            data = False
        elif value == "}":
            if groups:
                groups.pop()
        elif value in ("(", "["):
            depth += 1
        elif value in (")", "]"):
            depth = max(0, depth - 1)
        elif kind == "word" and value.upper() in _OPENS_DATA:
            data = True
        i += 1
    close()
    return runs


def _plain(tokens: list[tuple[str, str, int, int]], i: int) -> bool:
    s, p, o, nxt = tokens[i], tokens[i + 1], tokens[i + 2], tokens[i + 3]
    return (s[0] in _TERM and (p[0] in _PREDICATE or (p[0] == "word" and p[1] == "a")) and o[0] in _TERM
            and (nxt[1] in (".", "}", "{") or (nxt[0] == "word" and nxt[1] not in ("a", "true", "false"))))


def _prefixes(tokens: list[tuple[str, str, int, int]], given: Mapping[str, str] | None) -> dict[str, str]:
    """Prefix name → namespace: the query's PREFIX declarations over ``given``."""
    names = dict(given or {})
    for i in range(len(tokens) - 2):
        if tokens[i][0] == "word" and tokens[i][1].upper() == "PREFIX" and tokens[i + 1][0] == "pname" \
                and tokens[i + 2][0] == "iri":
            names[tokens[i + 1][1][:-1]] = tokens[i + 2][1][1:-1]
    return names


def _term(token: tuple[str, str, int, int], names: Mapping[str, str]) -> tuple[bool, str | None]:
    """(is a variable, name) — a variable's (or blank node's) name, a constant's N-Triples IRI text
    when it is an IRI this module can name, else None (a literal or an unknown constant)."""
    kind, value = token[0], token[1]
    if kind in ("var", "bnode"):
        return True, value[1:] if kind == "var" else value
    if kind == "iri":
        return False, value if ":" in value else None  # a relative IRI: its base is not looked at
    if kind == "word":  # 'a'
        return False, RDF_TYPE
    if kind == "pname":
        prefix, _, local = value.partition(":")
        ns = names.get(prefix)
        if ns is None or "\\" in local or "%" in local:
            return False, None
        return False, f"<{ns}{local}>"
    return False, None


def _greedy(patterns: list[tuple[tuple[bool, str | None], ...]], stats: Mapping[str, Any]) -> list[int]:
    """Indexes of ``patterns`` in greedy join order: the smallest estimate first, then the smallest
    among those sharing a variable with the patterns placed (any, when none does); ties keep the
    query's order."""
    left = list(range(len(patterns)))
    bound: set[str] = set()
    order: list[int] = []
    while left:
        linked = [k for k in left if any(v and name in bound for v, name in patterns[k])] or left
        best = min(linked, key=lambda k: (_estimate(patterns[k], bound, stats), k))
        order.append(best)
        left.remove(best)
        bound.update(name for v, name in patterns[best] if v)  # type: ignore[misc]
    return order


def _estimate(pattern: tuple[tuple[bool, str | None], ...], bound: set[str], stats: Mapping[str, Any]) -> float:
    """Rows the pattern gives with the variables in ``bound`` already bound (uniform guesses)."""
    (sv, s), (pv, p), (ov, o) = pattern
    total = float(stats.get("n", 0))
    preds: Mapping[str, list] = stats.get("p", {})
    floor = float(stats.get("floor", 0))
    if pv or p is None:
        n, ds, do = total / max(1, len(preds)), float(stats.get("s", 1)), float(stats.get("o", 1))
    elif p == RDF_TYPE and not ov:
        c = float(stats.get("c", {}).get(o, floor)) if o is not None else float(preds.get(p, (0, 1, 1))[0])
        n, ds, do = c, c, 1.0
    else:
        n, ds, do = (float(x) for x in preds.get(p, (floor, 1, 1)))
    if not sv or s in bound:
        n /= max(ds, 1.0)
    if not ov or o in bound:
        n /= max(do, 1.0)
    return n
