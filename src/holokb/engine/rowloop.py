"""Fused small-delta fixpoint: a stratum's later iterations run as generated Python (physical layer).

:class:`~.rowwise.RowIteration` solves one iteration at a time over binding objects (~40 us per
iteration of a counter).  When every row holds always (:attr:`~.body.BodySolver.timeless`) and the
stratum's delta is small, :class:`FusedLoop` instead runs *many* iterations in one go: each rule
variant's plan (the same :meth:`~.body.BodySolver._plan`) is compiled once into a Python function of
nested loops over the relations' Python mirrors and dict indexes, with variables as locals, integer
arithmetic and comparisons inline, new integers minted inline and lazily
(:meth:`~.dictionary.TermDictionary.lazy_int_parts`), dedup in a Python set, and the rows, depths,
rule numbers, proof rows and scores kept in lists that reach the relations (numpy) once, when the
loop hands back.  Usually the iteration loop itself is generated too (:meth:`FusedLoop._loop`), and
each candidate is stored where it is made.  A 100k-step counter then costs about a microsecond per
step (1.4 with proofs).

Same model as the vector path by construction: bindings in the vector order (nested loops over
matching rows ascending give the breadth-first order; a duplicate binding only repeats candidates
that come later), candidates kept first-come per relation in the evaluator's relation order, the
same depth filter, ``max_derived`` cut, ``max_depth`` and deadline checks per iteration, proof
tables numbered per rule in candidate order.  Anything else — intervals (not timeless), aggregates,
a tight ``max_edges`` cap, a relation too large to mirror — is not for this path (:func:`eligible`);
an iteration whose bindings pass :data:`MAX_BINDINGS` is handed back with nothing of it stored (the
generated loop takes back what it stored), as is every iteration whose delta grows past
:data:`~.rowwise.THRESHOLD` rows.
"""
from __future__ import annotations

from array import array
from collections import Counter

import numpy as np

from ..analysis.program import Aggregate
from ..core.limits import LimitHit
from . import rowwise as _rowwise
from .planning import positive_atoms
from .rowcode import MAX_BINDINGS, VariantCompiler
from .rowcode import Over as _Over
from .rowcode import compile_cached as _compile
from .temporal import MAX_T, MIN_T

#: Switch: small-delta iterations of timeless strata run fused in generated code (off: row path).
FUSED = True
#: Below this ``max_edges``/intermediate cap the vector path's pair counts could stop a join this
#: path would finish: such runs stay on the other paths.
MIN_CAP = 1 << 16
#: Rows the loop keeps before it hands them to the relations (and comes back): the hand-over then
#: costs ~10 ms, so a deadline that stops the loop is not overrun by storing a long run's rows.
FLUSH_ROWS = 8192
#: Small-delta iterations a stratum runs on the row path before the fused loop is built: compiling
#: a rule variant costs ~0.5 ms, more than a short closure's whole run (a CLUTRR story: ~30 rules, a
#: few iterations, 2.7x the CPU when every closure compiled), so only long recursions pay for it.
FUSE_AFTER = 8
def eligible(ev, rules, own) -> bool:
    """Whether a stratum can run fused: timeless rows, no aggregate, no negation of its own
    predicates, a cap the bindings cannot reach, every relation it reads small enough to mirror."""
    if not (FUSED and _rowwise.ROWWISE and ev.timeless and ev.skip_validity and ev.cap >= MIN_CAP):
        return False
    for _, rule in rules:
        for item in rule.body:
            if isinstance(item, Aggregate):
                return False
            atom = getattr(item, "atom", None)
            if atom is not None and (atom.predicate, atom.negated) in own:
                return False
        for a in positive_atoms(rule.body):
            rel = ev.relations.get((a.predicate, a.negated))
            if rel is not None and rel.size > _rowwise.DICT_INDEX_MAX:
                return False
    return True


