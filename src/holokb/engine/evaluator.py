"""Logical layer, part 2: semi-naive evaluation per stratum under budgets.

Each stratum runs to a fixpoint.  Iteration 1 evaluates every rule of the stratum on the full
relations (all rows of the stratum's own predicates count as new); later iterations evaluate,
for each rule and each body atom over a predicate of the stratum, the variant where that atom
reads only last iteration's new rows, atoms before it read all rows and atoms after it read
only the older rows.  New rows are appended after the iteration, deduplicated by identity key.

Bodies are solved by :class:`~.body.BodySolver` (this class is one, over its growing
relations).  Proofs keep the premise row numbers, from which :class:`~.model.Model` reads every
binding back.  A join step that would pass the intermediate-row cap stops the run (truncated),
as does MemoryError.  :meth:`Evaluation.result` hands the frozen relations, proof table and
statistics to a :class:`~.model.Model`; the evaluation is not kept.

Valid time is the whole axis (:mod:`.temporal`): a row is the args plus a validity interval, a
fact derived over two intervals is two rows, and a new row is dropped when a row of the same args
already covers its interval (it could add no instant; this also keeps input facts from being
derived again).  :class:`~.model.Model` coalesces rows into maximal intervals.
"""
from __future__ import annotations

from types import MappingProxyType

import numpy as np

from ..analysis.program import Aggregate, Assignment, Atom, Comparison, Negation, Program, Rule, Var
from ..core.arrays import distinct
from ..core.limits import LimitHit, Limits
from . import allocator as _allocator
from . import body as _body
from . import rowloop as _rowloop
from . import rowwise as _rowwise
from . import variants as _variants
from .body import BodySolver
from .database import Database, RelKey
from .joins import Bindings, expr_vars, gather
from .model import Model, ProofTable, RuleProofs, Stats, decode_violations
from .planning import positive_atoms
from . import budget as _budget
from .relation import DeadlinePassed, IntermediateOverflow, Relation, fits, pack
from .temporal import MAX_T as MAX_TIME, MIN_T as MIN_TIME

PROOF_COLS = ("proof", "prod", "plen")
_STOP = object()  # a row-at-a-time iteration hit the deadline


