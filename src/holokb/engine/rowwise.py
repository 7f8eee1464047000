"""Row-at-a-time semi-naive iterations for tiny deltas (physical layer, plain Python).

A long linear recursion (a counter ``b(x+1) :- b(x), x < N``) derives a row or two per iteration;
the vector path then pays some forty numpy calls per iteration whatever the row count.  When a
stratum's delta is at most :data:`THRESHOLD` rows, :class:`RowIteration` solves the same plans
(:meth:`~.body.BodySolver._plan`) over lists of Python bindings and appends the new rows itself:
hash indexes (dicts over a relation's columns, kept up to date as rows arrive), scalar comparisons
and arithmetic with the vector builtins' exact semantics, validity intersected by joins and cut by
``not``, covered rows dropped, premises, bindings, limits and statistics as the vector path records
them.  The row order is the vector path's (bindings in order, matching rows ascending; the first of
equal rows kept), so the relations, proofs and statistics are the same.

Anything it does not handle (an aggregate step) or a body whose bindings grow past
:data:`MAX_BINDINGS` makes it give up before anything is stored (:class:`Fallback`); the iteration
then runs on the vector path.  Terms it minted on the way stay interned, which no result shows.
"""
from __future__ import annotations

import operator
from bisect import bisect_left

import numpy as np

from ..analysis.program import BinOp, Call, Const, Var
from ..core.functions import apply_call, apply_op
from ..core.limits import LimitHit
from . import builtins as _builtins
from . import joins as _joins
from .dictionary import KIND_BOOL, KIND_NUMBER
from .joins import const_id, int_const
from .relation import Relation, fits
from .temporal import MAX_T, MIN_T, coalesce

#: Switch: iterations with small deltas run row at a time (off: always the vector path).
ROWWISE = True
#: Delta rows (summed over the stratum's relations) up to which an iteration runs row at a time.
THRESHOLD = 16
#: Bindings one body may hold at any step before the iteration goes back to the vector path.
MAX_BINDINGS = 256
#: Relations up to this many rows are probed through a dict index (built on first use and kept
#: growing); larger ones through their sorted index, as the vector path does.
DICT_INDEX_MAX = 1 << 16

_ORDERED = frozenset(int(k) for k in np.flatnonzero(_builtins._ORDERED))
_SMALL = 2**31  # as builtins._integer_op: + - * of operands below this stay exact in int64
_INT_FAST = 2**62  # the dictionary keeps integers below this exactly (``isint``)


class Fallback(Exception):
    """The iteration is not for this path (too many bindings, an aggregate): run it vectorised."""


class _Row:
    """One binding: variable ids, validity, depth, premise rows by atom label, score factors."""

    __slots__ = ("vars", "vf", "vt", "depth", "prem", "prod", "plen")

    def __init__(self, vars_, vf, vt, depth, prem, prod, plen):
        self.vars, self.vf, self.vt, self.depth, self.prem, self.prod, self.plen = vars_, vf, vt, depth, prem, prod, plen


class _Mirror:
    """A small relation's columns as Python lists (ids, validity, depth, score factors), caught up
    from the arrays when the vector path appended and extended directly by :meth:`RowIteration.append`."""

    __slots__ = ("cols", "vf", "vt", "depth", "prod", "plen", "n")

    def __init__(self, rel: Relation):
        self.cols = [[] for _ in range(rel.arity)]
        self.vf, self.vt, self.depth = [], [], []
        self.prod, self.plen = ([], []) if rel.has_meta("prod") else (None, None)
        self.n = 0

    def sync(self, rel: Relation) -> "_Mirror":
        n, m = self.n, rel.size
        if m > n:
            for c, lst in enumerate(self.cols):
                lst.extend(rel.col(c)[n:m].tolist())
            for name, lst in (("valid_from", self.vf), ("valid_to", self.vt), ("depth", self.depth),
                              ("prod", self.prod), ("plen", self.plen)):
                if lst is not None:
                    lst.extend(rel.meta(name)[n:m].tolist())
            self.n = m
        return self


class _DictIndex:
    """Rows of a relation by the ids in some columns: key tuple -> ascending row numbers."""

    __slots__ = ("cols", "n", "rows")

    def __init__(self, cols: tuple[int, ...]):
        self.cols, self.n, self.rows = cols, 0, {}

    def sync(self, mirror: _Mirror) -> dict:
        if mirror.n > self.n:
            rows = self.rows
            new = zip(*[mirror.cols[c][self.n:mirror.n] for c in self.cols])
            for r, key in enumerate(new, self.n):
                hit = rows.get(key)
                if hit is None:
                    rows[key] = [r]
                else:
                    hit.append(r)
            self.n = mirror.n
        return self.rows