class _Store:
    """One relation as the loop sees it: a row-path mirror (Python lists), dict indexes by bound
    columns, and for the stratum's own relations the dedup set and, per row added since the last
    hand-back, its rule and proof number."""

    __slots__ = ("rel", "mirror", "indexes", "seen", "scalar", "start", "rules", "proofs", "runs")

    def __init__(self, rel, own: bool):
        m = _rowwise._Mirror(rel)
        m.vf = m.vt = None  # every row holds always (the loop runs timeless evaluations only)
        self.rel, self.mirror, self.indexes = rel, m.sync(rel), {}
        self.seen = None
        # a one-column relation's dedup set holds the ids themselves (no tuple per row): see `dedup`
        self.scalar = rel.arity == 1
        if own:
            self.seen = set(m.cols[0]) if self.scalar else set(zip(*m.cols)) if rel.arity else ({()} if m.n else set())
        self.start, self.rules, self.proofs = m.n, [], []
        self.runs: list[tuple[int, int]] = []  # a one-rule relation's proof numbers: (first, count) runs

    def catch_up(self) -> None:
        """Read the rows the other paths appended since the loop last ran."""
        m = self.mirror
        lo = m.n
        m.sync(self.rel)
        if m.n > lo:
            self.grew(lo, m.n)
            if self.seen is not None:
                self.seen.update(m.cols[0][lo:] if self.scalar else zip(*[c[lo:] for c in m.cols])
                                 if self.rel.arity else [()])
        self.start = m.n

    def index(self, cols: tuple[int, ...]) -> dict:
        idx = self.indexes.get(cols)
        if idx is None:
            idx = self.indexes[cols] = {}
            self._add(idx, cols, 0, self.mirror.n)
        return idx

    def _add(self, idx: dict, cols, lo: int, hi: int) -> None:
        m = self.mirror.cols
        for r, key in enumerate(zip(*[m[c][lo:hi] for c in cols]), lo):
            hit = idx.get(key)
            if hit is None:
                idx[key] = [r]
            else:
                hit.append(r)

    def grew(self, lo: int, hi: int) -> None:
        for cols, idx in self.indexes.items():
            self._add(idx, cols, lo, hi)


