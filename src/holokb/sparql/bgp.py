"""SELECT and ASK queries over one basic graph pattern, answered from a snapshot's :class:`~.idtable.IdTable`.

Why: pyoxigraph answers these from its own store, which costs the first query of a process the store's
fill (LUBM(1,0): ~1 s of RocksDB writes) and every query Python objects per result term.  The id
table is read from the ledger's id columns; the joins here are hash joins over canonical term ids
(plain Python: a warm command that imports no numpy saves ~0.1 s), and only the result rows are decoded.

Only queries this module fully understands are answered here; :func:`parse` returns None for every
other text and the query goes to pyoxigraph unchanged.  Understood: ``PREFIX`` declarations, then
``SELECT [DISTINCT] ?v … | *`` or ``ASK``, an optional ``WHERE``, and one group of ``s p o`` triple patterns
separated by ``.``, whose terms are variables, absolute IRIs, prefixed names without escapes, ``a``,
blank-node labels (variables that are not projected), and literals that are plain, ``@lang``-tagged or
``^^xsd:string`` strings without escapes.  Anything else — FILTER, OPTIONAL, UNION, GRAPH, paths,
``;`` and ``,`` lists, ``[]``, numbers and other typed literals (pyoxigraph normalises their values),
BASE and relative IRIs, LIMIT/OFFSET/ORDER BY/GROUP BY, VALUES, FROM, a projected variable that the
pattern does not bind, CONSTRUCT/DESCRIBE — is left to pyoxigraph.

Answers are SPARQL's multiset of solutions (duplicates kept unless DISTINCT), in the canonical row
order of :func:`.results.canonical_rows`, so the result is the one the pyoxigraph path gives
(tests/sparql/test_bgp.py holds them equal on random graphs and patterns).  A result larger than the
row cap, a join that would pass :data:`MAX_ROWS`, or a blank node whose label the canonical order
does not treat as stable also go to pyoxigraph, whose output then decides.
"""
from __future__ import annotations

import re
import sys
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter
from typing import Any, Mapping

from ..core.limits import Deadline, LimitHit
from .idtable import IdTable
from .joinorder import RDF_TYPE, _TOKEN
from .results import RDFTerm, _STABLE_BNODE

#: Rows a join may produce before the query is left to pyoxigraph (which streams).
MAX_ROWS = 20_000_000
#: Triples a query's scans read above which numpy is imported to join them (~0.1 s).
NUMPY_ABOVE = 100_000
#: Rows a plain-Python join may produce before the numpy engine takes the query over.
PYTHON_ROWS = 1_000_000
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_SHORT_STRING = re.compile(r'"([^"\\\n\r]*)"|\'([^\'\\\n\r]*)\'')

Term = tuple[bool, str]  # (is a variable, variable name or the constant's N-Triples text)


@dataclass(frozen=True, slots=True)
class BGPQuery:
    """A SELECT over one basic graph pattern: projected variables (in output order), DISTINCT, patterns;
    or, with ``ask``, an ASK (``variables``: every variable of the pattern, blank nodes included)."""

    variables: tuple[str, ...]
    distinct: bool
    patterns: tuple[tuple[Term, Term, Term], ...]
    ask: bool = False


