"""The one result type of the engine: :class:`Model`, frozen once the closure has run.

A model holds the relations (frozen columnar tables), the input facts' keys, the typed proof
table (:class:`ProofTable`), the statistics, the violations and which budget stopped the run.
It keeps no reference to the evaluation that produced it; reading it (decoding, queries,
proofs) never changes what it holds.  Terms are decoded through the term dictionary, which only
ever grows (existing ids keep their meaning), so a query that computes a new value may add to it.

Valid time: the closure is computed over the whole valid-time axis (:mod:`.temporal`).  A model
made with ``valid_at=t`` shows the facts that hold at ``t``, each with the maximal interval
around ``t`` over which it holds; with ``valid_at=None`` it shows every fact with every maximal
interval (``derive --all-valid``).  Proofs are of the first row found that holds at ``t``.

Ordering (documented, deterministic): facts of a relation are sorted by their args under
``term_sort_key`` (IRIs before literals, then by datatype and lexical form), then
``valid_from``, then ``valid_to``.  :meth:`Model.derived` sorts by (predicate, negated, the
same key).  Violations are in constraint order, then by their bindings' sort key, then time.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Mapping, TypeVar

import numpy as np

from ..analysis.program import Atom, Const, Negation, Program, Query, Var
from ..core.limits import Deadline, LimitHit, Page
from ..core.premises import InputRef, PremiseRef
from ..core.terms import Term, term_sort_key
from ..core.time import Interval
from .database import RelKey
from .dictionary import TermDictionary
from .proofs import ProofNode, node_id, path_score
from .relation import IntermediateOverflow, Relation
from .facts import FactTable
from .steps import Columns, RuleLayout, negated_args
from .temporal import holds_at

if TYPE_CHECKING:
    from .encoded import EncodedSteps

_MAX = np.iinfo(np.int64).max
#: The relation aggregates are joined through (never a fact of the model).
AGGREGATE_RELATION = "_aggregate"
#: Predicates of the engine's own relations (answers, magic guards, full copies): never listed as
#: derived facts.
INTERNAL = "urn:holokb:engine:"


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
    """One solution of an integrity constraint body: its bindings, the facts it matched and the
    valid time over which they clash."""

    constraint: str
    bindings: tuple[tuple[str, Term], ...]
    premises: tuple[FactRef, ...]
    valid: Interval = Interval()


A = TypeVar("A")  # what an Absence's args are: terms, or term ids (:mod:`.encoded`)


@dataclass(frozen=True, slots=True)
class Absence(Generic[A]):
    """A negated premise of a proof step: no fact matching ``predicate(args)`` (``None`` = any
    value) held at any instant of ``valid``."""

    predicate: str
    args: tuple[A | None, ...]
    negated: bool
    valid: Interval


@dataclass(frozen=True, slots=True)
class Stats:
    """Iterations run (all strata), facts derived, and derived facts per rule (program order)."""

    iterations: int
    derived: int
    rule_counts: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class RuleProofs:
    """The recorded proof steps of one rule, columnar (read-only arrays, one entry per step).

    Step ``k`` used row ``premise_rows[label][k]`` of the relation of the rule's positive body
    atom ``label`` (written order); ``values`` holds, per variable no positive atom binds
    (assignment and aggregate targets), its term id at each step.
    """

    premise_rows: tuple[np.ndarray, ...]
    values: tuple[tuple[str, np.ndarray], ...]


@dataclass(frozen=True, slots=True)
class ProofTable:
    """Per rule (program order), its proof steps, or None when it derived nothing.  A derived row
    names its step in its relation's ``proof`` column."""

    rules: tuple[RuleProofs | None, ...]


@dataclass(frozen=True, slots=True)
class ProofStep:
    """One derived fact and the rule application that first derived it: premises (typed
    references, in body order), the named variables' bindings (sorted by name), and the negated
    premises with the time they were absent (the derivation's own interval)."""

    fact: DerivedFact
    premises: tuple[PremiseRef | None, ...]
    bindings: tuple[tuple[str, Term], ...]
    absent: tuple[Absence[Term], ...] = ()


def _interval(vf: int, vt: int) -> Interval:
    return Interval(int(vf), None if vt == _MAX else int(vt))