class RowIteration:
    """Solves bodies and appends rows for one :class:`~.evaluator.Evaluation`, row at a time."""

    def __init__(self, ev):
        self.ev = ev
        self.terms = ev.terms
        self._indexes: dict[tuple, tuple[Relation, _DictIndex]] = {}
        self._mirrors: dict[int, tuple[Relation, _Mirror | None]] = {}
        self._endpoints = ev.endpoints.tolist()
        self._shapes: dict[tuple, tuple] = {}
        self._dead: dict[int, tuple] = {}  # per plan: the names each step's projection drops
        self._ints: dict[int, int] = {}
        self._mint_int = ev.terms.lazy_int_minter(self._ints)  # v -> id (the Literal built when read)
        self._bound = -1  # the dictionary's id bound when key widths were last checked  # id -> value of ids known to be exact integers (isint)

    # -- reading relations -----------------------------------------------------------------
    def _mirror(self, rel: Relation) -> _Mirror | None:
        """The relation's Python mirror, up to date; None for a relation too large to mirror."""
        got = self._mirrors.get(id(rel))
        if got is None or got[0] is not rel:
            got = self._mirrors[id(rel)] = (rel, _Mirror(rel) if rel.size <= DICT_INDEX_MAX else None)
        mirror = got[1]
        if mirror is None:
            return None
        if rel.size > DICT_INDEX_MAX and rel.size - mirror.n > DICT_INDEX_MAX // 4:
            # the vector path grew it large since: read it as a large relation from now on
            self._mirrors[id(rel)] = (rel, None)
            return None
        return mirror.sync(rel)

    def _match(self, rel: Relation, cols: list[int], keys: list[tuple], lo: int, hi: int,
               cap: int | None, full_range: bool = False, mirror: "_Mirror | None | bool" = False) -> list[list[int]]:
        """Per probe key (ids of ``cols``), the rows in [lo, hi) that match, ascending — with the
        vector path's budget check (:func:`.joins._match`: the pairs its index probe would make)."""
        n = len(keys)
        if hi <= lo or n == 0:
            return [[] for _ in keys]
        if not cols:
            _joins._check(n * (hi - lo), cap)
            return [list(range(lo, hi)) for _ in keys]
        if mirror is False:
            mirror = self._mirror(rel)
        if n == 1 and 2 * (hi - lo) <= rel.size and not full_range:
            if mirror is not None and hi - lo <= 64:
                want = list(zip([mirror.cols[c] for c in cols], keys[0]))
                return [[r for r in range(lo, hi) if all(col[r] == v for col, v in want)]]
            hit = np.ones(hi - lo, dtype=bool)
            for c, v in zip(cols, keys[0]):
                hit &= rel.col(c)[lo:hi] == v
            return [(np.flatnonzero(hit) + lo).tolist()]
        k = fits(len(cols), self.ev.bits)
        if mirror is None:
            return self._match_sorted(rel, cols, keys, lo, hi, cap)
        lead = tuple(cols[:k])
        got = self._indexes.get((id(rel), lead))
        if got is None or got[0] is not rel:
            got = self._indexes[(id(rel), lead)] = (rel, _DictIndex(lead))
        index = got[1].sync(mirror)
        found = [index.get(key[:k], ()) for key in keys]
        _joins._check(sum(len(f) for f in found), cap)
        rest = [(mirror.cols[c], j) for j, c in enumerate(cols) if j >= k]
        out = []
        for key, rows in zip(keys, found):
            sel = [r for r in rows if lo <= r < hi]
            for col, j in rest:
                sel = [r for r in sel if col[r] == key[j]]
            out.append(sel)
        return out

    def _match_sorted(self, rel, cols, keys, lo, hi, cap) -> list[list[int]]:
        vals = [np.array([key[j] for key in keys], dtype=np.int64) for j in range(len(cols))]

        class _N:
            n = len(keys)

        pos, rows = _joins._match(rel, cols, vals, _N, lo, hi, self.ev.bits, cap)
        out: list[list[int]] = [[] for _ in keys]
        for p, r in zip(pos.tolist(), rows.tolist()):
            out[p].append(r)
        return out

    # -- solving a body ------------------------------------------------------------------------
    def solve(self, body, ranges: dict, first: int | None, keep: frozenset[str]) -> list[_Row]:
        """:meth:`~.body.BodySolver.solve` over Python bindings (same plan, same rows in the same order)."""
        ev = self.ev
        record = ev.record
        rows = [_Row({}, MIN_T, MAX_T, 0, {} if record else None, 1.0 if record else None, 0 if record else None)]
        plan = ev._plan(body, first, keep, ranges)
        steps, live = plan
        dead_at = self._dead.get(id(plan))
        if dead_at is None or dead_at[0] is not plan:
            dead_at = self._dead[id(plan)] = (plan, {})
        dead_at = dead_at[1]
        for i, step in enumerate(steps):
            if not rows:
                break
            kind, item = step.kind, step.item
            if kind == "atom":
                rel = ev.relation((item.predicate, item.negated), item.arity)
                lo, hi = ranges.get(step.label, (0, rel.size))
                if i == 0:
                    rows = self._join_unit(rows[0], item, step.label, rel, lo, hi)
                else:
                    rows = self._join(rows, item, step.label, rel, lo, hi)
            elif kind == "neg":
                a = item.atom
                rows = self._anti_join(rows, a, ev.relations.get((a.predicate, a.negated)))
            elif kind == "cmp":
                rows = [r for r in rows if self._compare(item.op, item.left, item.right, r.vars)]
            elif kind == "assign":
                name = item.target.name
                out = []
                for r in rows:
                    val = self._eval(item.expr, r.vars)
                    if name in r.vars:
                        if val == r.vars[name]:
                            out.append(r)
                    elif val >= 0:
                        r.vars[name] = val
                        out.append(r)
                rows = out
            elif kind == "key":
                if ev.key_steps:
                    rows = self._key(rows, item, steps[i + 1:])
            else:  # an aggregate: not handled here
                raise Fallback
            if len(rows) > MAX_BINDINGS:
                raise Fallback
            if kind != "atom" and kind != "neg" and self.terms.id_bound != self._bound:
                self._bound = self.terms.id_bound  # terms were minted: key widths may have to grow
                ev.on_step()
            if live is not None and rows:
                dead = dead_at.get(i)
                if dead is None:  # every row binds the same names, and every run of the plan does
                    dead = dead_at[i] = [k for k in rows[0].vars if k not in live[i]]
                if dead:
                    for r in rows:
                        for k in dead:
                            del r.vars[k]
                    if not record and i + 1 < len(steps) and len(rows) > 1:
                        rows = _distinct(rows)
        return rows

    def _join(self, rows: list[_Row], atom, label: int, rel: Relation, lo: int, hi: int) -> list[_Row]:
        ev = self.ev
        names = tuple(rows[0].vars)  # every row binds the same names
        shape = self._shapes.get((id(atom), names))
        if shape is None or shape[0] is not atom:
            shape = self._atom_shape(atom, names)
            if shape is None:  # a constant no fact mentions (yet): nothing matches
                return []
        _, cols, consts, fresh, repeats = shape
        keys = [tuple(v if isinstance(v, int) else r.vars[v] for v in consts) for r in rows]
        mirror = self._mirror(rel)
        matched = self._match(rel, cols, keys, lo, hi, ev.cap, mirror=mirror)
        if sum(map(len, matched)) > MAX_BINDINGS and (not repeats and ev.timeless or
                                                      sum(map(len, matched)) > 8 * MAX_BINDINGS):
            # past the cap before a binding is built (timeless, no repeated variable: every match is
            # one; otherwise far past it): the vector path takes the iteration, as it would after
            raise Fallback
        scored = rel.has_meta("prod") and rows[0].prod is not None
        if mirror is not None:
            at = None
            fcols = {name: mirror.cols[p] for name, p in fresh.items()}
            rep = [(mirror.cols[p], mirror.cols[q]) for p, q in repeats]
            rvf, rvt, rdepth, rprod, rplen = mirror.vf, mirror.vt, mirror.depth, mirror.prod, mirror.plen
        else:  # a large relation: read the matched rows' columns once (one gather per column)
            need = [r for m in matched for r in m]
            if not need:
                return []
            at = {r: j for j, r in enumerate(dict.fromkeys(need))}
            idx = np.fromiter(at, dtype=np.int64, count=len(at))
            fcols = {name: rel.col(p)[idx].tolist() for name, p in fresh.items()}
            rep = [(rel.col(p)[idx].tolist(), rel.col(q)[idx].tolist()) for p, q in repeats]
            rvf, rvt = rel.meta("valid_from")[idx].tolist(), rel.meta("valid_to")[idx].tolist()
            rdepth = rel.meta("depth")[idx].tolist()
            if scored:
                rprod, rplen = rel.meta("prod")[idx].tolist(), rel.meta("plen")[idx].tolist()
        out = []
        for b, m in zip(rows, matched):
            for r in m:
                j = r if at is None else at[r]
                if any(a[j] != c[j] for a, c in rep):
                    continue
                vf, vt = max(b.vf, rvf[j]), min(b.vt, rvt[j])
                if vf >= vt:
                    continue
                v = dict(b.vars)
                for name, col in fcols.items():
                    v[name] = col[j]
                prem = None
                if b.prem is not None:
                    prem = dict(b.prem)
                    prem[label] = r
                prod, plen = b.prod, b.plen
                if scored:
                    prod, plen = prod * rprod[j], plen + rplen[j]
                out.append(_Row(v, vf, vt, max(b.depth, rdepth[j]), prem, prod, plen))
        return out

    def _join_unit(self, b: _Row, atom, label: int, rel: Relation, lo: int, hi: int) -> list[_Row]:
        """:meth:`_join` of the single empty binding (a plan's first step): the rows [lo, hi) of a
        mirrored relation read directly when the atom is plain (distinct variables only)."""
        mirror = self._mirror(rel)
        shape = self._shapes.get((id(atom), ()))
        if shape is None or shape[0] is not atom:
            shape = self._atom_shape(atom, ())
        if mirror is None or shape is None or shape[1] or shape[4] or hi - lo > MAX_BINDINGS:
            return self._join([b], atom, label, rel, lo, hi)
        _joins._check(hi - lo, self.ev.cap)
        fresh = [(name, mirror.cols[p]) for name, p in shape[3].items()]
        rvf, rvt, rdepth = mirror.vf, mirror.vt, mirror.depth
        scored = b.prod is not None and mirror.prod is not None
        out = []
        for r in range(lo, hi):
            vf, vt = max(b.vf, rvf[r]), min(b.vt, rvt[r])
            if vf >= vt:
                continue
            prem = None if b.prem is None else {label: r}
            prod, plen = (b.prod * mirror.prod[r], b.plen + mirror.plen[r]) if scored else (b.prod, b.plen)
            out.append(_Row({name: col[r] for name, col in fresh}, vf, vt, max(b.depth, rdepth[r]), prem, prod, plen))
        return out

    def _atom_shape(self, atom, names: tuple[str, ...]):
        """How ``atom`` joins bindings of ``names``: its probed positions with the constant id or the
        variable name probed there, its fresh variables' positions, its repeated fresh variables —
        remembered once every constant has an id (ids never change; an unknown one may appear)."""
        cols, consts, fresh, repeats = [], [], {}, []
        for p, t in enumerate(atom.args):
            if isinstance(t, Const):
                i = const_id(t.term, self.terms)
                if i < 0:
                    return None
                cols.append(p)
                consts.append(i)
            elif t.name in names:
                cols.append(p)
                consts.append(t.name)
            elif t.name in fresh:
                repeats.append((fresh[t.name], p))
            else:
                fresh[t.name] = p
        shape = self._shapes[(id(atom), names)] = (atom, cols, consts, fresh, repeats)
        return shape

    def _anti_join(self, rows: list[_Row], atom, rel: Relation | None) -> list[_Row]:
        """``not atom``: of each binding's interval, the pieces where no matching row holds."""
        if rel is None or rel.size == 0:
            return rows
        bound = tuple(rows[0].vars)
        shape = self._shapes.get((id(atom), bound))
        if shape is None or shape[0] is not atom:
            shape = self._atom_shape(atom, bound)
            if shape is None:  # a constant no fact mentions: nothing to subtract
                return rows
        cols, names = shape[1], shape[2]
        mirror = self._mirror(rel)
        vfs, vts = (mirror.vf, mirror.vt) if mirror is not None else (rel.meta("valid_from"), rel.meta("valid_to"))
        if not cols:
            _, f, t = coalesce(np.zeros(rel.size, np.int64), rel.meta("valid_from"), rel.meta("valid_to"))
            spans = list(zip(f.tolist(), t.tolist()))
            per = [spans] * len(rows)
        else:
            keys = [tuple(n if isinstance(n, int) else r.vars[n] for n in names) for r in rows]
            matched = self._match(rel, cols, keys, 0, rel.size, self.ev.cap, full_range=True)
            per = [[(int(vfs[x]), int(vts[x])) for x in m] for m in matched]
        out = []
        for b, spans in zip(rows, per):
            hits = sorted((max(s, b.vf), min(e, b.vt)) for s, e in spans if max(s, b.vf) < min(e, b.vt))
            if not hits:
                out.append(b)
                continue
            cur = b.vf
            for s, e in hits:
                if s > cur:
                    out.append(_piece(b, cur, s))
                cur = max(cur, e)
            if cur < b.vt:
                out.append(_piece(b, cur, b.vt))
        return out

    def _key(self, rows: list[_Row], item, rest) -> list[_Row]:
        """:meth:`~.body.BodySolver._key`: bind only where value equality is id equality."""
        ev = self.ev
        name = item.target.name
        vals = [self._eval(item.expr, r.vars) for r in rows]
        kind, _, _ = self.terms.values()
        isint, _ = self.terms.integers()
        for v in vals:
            if v >= 0 and not (isint[v] or int(kind[v]) not in _ORDERED or kind[v] == KIND_BOOL):
                return rows
        for st in rest:
            if st.kind == "atom":
                for p, t in enumerate(st.item.args):
                    if isinstance(t, Var) and t.name == name and not ev._identity_column(
                            ev.relation((st.item.predicate, st.item.negated), st.item.arity), p):
                        return rows
        out = []
        for r, v in zip(rows, vals):
            if v >= 0:
                r.vars[name] = v
                out.append(r)
        return out

    # -- scalar builtins (the vector ones' semantics, one row) ------------------------------------
    def _int(self, i: int) -> int | None:
        """The value of id ``i`` when it is an exact integer (the dictionary's ``isint``), else None."""
        v = self._ints.get(i)
        if v is None:
            isint, ival = self.terms.integers()
            if isint[i]:
                v = self._ints[i] = int(ival[i])
        return v


    def _compare(self, op: str, left, right, vars_: dict) -> bool:
        if _joins.INT_CONST and op in _joins._FLIP:
            var, c, o = None, None, op
            if isinstance(left, Var) and int_const(right) is not None:
                var, c = vars_[left.name], int_const(right)
            elif isinstance(right, Var) and int_const(left) is not None:
                var, c, o = vars_[right.name], int_const(left), _joins._FLIP[op]
            if var is not None and abs(c) < 2**62:
                x = self._int(var)
                if x is not None:
                    return _cmp(o, x, c)
        a, b = self._eval(left, vars_), self._eval(right, vars_)
        if a < 0 or b < 0:
            return False
        return self.compare_ids(op, a, b)

    def compare_ids(self, op: str, a: int, b: int) -> bool:
        """:func:`.builtins.compare` of two ids."""
        x, y = self._int(a), self._int(b)
        if op in _builtins._INT_CMP and x is not None and y is not None:
            return _cmp(op, x, y)
        kind, num, ms = self.terms.values()
        isint, _ = self.terms.integers()
        ka, kb = int(kind[a]), int(kind[b])
        same = ka == kb and ka in _ORDERED
        is_num = same and ka == KIND_NUMBER and not (isint[a] and isint[b])
        va, vb = (0, 0) if is_num else (int(ms[a]), int(ms[b]))
        fa, fb = (float(num[a]), float(num[b])) if is_num else (0.0, 0.0)
        if is_num and fa == fb and a != b:  # one double for two numbers: the exact values decide
            return _cmp(op, self.terms.term(a).value, self.terms.term(b).value)
        if op in ("=", "!="):
            eq = (va == vb and fa == fb) if same else a == b
            return eq if op == "=" else not eq
        if op == "<":
            r = fa < fb or (fa == fb and va < vb)
        elif op == "<=":
            r = fa < fb or (fa == fb and va <= vb)
        elif op == ">":
            r = fa > fb or (fa == fb and va > vb)
        elif op == ">=":
            r = fa > fb or (fa == fb and va >= vb)
        else:
            raise ValueError(f"unknown comparison {op!r}")
        return same and r

    def _eval(self, e, vars_: dict) -> int:
        """:func:`.joins.eval_expr` for one binding: an id, or -1 where undefined."""
        if isinstance(e, Var):
            return vars_[e.name]
        terms = self.terms
        if isinstance(e, Const):
            return terms.intern_const(e.term)
        if isinstance(e, BinOp):
            if _joins.INT_CONST and e.op in ("+", "-", "*"):
                fast = self._var_op_int(e, vars_)
                if fast is not None:
                    return fast
            a, b = self._eval(e.left, vars_), self._eval(e.right, vars_)
            if a < 0 or b < 0:
                return -1
            fast = self._integer_op(e.op, a, b)
            if fast is not None:
                return fast
            return _intern(terms, apply_op(e.op, terms.term(a), terms.term(b)))
        if isinstance(e, Call):
            args = [self._eval(x, vars_) for x in e.args]
            if any(x < 0 for x in args):
                return -1
            if e.func in ("div", "mod") and len(args) == 2:
                fast = self._integer_op("div" if e.func == "div" else "%", args[0], args[1])
                if fast is not None:
                    return fast
            return _intern(terms, apply_call(e.func, tuple(terms.term(x) for x in args)))
        raise TypeError(f"not an expression: {e!r}")

    def _var_op_int(self, e: BinOp, vars_: dict) -> int | None:
        if isinstance(e.left, Var) and int_const(e.right) is not None:
            i, c, flip = vars_[e.left.name], int_const(e.right), False
        elif isinstance(e.right, Var) and int_const(e.left) is not None:
            i, c, flip = vars_[e.right.name], int_const(e.left), True
        else:
            return None
        x = self._int(i)
        if abs(c) >= _SMALL or x is None or abs(x) >= _SMALL:
            return None
        return self._mint_int(x + c if e.op == "+" else x * c if e.op == "*" else (c - x if flip else x - c))

    def _integer_op(self, op: str, a: int, b: int) -> int | None:
        """:func:`.builtins._integer_op` for one pair of ids."""
        if op not in ("+", "-", "*", "%", "div"):
            return None
        x, y = self._int(a), self._int(b)
        if x is None or y is None or abs(x) >= _SMALL or abs(y) >= _SMALL:
            return None
        if op in ("+", "-", "*"):
            return self._mint_int(x + y if op == "+" else x - y if op == "-" else x * y)
        if y == 0:
            return -1
        if op == "%":
            r = abs(x) % abs(y)
            return self._mint_int(r if x >= 0 else -r)  # C: the remainder has the dividend's sign
        q = abs(x) // abs(y)
        return self._mint_int(q if (x >= 0) == (y >= 0) else -q)  # truncation toward zero

    # -- storing the rows ------------------------------------------------------------------------
    def head_rows(self, ri: int, rule, rows: list[_Row]) -> list[tuple]:
        """:meth:`~.evaluator.Evaluation._collect`: (head ids, binding, depth) per row kept."""
        if rule.depth is not None:
            rows = [r for r in rows if r.depth + 1 <= rule.depth]
        if not rows:
            return []
        head = rule.head
        consts = {p: self.terms.intern(t.term) for p, t in enumerate(head.args) if not isinstance(t, Var)}
        return [(tuple(consts[p] if p in consts else r.vars[t.name] for p, t in enumerate(head.args)), r, r.depth + 1)
                for r in rows]

    def append(self, rk, batches: list[tuple[int, list]]) -> None:
        """:meth:`~.evaluator.Evaluation._append` of rows from :meth:`head_rows`, per rule batch."""
        ev = self.ev
        rel = ev.relation(rk)
        if rk in ev.stale_keys:
            ev.rekey_stale(rk, rel)
        # a candidate: (batch, rule, head ids, binding, depth)
        cands = [(bi, ri, ids, r, depth) for bi, (ri, rows) in enumerate(batches) for ids, r, depth in rows]
        if not cands:
            return
        ep = self._endpoints
        if ev.timeless and rel.arity:  # the interval is always the whole axis: not part of the key
            keys = [c[2] for c in cands]
        else:
            keys = [c[2] + (bisect_left(ep, c[3].vf), bisect_left(ep, c[3].vt)) for c in cands]
        widths = ev.key_widths(rel.arity)
        mask = rel.claim_rows(keys, widths)
        if rel.size:
            self._drop_covered(rel, cands, mask)
        if ev.limits.max_derived is not None:
            room = ev.limits.max_derived - ev.derived
            new = [i for i, m in enumerate(mask) if m]
            if len(new) > room:
                cut = new[max(room, 0):]
                rel.release([np.array([keys[i][c] for i in cut], dtype=np.int64) for c in range(len(keys[0]))],
                            widths)
                for i in cut:
                    mask[i] = False
                ev._hit(LimitHit.MAX_DERIVED)
        kept = [c for c, m in zip(cands, mask) if m]
        if not kept:
            return
        meta = {"valid_from": [c[3].vf for c in kept], "valid_to": [c[3].vt for c in kept],
                "depth": [c[4] for c in kept], "rule": [c[1] for c in kept]}
        if ev.record:
            meta.update(self._record(kept))
        cols = [[c[2][p] for c in kept] for p in range(rel.arity)]
        got = self._mirrors.get(id(rel))
        mirror = got[1] if got is not None and got[0] is rel else None
        if mirror is not None and mirror.n == rel.size:  # keep the mirror current without reading back
            for lst, c in zip(mirror.cols, cols):
                lst.extend(c)
            mirror.vf.extend(meta["valid_from"])
            mirror.vt.extend(meta["valid_to"])
            mirror.depth.extend(meta["depth"])
            if mirror.prod is not None:
                mirror.prod.extend(meta["prod"])
                mirror.plen.extend(meta["plen"])
            mirror.n += len(kept)
        rel.append_rows(cols, meta)
        ev.derived += len(kept)
        for c in kept:
            ev.rule_counts[c[1]] += 1

    def _drop_covered(self, rel: Relation, cands: list, mask: list[bool]) -> None:
        """:meth:`~.evaluator.Evaluation._drop_covered`: unset candidates a stored row covers."""
        part = [i for i, m in enumerate(mask) if m and (cands[i][3].vf != MIN_T or cands[i][3].vt != MAX_T)]
        if not part:
            return
        if rel.arity == 0:
            matched = [list(range(rel.size))] * len(part)
        else:
            matched = self._match(rel, list(range(rel.arity)), [cands[i][2] for i in part], 0, rel.size, None,
                                  full_range=True)
        mirror = self._mirror(rel)
        vfs, vts = (mirror.vf, mirror.vt) if mirror is not None else (rel.meta("valid_from"), rel.meta("valid_to"))
        for i, rows in zip(part, matched):
            r = cands[i][3]
            if any(vfs[x] <= r.vf and vts[x] >= r.vt for x in rows):
                mask[i] = False

    def _record(self, kept: list) -> dict:
        """:meth:`~.evaluator.Evaluation._record`: proof table entries (lists) of the kept rows, one
        chunk per batch (a rule's variant), numbered in candidate order."""
        ev = self.ev
        proof, prod, plen = [], [], []
        groups: dict[int, list] = {}
        for c in kept:  # kept is in candidate order: each batch's rows are one run
            groups.setdefault(c[0], []).append(c)
        for cs in groups.values():
            ri, first = cs[0][1], cs[0][3]
            own = ev.proof_value_names(ri)
            table = {k: [c[3].vars[k] for c in cs] for k in first.vars if k in own}
            table.update({f"#p{label}": [c[3].prem[label] for c in cs] for label in first.prem})
            base = ev.proof_sizes.get(ri, 0)
            ev.proof_tables.setdefault(ri, []).append(table)
            ev.proof_sizes[ri] = base + len(cs)
            w = ev.program.rules[ri].weight
            proof.extend(range(base, base + len(cs)))
            prod.extend(c[3].prod * w for c in cs)
            plen.extend(c[3].plen + 1 for c in cs)
        return {"proof": proof, "prod": prod, "plen": plen}


def _piece(b: _Row, vf: int, vt: int) -> _Row:
    return _Row(dict(b.vars), vf, vt, b.depth, b.prem, b.prod, b.plen)


def _distinct(rows: list[_Row]) -> list[_Row]:
    """The first of every group of equal rows (variables, validity, depth), in order."""
    seen, out = set(), []
    for r in rows:
        key = (tuple(sorted(r.vars.items())), r.vf, r.vt, r.depth)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


_OPS = {"=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
        ">=": operator.ge}


def _cmp(op: str, x, y) -> bool:
    return _OPS[op](x, y)


def _intern(terms, v) -> int:
    return -1 if v is None else terms.intern(v)


__all__ = ["DICT_INDEX_MAX", "Fallback", "MAX_BINDINGS", "ROWWISE", "RowIteration", "THRESHOLD"]