def parse(text: str, prefixes: Mapping[str, str] | None = None) -> BGPQuery | None:
    """The query as a :class:`BGPQuery` when it is one this module answers (module doc), else None."""
    toks = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(text) if m.lastgroup != "ws"]
    names = dict(prefixes or {})
    declared: dict[str, str] = {}
    i, n = 0, len(toks)
    while i < n and toks[i][0] == "word" and toks[i][1].upper() == "PREFIX":
        if i + 2 >= n or toks[i + 1][0] != "pname" or not toks[i + 1][1].endswith(":") \
                or toks[i + 1][1].count(":") != 1 or toks[i + 2][0] != "iri" or not _ABSOLUTE.match(toks[i + 2][1][1:]):
            return None
        declared[toks[i + 1][1][:-1]] = toks[i + 2][1][1:-1]
        i += 3
    names.update(declared)
    if not (i < n and toks[i][0] == "word" and toks[i][1].upper() in ("SELECT", "ASK")):
        return None
    ask = toks[i][1].upper() == "ASK"
    i += 1
    distinct = not ask and i < n and toks[i][0] == "word" and toks[i][1].upper() == "DISTINCT"
    i += distinct
    projected: list[str] = []
    star = not ask and i < n and toks[i] == ("other", "*")
    if star:
        i += 1
    elif not ask:
        while i < n and toks[i][0] == "var":
            projected.append(toks[i][1][1:])
            i += 1
        if not projected or len(set(projected)) != len(projected):
            return None
    if i < n and toks[i][0] == "word" and toks[i][1].upper() == "WHERE":
        i += 1
    if not (i < n and toks[i] == ("other", "{")):
        return None
    i += 1
    patterns: list[tuple[Term, Term, Term]] = []
    while i < n and toks[i] != ("other", "}"):
        if i + 3 > n:
            return None
        s, p, o = _term(toks[i], names, "s"), _term(toks[i + 1], names, "p"), _term(toks[i + 2], names, "o")
        if s is None or p is None or o is None:
            return None
        patterns.append((s, p, o))
        i += 3
        if i < n and toks[i] == ("other", "."):
            i += 1
        elif not (i < n and toks[i] == ("other", "}")):
            return None
    if i + 1 != n or not patterns:  # nothing may follow the group (no LIMIT, ORDER BY, VALUES, …)
        return None
    bound = [name for pat in patterns for v, name in pat if v]
    if ask:
        return BGPQuery(tuple(dict.fromkeys(bound)), False, tuple(patterns), ask=True)
    if star:
        projected = list(dict.fromkeys(v for v in bound if not v.startswith("_:")))
        if not projected:
            return None
    elif not set(projected) <= set(bound):
        return None
    return BGPQuery(tuple(projected), bool(distinct), tuple(patterns))


def _term(tok: tuple[str | None, str], names: Mapping[str, str], at: str) -> Term | None:
    kind, value = tok
    if kind == "var":
        return True, value[1:]
    if kind == "iri":
        return (False, value) if _ABSOLUTE.match(value[1:]) else None
    if kind == "pname":
        prefix, _, local = value.partition(":")
        ns = names.get(prefix)
        if ns is None or "\\" in local or "%" in local:
            return None
        return False, f"<{ns}{local}>"
    if kind == "word" and value == "a" and at == "p":
        return False, RDF_TYPE
    if at == "p":
        return None
    if kind == "bnode":
        return True, value  # "_:label": a variable no projection can name
    if kind == "lit":
        return _literal(value, names)
    return None


def _literal(value: str, names: Mapping[str, str]) -> Term | None:
    m = _SHORT_STRING.match(value)
    if m is None:
        return None
    lex = m.group(1) if m.group(1) is not None else m.group(2)
    rest = value[m.end():]
    if not rest:
        return False, RDFTerm.literal(lex).n3()
    if rest.startswith("@"):
        return False, RDFTerm.literal(lex, lang=rest[1:].lower()).n3()
    dt = _term(("iri", rest[2:]) if rest[2:3] == "<" else ("pname", rest[2:]), names, "o")
    if dt is None or dt[1] != f"<{_XSD_STRING}>":  # other types: pyoxigraph normalises their values
        return None
    return False, RDFTerm.literal(lex).n3()


# -- evaluation ----------------------------------------------------------------------------------

Relation = tuple[tuple[str, ...], list[tuple[int, ...]]]  # (variables, one id tuple per solution)


def solve(table: IdTable, q: BGPQuery, deadline: Deadline | None = None,
          engine: str | None = None) -> Any:
    """The solutions' projected id rows (columns as ``q.variables``; sorted by each column's canonical
    rank; distinct when ``q.distinct``) — a list of id tuples, or one id array from the numpy engine;
    None when the query should go to pyoxigraph (a join past :data:`MAX_ROWS`);
    :attr:`LimitHit.TIMEOUT` when the deadline passed between joins.  ``engine``: "numpy"
    (.bgp_numpy) or "python"; by default numpy when it is loaded already, when the scans read more
    than :data:`NUMPY_ABOVE` triples, or when a plain-Python join would pass :data:`PYTHON_ROWS`."""
    chosen = engine
    if chosen is None:
        chosen = "numpy" if "numpy" in sys.modules or _work(table, q) > NUMPY_ABOVE else "python"
    if chosen == "python":
        rows = _solve_python(table, q, deadline, min(PYTHON_ROWS, MAX_ROWS))
        if rows is not None or engine == "python" or PYTHON_ROWS >= MAX_ROWS:
            return rows
    from .bgp_numpy import solve as solve_numpy

    return solve_numpy(table, q, deadline, MAX_ROWS)