@dataclass(frozen=True, slots=True)
class Model:
    """The closure of a program over a database, with proofs when they were recorded."""

    program: Program
    terms: TermDictionary
    relations: Mapping[RelKey, Relation]
    input_keys: Mapping[RelKey, tuple[InputRef | None, ...]]
    proofs: ProofTable | None
    stats: Stats
    truncated: bool
    limit_hit: LimitHit | None
    violations: tuple[Violation, ...]
    endpoints: np.ndarray
    cap: int
    cap_name: LimitHit
    valid_at: int | None = None
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def proofs_recorded(self) -> bool:
        return self.proofs is not None

    # -- reading relations --------------------------------------------------------------
    def _visible(self, rel: Relation, rows: np.ndarray | None = None) -> np.ndarray:
        """Row numbers (of ``rows``, default all) whose interval contains ``valid_at`` (all when None)."""
        rows = np.arange(rel.size) if rows is None else rows
        if self.valid_at is None:
            return rows
        return rows[holds_at(rel.meta("valid_from")[rows], rel.meta("valid_to")[rows], self.valid_at)]

    def _facts(self, rk: RelKey, derived_only: bool) -> FactTable:
        """Facts of relation ``rk`` (:class:`~.facts.FactTable`, documented order) from its visible
        rows — only the rows the rules made when ``derived_only``."""
        memo_key = ("facts", rk, derived_only)
        hit = self._memo.get(memo_key)
        if hit is None:
            rel = self.relations.get(rk)
            if rel is None:
                rel = Relation(0)
            rows = np.flatnonzero(rel.meta("rule") >= 0) if derived_only else np.arange(rel.size)
            hit = FactTable.build(rel, rows, self.terms, self.endpoints)
            if self.valid_at is not None:  # maximal intervals first, then those around the instant
                hit = hit.holding_at(rel, rows, self.valid_at)
            self._memo[memo_key] = hit
        return hit

    def rows(self, predicate: str, *, negated: bool = False) -> tuple[tuple[tuple[Term, ...], Interval], ...]:
        """All facts of a relation (input and derived) with their maximal validity, in the documented order."""
        ft = self._facts((predicate, negated), False)
        return tuple((ft.args(k, self.terms), _interval(ft.valid_from[k], ft.valid_to[k])) for k in range(len(ft)))

    def relation(self, predicate: str, *, negated: bool = False) -> tuple[tuple[Term, ...], ...]:
        """The distinct args of the facts of a relation, sorted (module doc)."""
        return tuple(dict.fromkeys(args for args, _ in self.rows(predicate, negated=negated)))

    def validity(self, predicate: str, args: tuple[Term, ...], *, negated: bool = False) -> tuple[Interval, ...]:
        """The maximal intervals over which the fact holds (the one around ``valid_at`` when set)."""
        ids = [self.terms.lookup(a) for a in args]
        ft = self._facts((predicate, negated), False)
        if any(i is None for i in ids) or ft.ids.shape[1] != len(ids):
            return ()
        hit = np.flatnonzero((ft.ids == np.array(ids, np.int64)).all(axis=1)) if len(ids) else np.arange(len(ft))
        return tuple(_interval(ft.valid_from[k], ft.valid_to[k]) for k in hit.tolist())

    def _derived_order(self) -> list[tuple[RelKey, FactTable, int]]:
        """Per derived relation (sorted): its derived facts and the position of its first fact in
        :meth:`derived`."""
        hit = self._memo.get("order")
        if hit is None:
            hit, n = [], 0
            for rk in sorted(self.relations):
                if rk[0] != AGGREGATE_RELATION and not rk[0].startswith(INTERNAL):
                    ft = self._facts(rk, True)
                    if len(ft):
                        hit.append((rk, ft, n))
                        n += len(ft)
            self._memo["order"] = hit
        return hit

    def derived_count(self) -> int:
        """How many facts :meth:`derived` lists (no term is decoded)."""
        return sum(len(ft) for _, ft, _ in self._derived_order())

    def derived(self, *, limit: int | None = None, deadline: Deadline | None = None) -> tuple[DerivedFact, ...]:
        """Every derived fact (never the input facts), sorted by predicate, polarity, fact key; rule,
        depth and score are those of its first derivation.  ``limit``: only the first that many
        (only those are decoded); ``deadline``: stop decoding when it expires (then fewer)."""
        out: list[DerivedFact] = []
        names = [r.name for r in self.program.rules]
        term = self.terms.term
        for rk, ft, _ in self._derived_order():
            n = len(ft) if limit is None else min(len(ft), limit - len(out))
            rel = self.relations[rk]
            first = ft.first[:n]  # read each column once, as Python values
            rule, depth = rel.meta("rule")[first].tolist(), rel.meta("depth")[first].tolist()
            score = [None] * n if self.proofs is None else [
                path_score(p, k) for p, k in zip(rel.meta("prod")[first].tolist(), rel.meta("plen")[first].tolist())]
            ids, vf, vt = ft.ids[:n].tolist(), ft.valid_from[:n].tolist(), ft.valid_to[:n].tolist()
            for k in range(n):
                if deadline is not None and k % 1024 == 0 and deadline.expired():
                    return tuple(out)
                out.append(DerivedFact(rk[0], tuple(term(i) for i in ids[k]), _interval(vf[k], vt[k]),
                                       names[rule[k]], depth[k], score[k], rk[1]))
            if limit is not None and len(out) >= limit:
                break
        return tuple(out)

    def rule_counts(self) -> tuple[tuple[str, int], ...]:
        """Derived facts (as :meth:`derived` lists them) per rule of their first derivation, program order."""
        counts = np.zeros(len(self.program.rules), np.int64)
        for rk, ft, _ in self._derived_order():
            counts += np.bincount(self.relations[rk].meta("rule")[ft.first].astype(np.int64),
                                  minlength=len(counts))[:len(counts)]
        return tuple((r.name, int(c)) for r, c in zip(self.program.rules, counts.tolist()))

    def proof_steps(self, *, deadline: Deadline | None = None) -> tuple[ProofStep, ...]:
        """Each derived fact (in :meth:`derived` order) with the proof step of its first derivation; a
        premise that is itself derived is a :class:`~holokb.core.DerivedRef` to the derived fact (here)
        whose interval holds the premise row.  Without recorded proofs the premises are empty.
        ``deadline``: stop when it expires (then only the first steps, a prefix of :meth:`derived`)."""
        base = {rk: (ft, n) for rk, ft, n in self._derived_order()}
        facts = self.derived(deadline=deadline)
        if self.proofs is None:
            return tuple(ProofStep(f, (), ()) for f in facts)
        from .encoded import PremiseRefs

        cols, term = Columns(self.relations), self.terms.term
        layouts: dict[int, tuple] = {}
        metas: dict[RelKey, tuple] = {}
        refs = PremiseRefs(self, cols)
        out = []
        for fact in facts:
            rk = (fact.predicate, fact.negated)
            ft, n0 = base[rk]
            r = int(ft.first[len(out) - n0])
            meta = metas.get(rk)
            if meta is None:
                meta = metas[rk] = tuple(cols.meta(rk, n) for n in ("depth", "rule", "proof", "valid_from", "valid_to"))
            if meta[0][r] < 0:  # rows of the transitive plan carry no proof
                out.append(ProofStep(fact, (), ()))
                continue
            ri, step = meta[1][r], meta[2][r]
            lay = layouts.get(ri)
            if lay is None:
                table = self.proofs.rules[ri]  # type: ignore[union-attr]
                lay = layouts[ri] = (RuleLayout.of(self.program, ri, tuple(k for k, _ in table.values)),
                                     [p.tolist() for p in table.premise_rows], {k: v.tolist() for k, v in table.values})
            layout, prows, values = lay
            rows = [p[step] for p in prows]
            vals = {name: term(cols.col(layout.atoms[label], pos)[rows[label]]) for name, label, pos in layout.slots}
            for name in layout.values:
                vals[name] = term(values[name][step])
            premises = refs.of(layout.atoms, rows)
            during = _interval(meta[3][r], meta[4][r])  # this derivation's
            absent = tuple(Absence(a.predicate, negated_args(a, vals), a.negated, during) for a in layout.negations)
            out.append(ProofStep(fact, premises, tuple(sorted(vals.items())), absent))
            if deadline is not None and len(out) % 256 == 0 and deadline.expired():
                break
        return tuple(out)

    def encoded_proof_steps(self, *, deadline: Deadline | None = None) -> "EncodedSteps":
        """:meth:`proof_steps` as term ids, no term decoded (:mod:`.encoded`), with the ids the
        dictionary minted itself (those a caller that seeded its own ids must intern)."""
        from .encoded import encoded_steps

        return encoded_steps(self, deadline=deadline)

    def _absences(self, ri: int, bindings: tuple[tuple[str, Term], ...], valid: Interval) -> tuple[Absence, ...]:
        """The rule's negated premises under ``bindings``, absent over ``valid``."""
        vals = dict(bindings)
        out = []
        for b in self.program.rules[ri].body:
            if isinstance(b, Negation):
                a = b.atom
                args = tuple(t.term if isinstance(t, Const) else vals.get(t.name) for t in a.args)
                out.append(Absence(a.predicate, args, a.negated, valid))
        return tuple(out)

    def _premises(self, ri: int, step: int) -> list[tuple[RelKey, int]]:
        """(relation key, row) of every positive body atom of rule ``ri``'s proof step ``step``."""
        table = self.proofs.rules[ri]  # type: ignore[union-attr]
        atoms = [a for a in self.program.rules[ri].body if isinstance(a, Atom)]
        return [((a.predicate, a.negated), int(table.premise_rows[label][step])) for label, a in enumerate(atoms)]

    def _bindings(self, ri: int, step: int) -> tuple[tuple[str, Term], ...]:
        """The named variables of a proof step, sorted by name: from the premise rows (each atom's
        argument positions) and, for variables no atom binds, the proof table's values."""
        vals: dict[str, int] = {}
        atoms = [a for a in self.program.rules[ri].body if isinstance(a, Atom)]
        for atom, (prk, prow) in zip(atoms, self._premises(ri, step)):
            rel = self.relations[prk]
            for pos, t in enumerate(atom.args):
                if isinstance(t, Var) and not t.anonymous and t.name not in vals:
                    vals[t.name] = int(rel.col(pos)[prow])
        for k, v in self.proofs.rules[ri].values:  # type: ignore[union-attr]
            if k not in vals:
                vals[k] = int(v[step])
        return tuple(sorted((k, self.terms.term(i)) for k, i in vals.items()))

    def _score(self, rel: Relation, r: int, goal_bonus: float = 1.0, seed_bonus: float = 1.0) -> float | None:
        if self.proofs is None:
            return None
        return path_score(float(rel.meta("prod")[r]), int(rel.meta("plen")[r]), goal_bonus, seed_bonus)

    def _find(self, predicate: str, args, negated: bool) -> int | None:
        """The first row (earliest found) of the fact that holds at ``valid_at`` (any, when None)."""
        rel = self.relations.get((predicate, negated))
        if rel is None or rel.size == 0 or len(args) != rel.arity:
            return None
        ids = [self.terms.lookup(a) for a in args]
        if any(i is None for i in ids):
            return None
        hit = np.ones(rel.size, dtype=bool)
        for c, i in enumerate(ids):
            hit &= rel.col(c) == i
        found = self._visible(rel, np.flatnonzero(hit))
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
        return self._score(self.relations[(predicate, negated)], r, goal_bonus, seed_bonus)

    def query(self, query: Query) -> tuple[tuple[Term, ...], ...]:
        """Distinct solutions of a query body over the model, projected on ``query.variables``, sorted.

        Empty when the query's own evaluation passes a budget; :meth:`query_page` says so.
        """
        return self.query_page(query).items

    def query_page(self, query: Query) -> Page:
        """:meth:`query` as a :class:`Page`: ``truncated`` (no rows) when a join step of the query
        passes the intermediate-row budget or memory runs out."""
        from .body import BodySolver

        names = [v.name for v in query.variables]
        solver = BodySolver(self.relations, self.terms, self.endpoints, self.cap, {})
        solver.on_step()
        try:
            b = solver.solve(query.body, None, None, False, frozenset(names))
        except IntermediateOverflow:
            return Page((), True, self.cap_name)
        except MemoryError:
            return Page((), True, LimitHit.MEMORY)
        if self.valid_at is not None and b.n:
            b = b.filter(holds_at(b.meta["vf"], b.meta["vt"], self.valid_at))
        rows = set()
        if b.n:
            cols = [b.vars[n].tolist() for n in names]
            rows = set(zip(*cols)) if cols else {()}
        decoded = [tuple(self.terms.term(i) for i in r) for r in rows]
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
        if self.proofs is None:
            raise ValueError("proofs were not recorded: run closure(..., record_proofs=True)")
        memo: dict = {}
        return self._node((predicate, negated), r, 0, max_depth, memo)

    def _node(self, rk, r: int, level: int, max_depth: int | None, memo: dict) -> ProofNode:
        memo_key = (rk, r, level if max_depth is not None else 0)
        if memo_key in memo:
            return memo[memo_key]
        rel = self.relations[rk]
        args = tuple(self.terms.term(rel.col(c)[r]) for c in range(rel.arity))
        valid = _interval(rel.meta("valid_from")[r], rel.meta("valid_to")[r])
        ri = int(rel.meta("rule")[r])
        score = path_score(float(rel.meta("prod")[r]), int(rel.meta("plen")[r]))
        if ri < 0:
            key = self.input_keys[rk][r]
            conf = float(rel.meta("prod")[r])
            nid = node_id(rk[0], args, valid, rk[1], None, key, ())
            node = ProofNode(nid, rk[0], args, valid, rk[1], None, key, conf, (), (), False, score)
        else:
            rule = self.program.rules[ri]
            if max_depth is not None and level >= max_depth:
                nid = node_id(rk[0], args, valid, rk[1], rule.name, "partial", ())
                node = ProofNode(nid, rk[0], args, valid, rk[1], rule.name, None, 1.0, (), (), True, score)
            else:
                step = int(rel.meta("proof")[r])
                premises = [self._node(prk, prow, level + 1, max_depth, memo) for prk, prow in self._premises(ri, step)]
                bindings = self._bindings(ri, step)
                for a in self._absences(ri, bindings, valid):
                    aid = node_id(a.predicate, a.args, a.valid, a.negated, None, "absent", ())
                    premises.append(ProofNode(aid, a.predicate, a.args, a.valid, a.negated, None, None, 1.0, (), (),
                                              False, 1.0, absent=True))
                pids = tuple(n.id for n in premises)
                nid = node_id(rk[0], args, valid, rk[1], rule.name, None, pids)
                node = ProofNode(nid, rk[0], args, valid, rk[1], rule.name, None, 1.0, bindings,
                                 tuple(premises), any(n.partial for n in premises), score)
        memo[memo_key] = node
        return node

    def nbytes(self, *, indexes: bool = False) -> int:
        """Bytes held by all relation columns (and their indexes and dedup keys when ``indexes``)."""
        return sum(r.nbytes(indexes=indexes) for r in self.relations.values())