class Evaluation(BodySolver):
    """The state of one closure run: relations, budgets, proof tables, statistics."""

    def __init__(self, program: Program, db: Database, limits: Limits, record: bool, valid_at: int | None):
        self.program = program
        self.record = record
        self.valid_at = valid_at
        self.limits = limits
        self.deadline = limits.deadline()
        cap, self.cap_name = _body.MAX_INTERMEDIATE_ROWS, LimitHit.MAX_INTERMEDIATE
        if limits.max_edges is not None and limits.max_edges < cap:
            cap, self.cap_name = max(int(limits.max_edges), 0), LimitHit.MAX_EDGES
        self.extra = PROOF_COLS if record else ()
        inputs = db.encode(self.extra)
        relations: dict[RelKey, Relation] = {rk: r.relation for rk, r in inputs.items()}
        self.input_keys = {rk: r.keys for rk, r in inputs.items()}
        ends = [np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max], dtype=np.int64)]
        for r in relations.values():
            ends += [r.meta("valid_from"), r.meta("valid_to")]
        # sorted distinct (one sort: a Python set of LUBM's 2 x 119k endpoints was 17 ms, this 1 ms)
        endpoints = distinct(np.concatenate(ends).astype(np.int64, copy=False))  # intersections never make new ones
        arity: dict[RelKey, int] = {}
        for r in program.rules:
            for a in [r.head] + [b for b in r.body if isinstance(b, Atom)]:
                arity.setdefault((a.predicate, a.negated), a.arity)
        super().__init__(relations, db.terms, endpoints, cap, arity)
        # Only the axis' ends: a row's interval can only be [MIN, MAX) (joins intersect, `not` cuts at
        # endpoints), so dedup keys leave the interval out.
        self.timeless = len(endpoints) == 2 and all(
            bool((r.meta("valid_from") < r.meta("valid_to")).all()) for r in relations.values())
        self.relations: dict[RelKey, Relation] = relations
        self.proof_tables: dict[int, list[dict]] = {}
        self.proof_sizes: dict[int, int] = {}
        self.truncated = False
        self.limit_hit: LimitHit | None = None
        self.iterations = 0
        self.derived = 0
        self.rule_counts = [0] * len(program.rules)
        self.stale_keys: set[RelKey] = set()
        self._rows: _rowwise.RowIteration | None = None
        self._premise_names: dict[tuple, list[str]] = {}  # binding meta keys -> the premise-row ones
        self._value_names: dict[int, frozenset[str]] = {}
        self._score_layouts: dict[tuple, list] = {}  # (rule, binding meta keys) -> premise keys, relations

    # -- relations and keys ------------------------------------------------------------
    def relation(self, rk: RelKey, arity: int | None = None) -> Relation:
        """The relation ``rk``, created (empty, keyed) on first use."""
        rel = self.relations.get(rk)
        if rel is None:
            rel = Relation(arity if arity is not None else self._arity.get(rk, 0), self.extra)
            self.relations[rk] = rel
            if self.bits:
                empty = np.zeros(0, np.int64)
                rel.rekey(self._key_cols([empty] * rel.arity, empty, empty), self.key_widths(rel.arity))
        return rel

    def key_widths(self, arity: int) -> tuple[int, ...]:
        """Bits per dedup-key column: :attr:`bits` per id column, then the two interval ranks in
        as many bits as the endpoint count needs (1 each when every row is valid always)."""
        if self.timeless and arity:
            return (self.bits,) * arity
        rank = max(1, (len(self.endpoints) - 1).bit_length())  # ranks lie in [0, len - 1]: MAX is the last
        return (self.bits,) * arity + (rank, rank)

    def _key_cols(self, cols: list[np.ndarray], vf: np.ndarray, vt: np.ndarray) -> list[np.ndarray]:
        """A row's identity columns: its args, then the ranks of its interval's ends — left out when
        no input row has an interval (every row then holds always: the ranks would be constant)."""
        if self.timeless and cols:
            return cols
        return cols + [np.searchsorted(self.endpoints, vf), np.searchsorted(self.endpoints, vt)]

    def on_step(self) -> None:
        self._ensure_bits()
        if self.deadline.expired():
            raise DeadlinePassed

    def _ensure_bits(self) -> None:
        bits = self.key_bits()
        if bits <= self.bits:
            return
        self.bits = bits + 2  # headroom: arithmetic mints terms, rekeying costs a full pass
        self.stale_keys.clear()
        for rel in self.relations.values():
            cols = [rel.col(i) for i in range(rel.arity)]
            rel.rekey(self._key_cols(cols, rel.meta("valid_from"), rel.meta("valid_to")), self.key_widths(rel.arity))

    # -- strata ----------------------------------------------------------------------------
    def run(self) -> None:
        """Evaluate every stratum in order, stopping at the first budget hit.

        A join step past :attr:`cap` rows stops with ``limit_hit`` ``"max_intermediate"`` (or
        ``"max_edges"`` when that Limits field set the cap), and running out of memory stops
        with ``"memory"`` (:class:`~holokb.core.LimitHit`): the relations keep every row appended before the failing iteration.
        """
        self._ensure_bits()
        try:
            with _allocator.big_arrays(sum(r.size for r in self.relations.values())), _budget.running(self.deadline):
                for stratum in self.program.strata:
                    if self.truncated:
                        break
                    self._run_stratum(stratum)
        except IntermediateOverflow:
            self._hit(self.cap_name)
        except DeadlinePassed:
            self._hit(LimitHit.TIMEOUT)
        except MemoryError:
            self._hit(LimitHit.MEMORY)

    def _run_stratum(self, stratum: tuple[int, ...]) -> None:
        rules = [(i, self.program.rules[i]) for i in stratum]
        if self._transitive(rules):
            return
        own = {(r.head.predicate, r.head.negated) for _, r in rules}
        for rk in own:
            self.relation(rk)
        delta = {rk: (0, self.relations[rk].size) for rk in own}
        # Per rule, worked out once: its atoms over the stratum's predicates (label, relation key)
        # and the variables its bindings keep; the loop below then only reads row ranges.
        shapes = []
        for ri, rule in rules:
            rec = tuple((k, (a.predicate, a.negated)) for k, a in enumerate(positive_atoms(rule.body))
                        if (a.predicate, a.negated) in own)
            shapes.append((ri, rule, rec, self._keep(rule)))
        order = sorted(own)
        old_end = {rk: 0 for rk in own}
        first = True
        iteration = 0
        fused, back = None, False  # the fused small-delta loop (:mod:`.rowloop`), made on first use
        small = 0  # small-delta iterations so far: the fused loop is built after FUSE_AFTER of them
        while True:
            if self.deadline.expired():
                self._hit(LimitHit.TIMEOUT)
                return
            if self.limits.max_depth is not None and iteration >= self.limits.max_depth:
                self._hit(LimitHit.MAX_DEPTH)
                return
            if (not first and not back and sum(hi - lo for lo, hi in delta.values()) <= _rowwise.THRESHOLD
                    and (fused is not None or small >= _rowloop.FUSE_AFTER)):
                if fused is None:
                    fused = _rowloop.eligible(self, rules, own)
                    if fused:
                        if self._rows is None:
                            self._rows = _rowwise.RowIteration(self)
                        fused = _rowloop.FusedLoop(self, self._rows, shapes, own)
                if fused:
                    state, iteration = fused.run(delta, old_end, iteration)
                    if state in ("done", "stop"):
                        return
                    back = state == "back"  # that iteration runs on the other paths
                    continue
            over, back = back, False  # handed back by the fused loop: past its binding cap, so past the row path's
            iteration += 1
            self.iterations += 1
            out: dict[RelKey, list] = {}
            rows = None
            if (not first and not over and _rowwise.ROWWISE
                    and sum(hi - lo for lo, hi in delta.values()) <= _rowwise.THRESHOLD):
                small += 1
                rows = self._row_iteration(shapes, delta, old_end)
                if rows is _STOP:
                    return
            if rows is None and not _variants.iteration(self, out, shapes, delta, old_end, first):
                return  # the deadline passed
            first = False
            grew = False
            for rk in order:
                before = self.relations[rk].size
                if rows is not None:
                    if rk in rows:
                        self._rows.append(rk, rows[rk])
                elif rk in out:
                    self._append(rk, out[rk])
                after = self.relations[rk].size
                old_end[rk] = before
                delta[rk] = (before, after)
                grew |= after > before
                if self.truncated:
                    return
            if not grew:
                return

    def _row_iteration(self, shapes, delta: dict, old_end: dict):
        """One later iteration's rule variants solved row at a time (:mod:`.rowwise`): the new rows
        per relation, :data:`_STOP` when the deadline passed, or None to run it vectorised."""
        if self._rows is None:
            self._rows = _rowwise.RowIteration(self)
        rw = self._rows
        out: dict[RelKey, list] = {}
        try:
            for ri, rule, rec, keep in shapes:
                for k, rk_k in rec:
                    lo_k, hi_k = delta[rk_k]
                    if lo_k >= hi_k:
                        continue
                    ranges = {}
                    for j, rk in rec:
                        lo, hi = delta[rk]
                        ranges[j] = (lo, hi) if j == k else ((0, hi) if j < k else (0, old_end[rk]))
                    head = rw.head_rows(ri, rule, rw.solve(rule.body, ranges, k, keep))
                    if head:
                        if self.terms.id_bound != rw._bound:  # head constants may have been minted
                            rw._bound = self.terms.id_bound
                            self._ensure_bits()
                        out.setdefault((rule.head.predicate, rule.head.negated), []).append((ri, head))
                    if self.deadline.expired():
                        self._hit(LimitHit.TIMEOUT)
                        return _STOP
        except _rowwise.Fallback:
            return None
        return out

    def _keep(self, rule: Rule) -> frozenset[str]:
        """Variables a rule's bindings must keep to the end: the head's, and with proofs every
        named variable no positive atom binds (proof bindings read the rest from premise rows)."""
        keep = {t.name for t in rule.head.args if isinstance(t, Var)}
        if self.record:
            in_atoms = {t.name for a in positive_atoms(rule.body) for t in a.args if isinstance(t, Var)}
            keep |= {n for n in _named_vars(rule.body) if n not in in_atoms}
        return frozenset(keep)

    def _transitive(self, rules) -> bool:
        """Run a linear transitive-closure stratum by graph search when nothing depends on order."""
        from .transitive import match, reachability

        lim = self.limits
        if self.record or lim.max_depth is not None or lim.max_derived is not None:
            return False
        m = match(rules)
        if m is None:
            return False
        bi, si, pk, ek, _ = m
        path, edge = self.relations.get(pk), self.relations.get(ek)
        if edge is None or edge.size == 0 or (path is not None and path.size):
            return False
        vf, vt = edge.meta("valid_from"), edge.meta("valid_to")
        if (vf != vf[0]).any() or (vt != vt[0]).any():
            return False
        # A thousand edges can close to millions of pairs (TC random 10k/20k: 20k edges, 63.7M
        # pairs): malloc is tuned for big arrays whatever the input's size (allocator.big_arrays).
        with _allocator.big_arrays(_allocator.MIN_ROWS if edge.size >= 1000 else 0):
            pairs = reachability(edge.col(0), edge.col(1))
            if pairs is not None:
                self._transitive_rows(pk, bi, si, pairs, vf, vt)
        return pairs is not None

    def _transitive_rows(self, pk, bi: int, si: int, pairs, vf: np.ndarray, vt: np.ndarray) -> None:
        """Store the transitive plan's pairs as rows of ``pk`` (base rule ``bi``, step rule ``si``)."""
        a, b, base = pairs  # base: the pair is an edge (the base rule derives it)
        path = self.relation(pk, 2)
        n = len(a)
        small = np.int16 if max(bi, si) < 2**15 else np.int64  # the stored columns' types: no narrowing pass
        rule = np.where(base, small(bi), small(si))
        # the constant columns as stride-0 views: the relation stores each value once (relation._Column)
        path.append([a, b], valid_from=np.broadcast_to(vf[:1], n), valid_to=np.broadcast_to(vt[:1], n),
                    depth=np.broadcast_to(np.int32(-1), n), rule=rule)
        self.stale_keys.add(pk)
        self.derived += n
        self.rule_counts[bi] += int(base.sum())
        self.rule_counts[si] += int(n - base.sum())
        self.iterations += 1

    def _collect(self, out: dict, ri: int, rule: Rule, b: Bindings) -> None:
        if b.n == 0:
            return
        depth = b.meta["depth"] + 1
        if rule.depth is not None:
            b = b.filter(depth <= rule.depth)
            depth = b.meta["depth"] + 1
            if b.n == 0:
                return
        head = rule.head
        cols = []
        for t in head.args:
            if isinstance(t, Var):
                cols.append(b.vars[t.name])
            else:
                cols.append(np.full(b.n, self.terms.intern(t.term), dtype=np.int64))
        self._ensure_bits()
        # the last slot: the kept positions once claimed (:meth:`_claim`; None until then)
        out.setdefault((head.predicate, head.negated), []).append((ri, cols, b, depth, None))

    def _append(self, rk: RelKey, batches: list) -> None:
        """Claim the new rows of an iteration's batches (in batch order: the first candidate of a
        key wins, as over their concatenation) and append them.  Batch by batch, so only the kept
        rows are copied (RDFS 100k: 5.1M candidates, 1.4M kept, were concatenated per column)."""
        rel = self.relation(rk)
        room = None if self.limits.max_derived is None else self.limits.max_derived - self.derived
        kept = []
        for _, cols, b, _, sel in batches:  # every claim before any append: the rows of one
            if sel is None:                 # iteration never cover each other
                sel = self._claim(rk, cols, b, room)
            if room is not None:
                room -= len(sel)
            kept.append(sel)
        for (ri, cols, b, depth, _), sel in zip(batches, kept):
            n = len(sel)
            if n == 0:
                continue
            # all kept: no gather; a constant (stride-0) column stays one (the relation stores it once)
            pick = (lambda a: a) if n == b.n else (lambda a: gather(a, sel))
            meta = {"valid_from": pick(b.meta["vf"]), "valid_to": pick(b.meta["vt"]), "depth": pick(depth),
                    "rule": np.full(n, ri, np.int16 if ri < 2**15 else np.int64)}  # the stored column's type
            if self.record:
                meta.update(self._record(ri, b, sel))
            rel.append([pick(c) for c in cols], **meta)
            self.derived += n
            self.rule_counts[ri] += n

    def _claim(self, rk: RelKey, cols: list[np.ndarray], b: Bindings, room: int | None = None) -> np.ndarray:
        """Positions of the candidates (head ``cols`` of bindings ``b``) that are new rows of ``rk``,
        their keys recorded; past ``room`` (max_derived) the rest are released and the run is cut."""
        rel = self.relation(rk)
        if rk in self.stale_keys:
            self.rekey_stale(rk, rel)
        widths = self.key_widths(rel.arity)
        vf, vt = b.meta["vf"], b.meta["vt"]
        keys = self._key_cols(cols, vf, vt)
        mask = rel.claim_new(keys, widths)
        if not self.timeless:  # timeless: every interval is the whole axis, none is covered
            self._drop_covered(rel, cols, vf, vt, mask)
        sel = np.flatnonzero(mask)
        if room is not None and len(sel) > room:
            rel.release([k[sel[max(room, 0):]] for k in keys], widths)
            sel = sel[:max(room, 0)]
            self._hit(LimitHit.MAX_DERIVED)
        return sel

    def rekey_stale(self, rk: RelKey, rel: Relation) -> None:
        """Key the rows the transitive plan added (they were never keyed) before rows are claimed."""
        self.stale_keys.discard(rk)
        rel.rekey(self._key_cols([rel.col(i) for i in range(rel.arity)], rel.meta("valid_from"),
                                 rel.meta("valid_to")), self.key_widths(rel.arity))

    def _drop_covered(self, rel: Relation, cols: list[np.ndarray], vf: np.ndarray, vt: np.ndarray,
                      mask: np.ndarray) -> None:
        """Unset ``mask`` for candidates whose interval a stored row of the same args covers.

        Only candidates valid over less than the whole axis can be covered by a row other than
        their own key's, so the common case (everything always valid) costs one comparison.
        """
        part = np.flatnonzero(mask & ((vf != MIN_TIME) | (vt != MAX_TIME)))
        if len(part) == 0 or rel.size == 0:
            return
        if rel.arity == 0:
            pos = np.repeat(np.arange(len(part)), rel.size)
            rows = np.tile(np.arange(rel.size), len(part))
        else:
            k = fits(rel.arity, self.bits)
            idx = rel.index(tuple(range(rel.arity)), self.bits)
            pos, rows = idx.probe(pack([c[part] for c in cols[:k]], self.bits))
            same = np.ones(len(pos), dtype=bool)
            for c in range(k, rel.arity):
                same &= rel.col(c)[rows] == cols[c][part][pos]
            pos, rows = pos[same], rows[same]
        covered = (rel.meta("valid_from")[rows] <= vf[part][pos]) & (rel.meta("valid_to")[rows] >= vt[part][pos])
        mask[part[pos[covered]]] = False

    def _record(self, ri: int, b: Bindings, sel: np.ndarray) -> dict:
        """Store premises and bindings of batch ``b``'s kept rows ``sel`` in rule ``ri``'s proof table."""
        base = self._proof_chunk(ri, b, sel)
        # proof numbers in the stored column's type when they fit (no narrowing pass later)
        dt = np.int32 if base + len(sel) < 2**31 else np.int64
        weight = self.program.rules[ri].weight
        if "prod" in b.meta:
            prod, plen = b.meta["prod"][sel], b.meta["plen"][sel]
        else:
            prod, plen = self._scores(ri, b, sel)
        return {"proof": np.arange(base, base + len(sel), dtype=dt),
                "prod": prod if weight == 1.0 else prod * weight,  # (x * 1.0 is x)
                "plen": plen + 1}

    def _scores(self, ri: int, b: Bindings, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The confidence product and path length of ``b``'s rows ``sel`` from their premise rows,
        multiplied in join order from 1.0 (the binding metadata's order: the premise columns were
        added as the atoms were joined), so the floats are those the joins would have carried.
        A relation whose scores are all 1.0 and lengths all 0 (input facts, usually) is not read:
        x * 1.0 is x exactly."""
        layout = self._score_layouts.get((ri, tuple(b.meta)))
        if layout is None:
            atoms = positive_atoms(self.program.rules[ri].body)
            layout = self._score_layouts[(ri, tuple(b.meta))] = [
                (k, (atoms[int(k[1:])].predicate, atoms[int(k[1:])].negated))
                for k in b.meta if k[0] == "p" and k[1:].isdigit()]
        prod = plen = None
        for k, rk in layout:
            rel = self.relations.get(rk)
            if rel is None or not rel.has_meta("prod"):
                continue
            unit, zero = rel.all_equal("prod", 1.0), rel.all_equal("plen", 0)
            if unit and zero:
                continue
            r = b.meta[k][sel]
            if not unit:
                prod = rel.meta("prod")[r] if prod is None else prod * rel.meta("prod")[r]
            if not zero:
                plen = rel.meta("plen")[r].astype(np.int64) if plen is None else plen + rel.meta("plen")[r]
        return (np.ones(len(sel)) if prod is None else prod,
                np.zeros(len(sel), np.int64) if plen is None else plen)

    def _proof_chunk(self, ri: int, b, rows: np.ndarray) -> int:
        """Append the bindings and premise rows of ``b``'s ``rows`` to rule ``ri``'s proof table;
        the proof number of the first of them."""
        names = self._premise_names.get(tuple(b.meta))
        if names is None:
            names = self._premise_names[tuple(b.meta)] = [k for k in b.meta if k.startswith("p") and k[1:].isdigit()]
        own = self.proof_value_names(ri)
        if len(rows) == b.n:  # every row kept (the usual case): no gather of arrays the bindings own
            table = {k: v if v.base is None else v.copy() for k, v in b.vars.items() if k in own}
            table.update({"#" + k: b.meta[k] if b.meta[k].base is None else b.meta[k].copy() for k in names})
        else:
            table = {k: v[rows] for k, v in b.vars.items() if k in own}
            table.update({"#" + k: b.meta[k][rows] for k in names})
        base = self.proof_sizes.get(ri, 0)
        self.proof_tables.setdefault(ri, []).append(table)
        self.proof_sizes[ri] = base + len(rows)
        return base

    def proof_value_names(self, ri: int) -> frozenset[str]:
        """The variables whose ids rule ``ri``'s proof table stores (:class:`~.model.RuleProofs`
        ``values``): those no positive atom binds — the others are read back from the premise rows."""
        got = self._value_names.get(ri)
        if got is None:
            body = self.program.rules[ri].body
            in_atoms = {t.name for a in positive_atoms(body) for t in a.args if isinstance(t, Var)}
            got = self._value_names[ri] = frozenset(_named_vars(body) - in_atoms)
        return got

    def _hit(self, limit: LimitHit) -> None:
        if not self.truncated:
            self.truncated, self.limit_hit = True, limit

    # -- the result ----------------------------------------------------------------------------
    def result(self) -> Model:
        """Check the constraints, freeze the relations and hand everything to a :class:`Model`."""
        violations = self.violations()
        for rel in self.relations.values():
            rel.freeze()
        proofs = None
        if self.record:
            rules = []
            for ri in range(len(self.program.rules)):
                chunks = self.proof_tables.get(ri)
                if not chunks:
                    rules.append(None)
                    continue
                table = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
                n_atoms = len(positive_atoms(self.program.rules[ri].body))
                rows = tuple(_frozen(table[f"#p{label}"]) for label in range(n_atoms))
                values = tuple((k, _frozen(v)) for k, v in sorted(table.items()) if not k.startswith(("#", "_")))
                rules.append(RuleProofs(rows, values))
            proofs = ProofTable(tuple(rules))
        self.proof_tables = {}
        names = [r.name for r in self.program.rules]
        stats = Stats(self.iterations, self.derived, tuple(zip(names, self.rule_counts)))
        return Model(self.program, self.terms, MappingProxyType(dict(self.relations)),
                     MappingProxyType(dict(self.input_keys)), proofs, stats,
                     self.truncated, self.limit_hit, decode_violations(self, violations, self.valid_at),
                     self.endpoints, self.cap, self.cap_name, self.valid_at)

    # -- constraints -------------------------------------------------------------------------
    def violations(self) -> list[tuple[int, Bindings]]:
        """Solutions of every integrity constraint body over the final relations; a constraint
        whose evaluation passes a budget is skipped and the run marked truncated."""
        out = []
        for ci, c in enumerate(self.program.constraints):
            try:
                b = self.solve(c.body, None, None, True, frozenset(_named_vars(c.body)))
            except IntermediateOverflow:
                self._hit(self.cap_name)
                continue
            except DeadlinePassed:
                self._hit(LimitHit.TIMEOUT)
                break
            except MemoryError:
                self._hit(LimitHit.MEMORY)
                continue
            if b.n:
                out.append((ci, b))
        return out


def _named_vars(body) -> set[str]:
    """The non-anonymous variables a body mentions (atoms, filters, assignments, aggregates)."""
    out: set[str] = set()
    for item in body:
        if isinstance(item, Atom):
            out |= {t.name for t in item.args if isinstance(t, Var)}
        elif isinstance(item, Negation):
            out |= {t.name for t in item.atom.args if isinstance(t, Var)}
        elif isinstance(item, Comparison):
            out |= expr_vars(item.left) | expr_vars(item.right)
        elif isinstance(item, Assignment):
            out |= expr_vars(item.expr) | {item.target.name}
        elif isinstance(item, Aggregate):
            out |= {v.name for v in item.group_by + item.witnesses} | {item.target.name}
    return {n for n in out if not n.startswith("_")}


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a