def _solve_python(table: IdTable, q: BGPQuery, deadline: Deadline | None, max_rows: int) -> Any:
    """:func:`solve` by hash joins in plain Python; None past ``max_rows`` rows in a join."""
    scans: list[Relation] = []
    for pat in q.patterns:
        rel = _scan(table, pat)
        if not rel[1]:
            return []
        scans.append(rel)
    rel: Relation = ((), [()])
    left = list(range(len(scans)))
    while left:  # greedy: the smallest pattern linked to those joined (any, when none is)
        linked = [k for k in left if any(v in rel[0] for v in scans[k][0])] or left
        best = min(linked, key=lambda k: (len(scans[k][1]), k))
        left.remove(best)
        joined = _join(rel, scans[best], max_rows)
        if joined is None:
            return None
        rel = joined
        if not rel[1]:
            return []
        if deadline is not None and deadline.expired():
            return LimitHit.TIMEOUT
    pick = _getter([rel[0].index(v) for v in q.variables])
    rows = list(map(pick, rel[1]))
    if q.distinct:
        rows = list(dict.fromkeys(rows))
    rank = table.rank.__getitem__
    rows.sort(key=lambda r: tuple(map(rank, r)))
    return rows


def _work(table: IdTable, q: BGPQuery) -> int:
    """Triples the patterns' scans read: the bisected range of each pattern with a constant
    predicate (and subject or object), every triple for a variable predicate."""
    total = 0
    for (sv, s), (pv, p), (ov, o) in q.patterns:
        if pv:
            total += len(table)
            continue
        i = table.lookup(p)
        if i is None:
            continue
        lo, hi = table.predicate_range(i)
        if not sv and (k := table.lookup(s)) is not None:
            lo, hi = bisect_left(table.s, k, lo, hi), bisect_right(table.s, k, lo, hi)
        elif not ov and (k := table.lookup(o)) is not None:
            lo, hi = bisect_left(table.o2, k, lo, hi), bisect_right(table.o2, k, lo, hi)
        total += hi - lo
    return total


def _getter(positions: list[int]):
    """A function giving a tuple of a row's values at ``positions`` (a tuple also for one or none)."""
    if not positions:
        return lambda row: ()
    if len(positions) == 1:
        k = positions[0]
        return lambda row: (row[k],)
    return itemgetter(*positions)


def _scan(table: IdTable, pat: tuple[Term, Term, Term]) -> Relation:
    """The triples of ``table`` matching one triple pattern, as rows of its variables' values."""
    ids = table.pattern_ids(pat)
    if ids is None:
        return (), []
    (sv, _), (pv, _), (ov, _) = pat
    s, p, o = ids
    if not pv:
        lo, hi = table.predicate_range(p)
        if not sv:  # (p, s) bound: a range of the (p, s, o) order
            a, b = bisect_left(table.s, s, lo, hi), bisect_right(table.s, s, lo, hi)
            cols = [[s] * (b - a), [p] * (b - a), list(table.o[a:b])]
            if not ov:
                cols = [[s], [p], [o]] if o in cols[2] else [[], [], []]
        elif not ov:  # (p, o) bound: a range of the (p, o, s) order
            a, b = bisect_left(table.o2, o, lo, hi), bisect_right(table.o2, o, lo, hi)
            cols = [list(table.s2[a:b]), [p] * (b - a), [o] * (b - a)]
        else:
            cols = [list(table.s[lo:hi]), [p] * (hi - lo), list(table.o[lo:hi])]
    else:  # a variable predicate: every triple, filtered
        cols = [table.s, table.p, table.o]
        for k in (0, 2):
            if ids[k] >= 0:
                keep = [j for j, x in enumerate(cols[k]) if x == ids[k]]
                cols = [[c[j] for j in keep] for c in cols]
    names: list[str] = []
    first: list[int] = []
    for k, (v, name) in enumerate(pat):
        if not v:
            continue
        if name in names:  # a variable repeated in the pattern: the two positions agree
            j = first[names.index(name)]
            keep = [r for r, (x, y) in enumerate(zip(cols[j], cols[k])) if x == y]
            cols = [[c[r] for r in keep] for c in cols]
        else:
            names.append(name)
            first.append(k)
    return tuple(names), list(zip(*(cols[k] for k in first))) if first else [()] * len(cols[0])