def decode_violations(solver, found: list, valid_at: int | None = None) -> tuple[Violation, ...]:
    """Decode constraint solutions ``(constraint index, bindings)`` into :class:`Violation` values
    (those that hold at ``valid_at``, when given)."""
    out = []
    for ci, b in found:
        if valid_at is not None:
            b = b.filter(holds_at(b.meta["vf"], b.meta["vt"], valid_at))
        c = solver.program.constraints[ci]
        atoms = [a for a in c.body if isinstance(a, Atom)]
        items = []
        for k in range(b.n):
            binds = tuple(sorted((n, solver.terms.term(v[k])) for n, v in b.vars.items() if not n.startswith("_")))
            prem = []
            for label, a in enumerate(atoms):
                rel = solver.relations[(a.predicate, a.negated)]
                r = int(b.meta[f"p{label}"][k])
                args = tuple(solver.terms.term(rel.col(i)[r]) for i in range(rel.arity))
                prem.append(FactRef(a.predicate, args, _interval(rel.meta("valid_from")[r], rel.meta("valid_to")[r]),
                                    a.negated))
            items.append(Violation(c.name, binds, tuple(prem), _interval(b.meta["vf"][k], b.meta["vt"][k])))
        items.sort(key=lambda v: ([(n, term_sort_key(t)) for n, t in v.bindings], v.valid.start,
                                  v.valid.end if v.valid.end is not None else _MAX))
        out.extend(items)
    return tuple(out)


__all__ = [
    "Absence", "DerivedFact", "FactRef", "Model", "ProofStep", "ProofTable", "RuleProofs", "Stats", "Violation",
]
