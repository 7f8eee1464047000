"""The one result type of the engine: :class:`Model`.

Ordering (documented, deterministic): rows of a relation are sorted by their args under
``term_sort_key`` (IRIs before literals, then by datatype and lexical form), then
``valid_from``, then ``valid_to``.  :meth:`Model.derived` sorts by (predicate, negated, the
same row key).  Violations are in constraint order, then by their bindings' sort key.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.program import Atom, Var
from ..core.limits import Page
from ..core.terms import Term, term_sort_key
from ..core.time import MAX_TIME, Interval
from .proofs import ProofNode, node_id, path_score
from .relation import IntermediateOverflow, pack

_MAX = np.iinfo(np.int64).max


@dataclass(frozen=True, slots=True)
class DerivedFact:
    """A fact the rules derived: where it holds, which rule made it, its depth and score (with proofs)."""

    predicate: str
    args: tuple[Term, ...]
    valid: Interval
    rule: str
    depth: int
    score: float | None
    negated: bool = False


@dataclass(frozen=True, slots=True)
class FactRef:
    """A fact named by value: predicate, args, validity, polarity."""

    predicate: str
    args: tuple[Term, ...]
    valid: Interval
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Violation:
    """One solution of an integrity constraint body: its bindings and the facts it matched."""

    constraint: str
    bindings: tuple[tuple[str, Term], ...]
    premises: tuple[FactRef, ...]


@dataclass(frozen=True, slots=True)
class Stats:
    """Iterations run (all strata), facts derived, and derived facts per rule (program order)."""

    iterations: int
    derived: int
    rule_counts: tuple[tuple[str, int], ...]


def _interval(vf: int, vt: int) -> Interval:
    return Interval(int(vf), None if vt == _MAX else int(vt))


class Model:
    """The closure of a program over a database, with proofs when they were recorded."""

    def __init__(self, ev, violations: tuple[Violation, ...]):
        self._ev = ev
        self.truncated: bool = ev.truncated
        self.limit_hit: str | None = ev.limit_hit
        self.violations = violations
        names = [r.name for r in ev.program.rules]
        self.stats = Stats(ev.iterations, ev.derived, tuple(zip(names, ev.rule_counts)))
        self.proofs_recorded: bool = ev.record

    # -- reading relations --------------------------------------------------------------
    def _decoded(self, rk, rows: np.ndarray) -> list:
        rel, terms = self._ev.relations[rk], self._ev.terms
        cols = [rel.col(i)[rows].tolist() for i in range(rel.arity)]
        vf, vt = rel.meta("valid_from")[rows].tolist(), rel.meta("valid_to")[rows].tolist()
        out = []
        for k, r in enumerate(rows.tolist()):
            args = tuple(terms.term(c[k]) for c in cols)
            out.append((tuple(term_sort_key(a) for a in args), vf[k], vt[k], args, r))
        out.sort(key=lambda x: x[:3])
        return out

    def rows(self, predicate: str, *, negated: bool = False) -> tuple[tuple[tuple[Term, ...], Interval], ...]:
        """All facts of a relation (input and derived) with their validity, in row order (module doc)."""
        rel = self._ev.relations.get((predicate, negated))
        if rel is None or rel.size == 0:
            return ()
        return tuple((d[3], _interval(d[1], d[2])) for d in self._decoded((predicate, negated), np.arange(rel.size)))

    def relation(self, predicate: str, *, negated: bool = False) -> tuple[tuple[Term, ...], ...]:
        """The args of all facts of a relation, sorted (module doc)."""
        return tuple(args for args, _ in self.rows(predicate, negated=negated))

    def derived(self) -> tuple[DerivedFact, ...]:
        """Every derived fact (never the input facts), sorted by predicate, polarity, row key."""
        out = []
        names = [r.name for r in self._ev.program.rules]
        for rk in sorted(self._ev.relations):
            rel = self._ev.relations[rk]
            rows = np.flatnonzero(rel.meta("rule") >= 0)
            if len(rows) == 0 or rk[0] == "_aggregate":
                continue
            for _, vf, vt, args, r in self._decoded(rk, rows):
                out.append(DerivedFact(rk[0], args, _interval(vf, vt), names[int(rel.meta("rule")[r])],
                                       int(rel.meta("depth")[r]), self._score(rel, r), rk[1]))
        return tuple(out)

    def proof_steps(self) -> tuple[tuple[DerivedFact, tuple[tuple[str, object], ...],
                                         tuple[tuple[str, Term], ...]], ...]:
        """Each derived fact (in :meth:`derived` order) with its one recorded proof step: premises as
        ``("input", key)`` or ``("derived", i)`` (``i`` indexes this same tuple), and the bindings.
        Without recorded proofs the premises and bindings are empty."""
        ev = self._ev
        order: list[tuple] = []
        for rk in sorted(ev.relations):
            rel = ev.relations[rk]
            rows = np.flatnonzero(rel.meta("rule") >= 0)
            if len(rows) == 0 or rk[0] == "_aggregate":
                continue
            order.extend((rk, d[4]) for d in self._decoded(rk, rows))
        index = {k: i for i, k in enumerate(order)}
        facts = self.derived()
        out = []
        for (rk, r), fact in zip(order, facts):
            rel = ev.relations[rk]
            ri = int(rel.meta("rule")[r])
            premises: list[tuple[str, object]] = []
            bindings: tuple[tuple[str, Term], ...] = ()
            if ev.record and int(rel.meta("depth")[r]) >= 0:
                rule = ev.program.rules[ri]
                table = _table(ev, ri)
                p = int(rel.meta("proof")[r])
                bindings = _bindings(ev, rule, table, p)
                for label, atom in enumerate(a for a in rule.body if isinstance(a, Atom)):
                    prk = (atom.predicate, atom.negated)
                    prow = int(table[f"#p{label}"][p])
                    if int(ev.relations[prk].meta("rule")[prow]) < 0:
                        premises.append(("input", ev.input_keys[prk][prow]))
                    else:
                        premises.append(("derived", index[(prk, prow)]))
            out.append((fact, tuple(premises), bindings))
        return tuple(out)

    def _score(self, rel, r: int, goal_bonus: float = 1.0, seed_bonus: float = 1.0) -> float | None:
        if not self._ev.record:
            return None
        return path_score(float(rel.meta("prod")[r]), int(rel.meta("plen")[r]), goal_bonus, seed_bonus)

    def _find(self, predicate: str, args, negated: bool) -> int | None:
        rel = self._ev.relations.get((predicate, negated))
        if rel is None or rel.size == 0 or len(args) != rel.arity:
            return None
        ids = [self._ev.terms.lookup(a) for a in args]
        if any(i is None for i in ids):
            return None
        hit = np.ones(rel.size, dtype=bool)
        for c, i in enumerate(ids):
            hit &= rel.col(c) == i
        found = np.flatnonzero(hit)
        return int(found[0]) if len(found) else None

    def contains(self, predicate: str, args: tuple[Term, ...], *, negated: bool = False) -> bool:
        """Whether the model has this fact (input or derived)."""
        return self._find(predicate, tuple(args), negated) is not None

    def score(self, predicate: str, args: tuple[Term, ...], *, negated: bool = False,
              goal_bonus: float = 1.0, seed_bonus: float = 1.0) -> float | None:
        """The fact's pathScore (None when absent or proofs were not recorded)."""
        r = self._find(predicate, tuple(args), negated)
        if r is None:
            return None
        return self._score(self._ev.relations[(predicate, negated)], r, goal_bonus, seed_bonus)

    def query(self, query) -> tuple[tuple[Term, ...], ...]:
        """Distinct solutions of a query body over the model, projected on ``query.variables``, sorted.

        Empty when the query's own evaluation passes a budget; :meth:`query_page` says so.
        """
        return self.query_page(query).items

    def query_page(self, query) -> Page:
        """:meth:`query` as a :class:`Page`: ``truncated`` (no rows) when a join step of the query
        passes the intermediate-row budget or memory runs out."""
        names = [v.name for v in query.variables]
        try:
            b = self._ev.eval_body(query.body, None, None, False, frozenset(names))
        except IntermediateOverflow:
            return Page((), True, self._ev.cap_name)
        except MemoryError:
            return Page((), True, "memory")
        rows = set()
        if b.n:
            cols = [b.vars[n].tolist() for n in names]
            rows = set(zip(*cols)) if cols else {()}
        terms = self._ev.terms
        decoded = [tuple(terms.term(i) for i in r) for r in rows]
        return Page(tuple(sorted(decoded, key=lambda r: [term_sort_key(t) for t in r])))

    # -- proofs ---------------------------------------------------------------------------
    def explain(self, predicate: str, args: tuple[Term, ...], *, negated: bool = False,
                max_depth: int | None = None) -> ProofNode | None:
        """The proof DAG of a fact down to input facts (None when absent); needs ``record_proofs``.

        Nodes deeper than ``max_depth`` rule applications are cut and marked ``partial``.
        """
        r = self._find(predicate, tuple(args), negated)
        if r is None:
            return None
        if not self._ev.record:
            raise ValueError("proofs were not recorded: run closure(..., record_proofs=True)")
        memo: dict = {}
        return self._node((predicate, negated), r, 0, max_depth, memo)

    def _node(self, rk, r: int, level: int, max_depth: int | None, memo: dict) -> ProofNode:
        ev = self._ev
        memo_key = (rk, r, level if max_depth is not None else 0)
        if memo_key in memo:
            return memo[memo_key]
        rel = ev.relations[rk]
        args = tuple(ev.terms.term(rel.col(c)[r]) for c in range(rel.arity))
        valid = _interval(rel.meta("valid_from")[r], rel.meta("valid_to")[r])
        ri = int(rel.meta("rule")[r])
        score = path_score(float(rel.meta("prod")[r]), int(rel.meta("plen")[r]))
        if ri < 0:
            key = ev.input_keys[rk][r]
            conf = float(rel.meta("prod")[r])
            nid = node_id(rk[0], args, valid, rk[1], None, key, ())
            node = ProofNode(nid, rk[0], args, valid, rk[1], None, key, conf, (), (), False, score)
        else:
            rule = ev.program.rules[ri]
            if max_depth is not None and level >= max_depth:
                nid = node_id(rk[0], args, valid, rk[1], rule.name, "partial", ())
                node = ProofNode(nid, rk[0], args, valid, rk[1], rule.name, None, 1.0, (), (), True, score)
            else:
                table = _table(ev, ri)
                p = int(rel.meta("proof")[r])
                bindings = _bindings(ev, rule, table, p)
                premises = []
                for label, atom in enumerate(a for a in rule.body if isinstance(a, Atom)):
                    prow = int(table[f"#p{label}"][p])
                    premises.append(self._node((atom.predicate, atom.negated), prow, level + 1, max_depth, memo))
                pids = tuple(n.id for n in premises)
                nid = node_id(rk[0], args, valid, rk[1], rule.name, None, pids)
                node = ProofNode(nid, rk[0], args, valid, rk[1], rule.name, None, 1.0, bindings,
                                 tuple(premises), any(n.partial for n in premises), score)
        memo[memo_key] = node
        return node

    def nbytes(self, *, indexes: bool = False) -> int:
        """Bytes held by all relation columns (and their indexes and dedup keys when ``indexes``)."""
        return sum(r.nbytes(indexes=indexes) for r in self._ev.relations.values())