def _join(r: Relation, p: Relation, max_rows: int) -> Relation | None:
    """The natural join of two relations (a hash join, the table built on the smaller one); None
    past ``max_rows``."""
    (rv, rrows), (pv, prows) = r, p
    shared = [v for v in pv if v in rv]
    extra = [k for k, v in enumerate(pv) if v not in rv]
    names = rv + tuple(pv[k] for k in extra)
    if not shared:
        if len(rrows) * len(prows) > max_rows:
            return None
        return names, [a + b for a in rrows for b in prows]
    rkey = _getter([rv.index(v) for v in shared])
    pkey = _getter([pv.index(v) for v in shared])
    pext = _getter(extra)
    index: dict[tuple, list] = {}
    if len(prows) <= len(rrows):
        for row in prows:
            index.setdefault(pkey(row), []).append(pext(row))
        get = index.get
        if len(rrows) * max(map(len, index.values())) > max_rows \
                and sum(len(get(rkey(a), ())) for a in rrows) > max_rows:
            return None
        return names, [a + b for a in rrows for b in get(rkey(a), ())]
    for row in rrows:
        index.setdefault(rkey(row), []).append(row)
    get = index.get
    if len(prows) * max(map(len, index.values())) > max_rows \
            and sum(len(get(pkey(b), ())) for b in prows) > max_rows:
        return None
    return names, [a + pext(b) for b in prows for a in get(pkey(b), ())]


def decode(table: IdTable, rows: Any) -> list[tuple[RDFTerm, ...]] | None:
    """The rows (id tuples, or an id array from .bgp_numpy) as result terms; None when one is a
    blank node whose label the canonical order would relabel (then pyoxigraph's path decides)."""
    if table.unstable_bnodes():
        ids = set(rows.ravel().tolist()) if hasattr(rows, "ravel") else set(chain.from_iterable(rows))
        if any(table.term(i).kind == "bnode" and not _STABLE_BNODE.match(table.term(i).value) for i in ids):
            return None
    if hasattr(rows, "ravel"):
        from .bgp_numpy import decode as decode_array

        return decode_array(table, rows)
    terms = {i: table.term(i) for i in set(chain.from_iterable(rows))}
    get = terms.__getitem__
    return [tuple(map(get, r)) for r in rows]


def answer(table: IdTable, text: str, prefixes: Mapping[str, str] | None, cap: int | None,
           deadline: Deadline | None) -> tuple[tuple[str, ...], list, LimitHit | None] | None:
    """(variables, rows, limit hit) for ``text`` on ``table``, or None when pyoxigraph should answer it."""
    q = parse(text, prefixes)
    if q is None or q.ask:
        return None
    rows = solve(table, q, deadline)
    if rows is None:
        return None
    if isinstance(rows, LimitHit):
        return q.variables, [], rows
    if cap is not None and len(rows) > cap:  # which rows a cap keeps is pyoxigraph's order
        return None
    terms = decode(table, rows)
    if terms is None:
        return None
    return q.variables, terms, None


def holds(table: IdTable, text: str, prefixes: Mapping[str, str] | None, deadline: Deadline | None) -> bool | None:
    """The answer to the ASK ``text`` on ``table`` — does the pattern have a solution? — or None when
    pyoxigraph should answer it (not an ASK this module reads, a join past :data:`MAX_ROWS`, or the
    deadline passed: an unfinished search is never reported as "no")."""
    q = parse(text, prefixes)
    if q is None or not q.ask:
        return None
    # A pattern of constants only has no variable columns for the numpy engine to stack: plain
    # Python (each such pattern is one bisected lookup).
    rows = solve(table, q, deadline, engine=None if q.variables else "python")
    if rows is None or isinstance(rows, LimitHit):
        return None
    return len(rows) > 0


__all__ = ["BGPQuery", "MAX_ROWS", "answer", "decode", "holds", "parse", "solve"]