class FusedLoop:
    """Runs iterations of one stratum fused (see the module doc) for an :class:`~.evaluator.Evaluation`;
    kept for the stratum's whole run (mirrors, indexes and compiled variants are reused)."""

    def __init__(self, ev, rw, shapes, own):
        self.ev, self.rw, self.shapes, self.own = ev, rw, shapes, own
        self.terms = ev.terms
        self.stores: dict = {}
        self._code: dict = {}
        self.chunks: dict[int, dict] = {}  # rule -> proof table columns (lists) added since the last flush
        self.sizes: dict[int, int] = {}
        # Every score is 1.0 (unit rule weights, every row read scored 1.0): the loop then multiplies
        # and stores none; the hand-over writes ones.  True for the whole stratum by induction (its
        # relations only get rows of its rules over such rows).
        self.unit_scores = ev.record and self._unit_scores(shapes)
        # Every rule of the stratum has at most one positive atom and every row read has a path
        # length equal to its depth (input rows: both 0): then so has every row it derives (one
        # premise: both grow by one), and the loop keeps no lengths; the hand-over writes the depths.
        self.plen_is_depth = ev.record and self._plen_is_depth(shapes)
        # rule -> (relation key, {proof value name: head column}) for values the generated loop reads
        # back from the new rows at the hand-over instead of keeping them twice
        self.head_values: dict[int, tuple] = {}

    def _plen_is_depth(self, shapes) -> bool:
        for _, rule, _, _ in shapes:
            atoms = positive_atoms(rule.body)
            if len(atoms) > 1:
                return False
            for a in atoms:
                rel = self.ev.relations.get((a.predicate, a.negated))
                if rel is not None and rel.size and rel.has_meta("plen") and not (
                        rel.meta("plen") == rel.meta("depth")).all():
                    return False
        return True

    def _unit_scores(self, shapes) -> bool:
        rules = self.ev.program.rules
        for ri, rule, _, _ in shapes:
            if rules[ri].weight != 1.0:
                return False
            for a in positive_atoms(rule.body):
                rel = self.ev.relations.get((a.predicate, a.negated))
                if rel is not None and rel.size and rel.has_meta("prod") and not (rel.meta("prod") == 1.0).all():
                    return False
        return True

    def store(self, rk, arity: int) -> _Store:
        st = self.stores.get(rk)
        if st is None:
            st = self.stores[rk] = _Store(self.ev.relation(rk, arity), rk in self.own)
        return st

    # -- the loop ----------------------------------------------------------------------------------
    def run(self, delta: dict, old_end: dict, iteration: int) -> tuple[str, int]:
        """Iterate until the fixpoint (``"done"``), a budget (``"stop"``), a delta past the threshold
        or :data:`FLUSH_ROWS` rows kept (``"more"``) or an iteration past :data:`MAX_BINDINGS` (``"back"``: not run, not counted);
        ``delta``/``old_end`` are updated in place.  The rows reach the relations before it returns."""
        got = None
        try:
            got = self._iterate(delta, old_end, iteration)
            return got
        finally:  # (after an exception _discard has left nothing to hand over)
            self.flush(final=got is not None and got[0] in ("done", "stop"))

    def _iterate(self, delta: dict, old_end: dict, iteration: int) -> tuple[str, int]:
        ev = self.ev
        deadline, max_depth = ev.deadline, ev.limits.max_depth
        order = sorted(self.own)
        for st in self.stores.values():
            st.catch_up()
        for rk in order:
            self.store(rk, ev.relation(rk).arity)
        self.sizes.clear()  # in place: compiled loops number proofs in it
        self.sizes.update(ev.proof_sizes)
        variants = self._variants(delta, old_end)
        for v in variants:
            self.sizes.setdefault(v[0], 0)
        stores = [self.stores[rk] for rk in order]
        place = {rk: p for p, rk in enumerate(order)}
        variants = [v + (place[(v[1].head.predicate, v[1].head.negated)],) for v in variants]
        keep = self._keep
        undo = (ev.derived, list(ev.rule_counts), ev.iterations)
        try:
            if ev.limits.max_derived is None and all(v[6] is not None for v in variants):
                return self._loop(order, variants)(delta, old_end, iteration)
            while True:
                if deadline.expired():
                    ev._hit(LimitHit.TIMEOUT)
                    return "stop", iteration
                if max_depth is not None and iteration >= max_depth:
                    ev._hit(LimitHit.MAX_DEPTH)
                    return "stop", iteration
                outs = [[] for _ in order]
                try:
                    for ri, rule, k, rk_k, rec, kp, fn, at in variants:
                        lo_k, hi_k = delta[rk_k]
                        if lo_k >= hi_k:
                            continue
                        if fn is None:  # the join order may change with the relations' sizes
                            ranges = {}
                            for j, rk in rec:
                                lo, hi = delta[rk]
                                ranges[j] = (lo, hi) if j == k else ((0, hi) if j < k else (0, old_end[rk]))
                            fn = self._compiled(ri, rule, k, kp, ranges, rec)
                        fn(delta, old_end, outs[at])
                except _Over:
                    return "back", iteration
                iteration += 1
                ev.iterations += 1
                grew = 0
                for rk, st, cands in zip(order, stores, outs):
                    m = st.mirror
                    before = m.n
                    if cands:
                        keep(st, cands)
                    old_end[rk] = before
                    delta[rk] = (before, m.n)
                    grew += m.n - before
                    if ev.truncated:
                        return "stop", iteration
                if not grew:
                    return "done", iteration
                if grew > _rowwise.THRESHOLD or ev.derived - undo[0] >= FLUSH_ROWS:
                    return "more", iteration
        except BaseException:  # MemoryError and the like: the run stops; store nothing of this loop
            self._discard(undo)
            raise

    def _loop(self, order, variants):
        """The iteration loop itself as generated code, for the usual case (no ``max_derived``,
        every variant's plan fixed): :meth:`run`'s loop with the variants inlined,
        each relation's row ranges in locals, and each candidate stored where it is made (the dedup
        set first-come in variant order: the store step's order) instead of collected and stored
        after the iteration; an iteration handed back (:class:`_Over`) takes its rows out again."""
        key = tuple(id(v[6]) for v in variants)
        got = self._code.get("loop")
        if got is not None and got[0] == key:
            return got[1]
        ev = self.ev
        timed = ev.deadline.remaining() is not None
        ns = {"EXPIRED": ev.deadline.expired, "MAXD": ev.limits.max_depth, "_Over": _Over,
              "HIT": ev._hit, "TIMEOUT": LimitHit.TIMEOUT, "MAX_DEPTH": LimitHit.MAX_DEPTH,
              "THRESHOLD": _rowwise.THRESHOLD, "FLUSH_ROWS": FLUSH_ROWS, "TAKE_BACK": self._take_back,
              "TALLY": self._tally, "ORDER": order, "SZ": self.sizes}
        place = {rk: p for p, rk in enumerate(order)}
        writers = [{v[0] for v in variants if v[7] == p} for p in range(len(order))]
        # a relation one rule writes: its rows' rule numbers are filled in when the loop returns
        ns["FILL"] = fill = tuple(next(iter(w)) if len(w) == 1 else None for w in writers)
        self.head_values = {}
        lines = ["def loop(delta, old_end, iteration):", "    start, derived = iteration, 0"]
        for p, rk in enumerate(order):
            ns[f"LR{p}"] = rk
            lines.append(f"    lo_{p}, hi_{p} = delta[LR{p}]")
            lines.append(f"    oe_{p} = old_end[LR{p}]")
        lines.append("    n0 = (" + "".join(f"hi_{p}, " for p in range(len(order))) + ")")
        lines += ["    try:", "      while True:"]
        if timed:  # the clock every 32 iterations (a few microseconds each: far inside 10% of any deadline)
            lines += ["        if not (iteration - start) & 31 and EXPIRED():", "            HIT(TIMEOUT)",
                      "            return 'stop', iteration"]
        if ev.limits.max_depth is not None:
            lines += ["        if iteration >= MAXD:", "            HIT(MAX_DEPTH)", "            return 'stop', iteration"]
        lines += ["        try:", "            pass"]
        pad = "            "
        for ri, _, _, rk_k, _, _, fn, at in variants:
            ns.update(fn.ns)  # the variant's names are unique per variant (VariantCompiler's tag)
            k = place[rk_k]
            lines.append(f"            if lo_{k} < hi_{k}:")
            if fn.counted:
                lines.append(pad + "    W = 0")
            for label, rk, which in fn.ranges:
                if rk is None:
                    lines.append(pad + f"    lo{label}, hi{label} = 0, {which}.n")
                else:
                    j = place[rk]
                    rng = {"delta": f"lo_{j}, hi_{j}", "upto": f"0, hi_{j}", "old": f"0, oe_{j}"}[which]
                    lines.append(pad + f"    lo{label}, hi{label} = {rng}")
            at_line, depth, head, dep, proof = fn.emit
            for i, ln in enumerate(fn.body):
                if i != at_line:
                    lines.append(pad + ln)
                    continue
                ind = pad + "    " * depth
                st = self.stores[order[at]]
                ns[f"LS{at}"], ns[f"LDEP{at}"], ns[f"LRUL{at}"] = st.seen, st.mirror.depth, st.rules
                if st.scalar:
                    key = head[0]
                else:
                    key = "key"
                    lines.append(ind + "key = (" + "".join(h + ", " for h in head) + ")")
                lines.append(ind + f"if {key} not in LS{at}:")
                lines.append(ind + f"    LS{at}.add({key})")
                for c, h in enumerate(head):
                    ns[f"LC{at}_{c}"] = st.mirror.cols[c]
                    lines.append(ind + f"    LC{at}_{c}.append({h})")
                lines.append(ind + f"    LDEP{at}.append({dep})")
                if fill[at] is None:
                    lines.append(ind + f"    LRUL{at}.append({ri})")
                if proof is not None:  # _record's columns, numbered per rule in candidate order
                    prem, vals, names, prod, plen = proof
                    chunk = self._chunk(ri, names, len(prem))
                    if fill[at] is not None:  # values that are head columns: read from the rows at the hand-over
                        self.head_values[ri] = (order[at], {n: head.index(v) for n, v in zip(names, vals) if v in head})
                    ns[f"PS{at}"], ns[f"LPROD{at}"], ns[f"LPLEN{at}"] = st.proofs, st.mirror.prod, st.mirror.plen
                    ns[f"WT{ri}"] = ev.program.rules[ri].weight
                    if fill[at] is None:  # (a one-rule relation's proofs are numbered on return)
                        lines.append(ind + f"    PS{at}.append(SZ[{ri}])")
                        lines.append(ind + f"    SZ[{ri}] += 1")
                    for label, r in enumerate(prem):
                        ns[f"CH{ri}_{label}"] = chunk[f"#p{label}"]
                        lines.append(ind + f"    CH{ri}_{label}.append({r})")
                    from_head = self.head_values.get(ri, (None, {}))[1]
                    for j, (name, v) in enumerate(zip(names, vals)):
                        if name not in from_head:
                            ns[f"CV{ri}_{j}"] = chunk[name]
                            lines.append(ind + f"    CV{ri}_{j}.append({v})")
                    weight = ev.program.rules[ri].weight  # (x * 1.0 is x: scores are floats)
                    if not self.unit_scores:
                        lines.append(ind + f"    LPROD{at}.append({prod}{'' if weight == 1.0 else f' * WT{ri}'})")
                    if not self.plen_is_depth:
                        lines.append(ind + f"    LPLEN{at}.append({plen} + 1)")
        lines += ["        except _Over:", "            TAKE_BACK(ORDER, FILL)", "            return 'back', iteration",
                  "        iteration += 1", "        grew = 0"]
        for p, rk in enumerate(order):
            st = self.stores[rk]
            ns[f"LM{p}"], ns[f"LST{p}"], ns[f"LDEP{p}"] = st.mirror, st, st.mirror.depth
            lines += [f"        n = len(LDEP{p})",
                      f"        if n > hi_{p}:",
                      f"            LM{p}.n = n"]
            if st.indexes:  # (the variants are compiled: no index is made after this)
                lines.append(f"            LST{p}.grew(hi_{p}, n)")
            lines += [f"            grew += n - hi_{p}",
                      f"        oe_{p} = lo_{p} = hi_{p}",
                      f"        hi_{p} = n"]
        lines += ["        if not grew:", "            return 'done', iteration",
                  "        if grew > THRESHOLD:", "            return 'more', iteration"]
        if timed:  # hand the rows over now and then: storing them all at a deadline would overrun it
            lines += ["        derived += grew", "        if derived >= FLUSH_ROWS:", "            return 'more', iteration"]
        lines += ["    finally:"]
        for p in range(len(order)):
            lines += [f"        delta[LR{p}] = (lo_{p}, hi_{p})", f"        old_end[LR{p}] = oe_{p}"]
        lines += ["        TALLY(ORDER, n0, iteration - start, FILL)"]
        exec(_compile("\n".join(lines) + "\n", "<fused loop>"), ns)  # noqa: S102 - our generated loop
        self._code["loop"] = (key, ns["loop"])
        return ns["loop"]

    def _take_back(self, order, fill) -> None:
        """Take the rows an iteration stored before it was handed back (:class:`_Over`) out again:
        every relation back to its size at the iteration's start (its mirror's ``n``), with their
        proof rows (a rule's newest: each rule writes one relation) and proof numbers."""
        for rk, one in zip(order, fill):
            st = self.stores[rk]
            m = st.mirror
            n = m.n
            if len(m.depth) > n:
                if st.scalar:
                    st.seen.difference_update(m.cols[0][n:])
                elif self.ev.relation(rk).arity:
                    st.seen.difference_update(zip(*[c[n:] for c in m.cols]))
                elif not n:
                    st.seen.clear()
                if self.ev.record and one is not None:  # numbered on return: the chunk's last rows
                    for col in self.chunks[one].values():
                        del col[len(col) - (len(m.depth) - n):]
                elif self.ev.record:
                    first: dict[int, int] = {}
                    for ri, num in zip(st.rules[n - st.start:], st.proofs[n - st.start:]):
                        first.setdefault(ri, num)
                    for ri, num in first.items():
                        self.sizes[ri] = num
                        for col in self.chunks[ri].values():
                            del col[num - self.ev.proof_sizes.get(ri, 0):]
                    del st.proofs[n - st.start:]
                    del m.prod[n:]
                    del m.plen[n:]
                for c in m.cols:
                    del c[n:]
                del m.depth[n:]
                del st.rules[n - st.start:]

    def _tally(self, order, n0, iterations: int, fill) -> None:
        """The statistics of a generated loop's run: iterations, rows derived, rows per rule (and
        the rule numbers of the rows of a relation one rule writes, ``fill``)."""
        ev = self.ev
        ev.iterations += iterations
        counts = ev.rule_counts
        for rk, lo, ri in zip(order, n0, fill):
            st = self.stores[rk]
            hi = st.mirror.n
            if hi > lo:
                ev.derived += hi - lo
                if ri is not None:
                    del st.rules[lo - st.start:]  # (rows an exception left half stored)
                    st.rules.extend([ri] * (hi - lo))
                    counts[ri] += hi - lo
                    if ev.record:  # one rule's rows: its next proof numbers, in order
                        num = self.sizes[ri]
                        st.runs.append((num, hi - lo))
                        self.sizes[ri] = num + hi - lo
                    continue
                for r, c in Counter(st.rules[lo - st.start:hi - st.start]).items():
                    counts[r] += c

    def _discard(self, undo) -> None:
        """Forget the rows added since the last flush (their lists may be half written)."""
        ev = self.ev
        ev.derived, ev.rule_counts[:], ev.iterations = undo
        for st in self.stores.values():
            m, n = st.mirror, st.start
            for lst in m.cols + [m.depth, m.prod, m.plen, m.vf, m.vt]:
                if lst is not None:
                    del lst[n:]
            m.n, st.rules, st.proofs, st.runs = n, [], [], []
        self.chunks = {}
        self.stores = {}  # dedup sets and indexes may hold the forgotten rows: rebuilt if run again
        self._code = {}  # compiled code reads the old stores

    def _keep(self, st: _Store, cands: list) -> None:
        """Store one relation's candidates of an iteration: the first of equal keys, cut at max_derived."""
        ev = self.ev
        seen = st.seen
        one = st.scalar  # the set holds key[0]
        if len(cands) == 1 and not ev.record and ev.limits.max_derived is None:  # the usual step
            key, depth, ri, _ = cands[0]
            k = key[0] if one else key
            if k in seen:
                return
            seen.add(k)
            m = st.mirror
            for col, v in zip(m.cols, key):
                col.append(v)
            m.depth.append(depth)
            st.rules.append(ri)
            ev.rule_counts[ri] += 1
            m.n += 1
            ev.derived += 1
            if st.indexes:
                st.grew(m.n - 1, m.n)
            return
        else:
            kept = []
            for c in cands:
                key = c[0][0] if one else c[0]
                if key not in seen:
                    seen.add(key)
                    kept.append(c)
        if not kept:
            return
        if ev.limits.max_derived is not None:
            room = max(ev.limits.max_derived - ev.derived, 0)
            if len(kept) > room:
                for c in kept[room:]:
                    seen.discard(c[0][0] if one else c[0])
                del kept[room:]
                ev._hit(LimitHit.MAX_DERIVED)
                if not kept:
                    return
        m = st.mirror
        lo = m.n
        n = len(kept)
        if len(m.cols) == 1:
            m.cols[0].extend([c[0][0] for c in kept])
        else:
            for p, col in enumerate(m.cols):
                col.extend([c[0][p] for c in kept])
        m.depth.extend([c[1] for c in kept])
        st.rules.extend([c[2] for c in kept])
        counts = ev.rule_counts
        for c in kept:
            counts[c[2]] += 1
        if ev.record:
            self._record(st, kept)
        m.n = lo + n
        ev.derived += n
        if st.indexes:
            st.grew(lo, m.n)

    def _record(self, st: _Store, kept: list) -> None:
        """Proof table rows of the kept candidates (numbered per rule in candidate order), scores."""
        rules = self.ev.program.rules
        m = st.mirror
        for c in kept:
            ri = c[2]
            prem, vals, prod, plen, names = c[3]
            chunk = self._chunk(ri, names, len(prem))
            for name, v in zip(names, vals):
                chunk[name].append(v)
            for label, r in enumerate(prem):
                chunk[f"#p{label}"].append(r)
            num = self.sizes.get(ri, 0)
            self.sizes[ri] = num + 1
            st.proofs.append(num)
            if not self.unit_scores:
                m.prod.append(prod * rules[ri].weight)
            if not self.plen_is_depth:
                m.plen.append(plen + 1)

    def _chunk(self, ri: int, names, n_prem: int) -> dict:
        """Rule ``ri``'s proof table columns (lists) added since the last flush: its proof values by
        name and a premise row per positive atom (``#p<label>``)."""
        chunk = self.chunks.get(ri)
        if chunk is None:
            # int64 arrays, not lists: a step's premise row and values are stored, not kept as int
            # objects, and the hand-over copies memory instead of converting each value
            chunk = self.chunks[ri] = {name: array("q") for name in names}
            chunk.update({f"#p{label}": array("q") for label in range(n_prem)})
        return chunk

    def flush(self, final: bool = False) -> None:
        """Hand the rows added since the last flush to the relations (columns, dedup keys, proofs).
        ``final``: the stratum is over (its fixpoint or a budget), so no row will be claimed against
        these relations again — their dedup keys are marked stale instead of written (rebuilt from
        the rows if anything ever claims, :meth:`~.evaluator.Evaluation.rekey_stale`)."""
        ev = self.ev
        ev._ensure_bits()  # the loop minted integers: key widths may have to grow first
        new_cols = {}
        for rk, st in self.stores.items():
            m, start = st.mirror, st.start
            if st.seen is None or m.n == start:
                continue
            rel = st.rel
            if rk in ev.stale_keys:
                ev.rekey_stale(rk, rel)
            n = m.n - start
            cols = new_cols[rk] = [_int64(c, start, n) for c in m.cols]
            vf, vt = np.broadcast_to(np.int64(MIN_T), n), np.broadcast_to(np.int64(MAX_T), n)
            if final:
                ev.stale_keys.add(rk)
            else:
                rel.claim_new(ev._key_cols(cols, vf, vt), ev.key_widths(rel.arity))
            rules = st.rules
            rules = (np.full(n, rules[0], np.int64) if rules.count(rules[0]) == n  # one rule wrote them all
                     else np.array(rules, dtype=np.int64))
            depth = _int64(m.depth, start, n)
            meta = {"valid_from": vf, "valid_to": vt, "depth": depth, "rule": rules}
            if ev.record:
                if self.unit_scores:  # (the mirror too: later runs read its rows' scores by position)
                    meta["prod"] = np.ones(n)
                    m.prod.extend([1.0] * n)
                else:
                    meta["prod"] = np.fromiter(m.prod[start:], np.float64, n)
                if self.plen_is_depth:  # (the mirror too, as the scores)
                    meta["plen"] = depth
                    m.plen.extend(m.depth[start:])
                else:
                    meta["plen"] = _int64(m.plen, start, n)
                runs = st.runs  # a one-rule relation's numbers as ranges; the others' one by one
                meta["proof"] = (np.arange(runs[0][0], runs[0][0] + runs[0][1]) if len(runs) == 1 and not st.proofs
                                 else np.concatenate([np.arange(a, a + k) for a, k in runs]) if runs
                                 else _int64(st.proofs, 0, len(st.proofs)))
            rel.append(cols, **meta)
            st.start = m.n
            st.rules.clear()  # in place: compiled loops append to these lists
            st.proofs.clear()
            st.runs.clear()
        for ri, chunk in self.chunks.items():
            rk, from_head = self.head_values.get(ri, (None, {}))
            kept = {k: v for k, v in chunk.items() if k not in from_head}
            n = len(next(iter(kept.values()))) if kept else len(new_cols.get(rk, [()])[0]) if from_head else 0
            if n:  # (a compiled loop's chunk may have stayed empty)
                # as arrays now: ends of closures (a deadline's too) concatenate arrays, not lists
                table = {k: np.frombuffer(v, np.int64, n).copy() for k, v in kept.items()}
                for k, c in from_head.items():
                    table[k] = new_cols[rk][c]  # (the relation copied its rows: this array is the table's)
                ev.proof_tables.setdefault(ri, []).append({k: table[k] for k in chunk})
                ev.proof_sizes[ri] = self.sizes[ri]
                for v in chunk.values():
                    del v[:]  # in place: compiled loops append to these arrays

    # -- compiling a variant -------------------------------------------------------------------------
    def _variants(self, delta, old_end) -> list[tuple]:
        """Per rule and atom over the stratum: the variant, compiled once when its plan cannot change
        (fewer than two atoms to order by size: :meth:`~.body.BodySolver._plan` ignores sizes then)."""
        out = []
        for ri, rule, rec, keep in self.shapes:
            n_atoms = len(positive_atoms(rule.body))
            for k, rk_k in rec:
                fixed = None
                if not (self.ev.cardinality and n_atoms - 1 >= 2):
                    ranges = {}
                    for j, rk in rec:
                        lo, hi = delta[rk]
                        ranges[j] = (lo, hi) if j == k else ((0, hi) if j < k else (0, old_end[rk]))
                    fixed = self._compiled(ri, rule, k, keep, ranges, rec)
                out.append((ri, rule, k, rk_k, rec, keep, fixed))
        return out

    def _compiled(self, ri, rule, k, keep, ranges, rec):
        plan = self.ev._plan(rule.body, k, keep, ranges)
        got = self._code.get(id(plan))
        if got is not None and got[0] is plan:
            return got[1]
        fn = VariantCompiler(self, ri, rule, plan, k, rec, f"_{len(self._code)}").build()
        self._code[id(plan)] = (plan, fn)
        return fn


def _int64(values: list, start: int, n: int) -> np.ndarray:
    """``values[start:start + n]`` as int64 (np.fromiter: a little faster than np.array on a list)."""
    return np.fromiter(values if start == 0 and len(values) == n else values[start:start + n], np.int64, n)


__all__ = ["FUSED", "MAX_BINDINGS", "FusedLoop", "eligible"]