def _bindings(ev, rule, table: dict, p: int) -> tuple[tuple[str, Term], ...]:
    """The named variables of proof step ``p`` of ``rule``, sorted by name.

    The evaluator drops a variable's column once no later join reads it, so values come from the
    premise rows (each atom's argument positions) and, for variables no atom binds, the table.
    """
    vals: dict[str, int] = {}
    for label, atom in enumerate(a for a in rule.body if isinstance(a, Atom)):
        rel = ev.relations[(atom.predicate, atom.negated)]
        prow = int(table[f"#p{label}"][p])
        for pos, t in enumerate(atom.args):
            if isinstance(t, Var) and not t.name.startswith("_") and t.name not in vals:
                vals[t.name] = int(rel.col(pos)[prow])
    for k, v in table.items():
        if not k.startswith(("#", "_")) and k not in vals:
            vals[k] = int(v[p])
    return tuple(sorted((k, ev.terms.term(i)) for k, i in vals.items()))


def _table(ev, ri: int) -> dict:
    chunks = ev.proof_tables[ri]
    if len(chunks) > 1:
        keys = chunks[0].keys()
        ev.proof_tables[ri] = [{k: np.concatenate([c[k] for c in chunks]) for k in keys}]
    return ev.proof_tables[ri][0]


def violations_of(ev) -> tuple[Violation, ...]:
    """Decode the constraint solutions of an evaluation into :class:`Violation` values."""
    out = []
    for ci, b in ev.violations():
        c = ev.program.constraints[ci]
        atoms = [a for a in c.body if isinstance(a, Atom)]
        items = []
        for k in range(b.n):
            binds = tuple(sorted((n, ev.terms.term(v[k])) for n, v in b.vars.items() if not n.startswith("_")))
            prem = []
            for label, a in enumerate(atoms):
                rel = ev.relations[(a.predicate, a.negated)]
                r = int(b.meta[f"p{label}"][k])
                args = tuple(ev.terms.term(rel.col(i)[r]) for i in range(rel.arity))
                prem.append(FactRef(a.predicate, args, _interval(rel.meta("valid_from")[r], rel.meta("valid_to")[r]), a.negated))
            items.append(Violation(c.name, binds, tuple(prem)))
        items.sort(key=lambda v: [(n, term_sort_key(t)) for n, t in v.bindings])
        out.extend(items)
    return tuple(out)


__all__ = ["DerivedFact", "FactRef", "Model", "Stats", "Violation", "MAX_TIME", "pack"]
