"""Binding tables and the relational operators one rule body is evaluated with.

A :class:`Bindings` is a batch of partial rule instantiations: one int64 column per bound
variable plus the running validity intersection, the maximal premise depth and, when proofs
are recorded, the premise row of every body atom joined so far and the score factors.
All operators are vectorised (numpy); there are no per-tuple Python objects.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.program import Atom, BinOp, Call, Const, Var
from ..core.terms import Literal
from .builtins import arithmetic, call
from .dictionary import TermDictionary
from .relation import EMPTY, IntermediateOverflow, Relation, fits, pack
from .temporal import coalesce, subtract

MAX_T = np.iinfo(np.int64).max
MIN_T = np.iinfo(np.int64).min


@dataclass(slots=True)
class Bindings:
    """Columns of variable ids and per-row metadata (``vf``, ``vt``, ``depth``, premises ``p<i>``)."""

    n: int
    vars: dict
    meta: dict

    @staticmethod
    def unit(record: bool) -> "Bindings":
        """The single empty binding (the start of every body; its columns are shared, read-only)."""
        return Bindings(1, {}, dict(_UNIT_RECORD if record and not SCORES_AT_RECORD else _UNIT))

    def take(self, idx: np.ndarray, live=None) -> "Bindings":
        """The rows ``idx``; with ``live``, only the variables in it (the others are not gathered)."""
        return Bindings(len(idx), {k: v[idx] for k, v in self.vars.items() if live is None or k in live},
                        {k: gather(v, idx) for k, v in self.meta.items()})

    def project(self, live) -> bool:
        """Drop the columns of variables not in ``live`` (in place); whether any was dropped."""
        dead = [k for k in self.vars if k not in live]
        for k in dead:
            del self.vars[k]
        return bool(dead)

    def filter(self, mask: np.ndarray) -> "Bindings":
        if mask.all():
            return self
        return self.take(np.flatnonzero(mask))


def gather(v: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``v[idx]``; a constant column (stride 0: the validity of a timeless run) stays one, ungathered."""
    if v.strides == (0,) and len(v):
        return np.broadcast_to(v[:1], len(idx))
    return v[idx]


def _frozen_one(v, dtype) -> np.ndarray:
    a = np.array([v], dtype=dtype)
    a.flags.writeable = False
    return a


def _constant_one(v, dtype) -> np.ndarray:
    """One value as a stride-0 array (read-only): gathered by :func:`gather`, it stays one value, so a
    timeless run's validity reaches the relation as a constant column (relation._Column)."""
    return np.broadcast_to(np.array(v, dtype=dtype), (1,))


_UNIT = {"vf": _constant_one(MIN_T, np.int64), "vt": _constant_one(MAX_T, np.int64), "depth": _frozen_one(0, np.int64)}
_UNIT_RECORD = {**_UNIT, "prod": _frozen_one(1.0, np.float64), "plen": _frozen_one(0, np.int64)}
#: Switch: with proofs, bindings carry only the premise rows; the scores (confidence product, path
#: length) of the rows a rule keeps are worked out from them when they are recorded
#: (:meth:`~.evaluator.Evaluation._record`), not gathered and combined through every join step
#: for candidates most of which are dropped (RDFS 100k: 5.1M candidates, 1.4M kept).
#: Off: ``prod``/``plen`` ride along in the bindings' metadata.
SCORES_AT_RECORD = True


def _check(rows: int, cap: int | None) -> None:
    if cap is not None and rows > cap:
        raise IntermediateOverflow(rows, cap)


def const_id(term, terms: TermDictionary) -> int:
    """The id of a constant, or −1 when no fact can mention it."""
    i = terms.lookup(term)
    return -1 if i is None else i


def _probe_cols(atom: Atom, b: Bindings, terms: TermDictionary):
    """Bound positions of ``atom``, their probe columns and the constants' (position, id) pairs,
    or None if a constant is unknown."""
    cols, vals, consts = [], [], []
    for pos, t in enumerate(atom.args):
        if isinstance(t, Const):
            i = const_id(t.term, terms)
            if i < 0:
                return None
            cols.append(pos)
            vals.append(np.full(b.n, i, dtype=np.int64))
            consts.append((pos, i))
        elif t.name in b.vars:
            cols.append(pos)
            vals.append(b.vars[t.name])
    return cols, vals, tuple(consts)


#: Switch: an atom with constants and bound variables probes a :class:`~.relation.PartialIndex` of
#: the rows holding the constants, keyed by the variables (off: the index on all bound positions).
PARTIAL_INDEXES = True


def _match(rel: Relation, cols, vals, b: Bindings, lo: int, hi: int, bits: int, cap: int | None = None,
           consts: tuple = ()):
    """(binding position, relation row) pairs where the bound columns agree, rows in [lo, hi).
    ``consts``: the (position, id) pairs among ``cols`` that are the atom's constants.

    Raises :class:`IntermediateOverflow` before allocating more than ``cap`` pairs.
    """
    if hi <= lo or b.n == 0:
        return EMPTY, EMPTY
    if not cols:
        _check(b.n * (hi - lo), cap)
        rows = np.arange(lo, hi, dtype=np.int64)
        return np.repeat(np.arange(b.n, dtype=np.int64), len(rows)), np.tile(rows, b.n)
    if b.n == 1 and 2 * (hi - lo) <= rel.size:
        # One probe key over a small row range (a delta atom with constants): the index would
        # hand back every matching row of the whole relation only to drop most of them.
        hit = np.ones(hi - lo, dtype=bool)
        for c, v in zip(cols, vals):
            hit &= rel.col(c)[lo:hi] == v[0]
        rows = np.flatnonzero(hit) + lo
        return np.zeros(len(rows), dtype=np.int64), rows
    idx = None
    if consts and len(consts) < len(cols) and PARTIAL_INDEXES:
        # The constants select the rows once (in the index), the variables are the key.
        fixed = {c for c, _ in consts}
        key_cols = [c for c in cols if c not in fixed]
        idx = rel.partial_index(consts, tuple(key_cols), bits)
        if idx is not None:
            vals = [v for c, v in zip(cols, vals) if c not in fixed]
            cols = key_cols
    k = fits(len(cols), bits)
    if idx is None:
        idx = rel.index(tuple(cols), bits)
    pos, rows = idx.probe(pack(vals[:k], bits), cap)
    # the index holds rows [0, rel.size): a range over all of them needs no check
    keep = (rows >= lo) & (rows < hi) if lo > 0 or hi < rel.size else None
    for c, v in zip(cols[k:], vals[k:]):
        same = rel.col(c)[rows] == v[pos]
        keep = same if keep is None else keep & same
    if keep is not None and not keep.all():
        pos, rows = pos[keep], rows[keep]
    return pos, rows


def join(b: Bindings, atom: Atom, label: int, rel: Relation, lo: int, hi: int,
         terms: TermDictionary, bits: int, record: bool, cap: int | None = None,
         timeless: bool = False, live=None) -> Bindings:
    """Extend ``b`` with the rows of ``rel`` in [lo, hi) matching ``atom`` (premise ``p<label>``);
    more than ``cap`` matching pairs raise :class:`IntermediateOverflow` before any allocation.
    ``timeless``: every binding and row is valid always, so the intersection is skipped.
    ``live``: the variables read after this step; only their columns are built."""
    if UNIT_VIEWS and b.n == 1 and not b.vars and _plain(atom) and b.meta.keys() <= _UNIT_META:
        _check(hi - lo, cap)
        return _join_unit(b, atom, label, rel, lo, hi, record, timeless)
    pc = _probe_cols(atom, b, terms)
    if pc is None:
        return b.take(EMPTY)
    pos, rows = _match(rel, pc[0], pc[1], b, lo, hi, bits, cap, pc[2])
    out = b.take(pos, live)
    fresh: dict[str, int] = {}
    keep = None
    for p, t in enumerate(atom.args):
        if isinstance(t, Var) and t.name not in b.vars:
            if t.name in fresh:  # a variable repeated inside one atom: an equality
                m = rel.col(p)[rows] == rel.col(fresh[t.name])[rows]
                keep = m if keep is None else keep & m
            else:
                fresh[t.name] = p
    for name, p in fresh.items():
        if live is None or name in live:
            out.vars[name] = rel.col(p)[rows]
    if not timeless:
        vf = np.maximum(out.meta["vf"], rel.meta("valid_from")[rows])
        vt = np.minimum(out.meta["vt"], rel.meta("valid_to")[rows])
        out.meta["vf"], out.meta["vt"] = vf, vt
        nonempty = vf < vt  # an empty intersection of validity ⇒ no derivation
        keep = nonempty if keep is None else keep & nonempty
    out.meta["depth"] = np.maximum(out.meta["depth"], rel.meta("depth")[rows])
    if record:
        out.meta[f"p{label}"] = rows
    if "prod" in out.meta and rel.has_meta("prod"):
        out.meta["prod"] = out.meta["prod"] * rel.meta("prod")[rows]
        out.meta["plen"] = out.meta["plen"] + rel.meta("plen")[rows]
    return out if keep is None else out.filter(keep)


#: Join the single empty binding with a plain atom as row-range views (:func:`_join_unit`).
UNIT_VIEWS = True
_UNIT_META = frozenset(("vf", "vt", "depth", "prod", "plen"))


def _plain(atom: Atom) -> bool:
    """Every argument a variable, no variable twice: each row of the relation is one binding."""
    names = [t.name for t in atom.args if isinstance(t, Var)]
    return len(names) == len(atom.args) and len(set(names)) == len(names)


def _ro(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False  # a view of a relation's storage: a write would change the relation
    return a


def _join_unit(b: Bindings, atom: Atom, label: int, rel: Relation, lo: int, hi: int, record: bool,
               timeless: bool = False) -> Bindings:
    """:func:`join` of the single empty binding with a plain atom: the rows [lo, hi) themselves, as
    views (the first step of every semi-naive variant; with a small delta this is most of a
    step's work, so it costs a few slices instead of a dozen gathers).  ``timeless``: the
    validity is the whole axis everywhere, kept as constant columns that later steps never gather."""
    hi = max(lo, hi)
    n = hi - lo
    vars_ = {t.name: _ro(rel.col(p)[lo:hi]) for p, t in enumerate(atom.args)}
    meta = b.meta
    if timeless:
        vf, vt = np.broadcast_to(meta["vf"][:1], n), np.broadcast_to(meta["vt"][:1], n)
    else:
        vf, vt = rel.meta("valid_from")[lo:hi], rel.meta("valid_to")[lo:hi]
    if meta["vf"][0] != MIN_T:
        vf = np.maximum(vf, meta["vf"][0])
    if meta["vt"][0] != MAX_T:
        vt = np.minimum(vt, meta["vt"][0])
    out = {"vf": _ro(vf), "vt": _ro(vt), "depth": np.maximum(rel.meta("depth")[lo:hi], meta["depth"])}
    if record:
        out[f"p{label}"] = np.arange(lo, hi, dtype=np.int64)
    if "prod" in meta:
        if rel.has_meta("prod"):
            # From the unit binding (score 1, no steps) the rows' own scores are the result: a
            # read-only view and a widening copy (path lengths are summed in int64) instead of
            # a product and a sum per row.
            prod, plen = rel.meta("prod")[lo:hi], rel.meta("plen")[lo:hi]
            out["prod"] = _ro(prod) if meta["prod"][0] == 1.0 else meta["prod"] * prod
            out["plen"] = plen.astype(np.int64) if meta["plen"][0] == 0 else meta["plen"] + plen
        else:
            out["prod"], out["plen"] = np.repeat(meta["prod"], n), np.repeat(meta["plen"], n)
    res = Bindings(n, vars_, out)
    return res if timeless else res.filter(vf < vt)


def anti_join(b: Bindings, atom: Atom, rel: Relation | None, terms: TermDictionary, bits: int,
              endpoints: np.ndarray, cap: int | None = None) -> Bindings:
    """Negation as failure over time: each binding keeps the parts of its validity where no row of
    ``rel`` matching ``atom`` holds (zero, one or several rows per binding; :func:`.temporal.subtract`)."""
    if rel is None or rel.size == 0 or b.n == 0:
        return b
    pc = _probe_cols(atom, b, terms)
    if pc is None:
        return b
    cols, vals, consts = pc
    if not cols:  # nothing bound: every row matches every binding; subtract their union once
        g, f, t = coalesce(np.zeros(rel.size, np.int64), rel.meta("valid_from"), rel.meta("valid_to"))
        pos = np.repeat(np.arange(b.n, dtype=np.int64), len(f))
        rs, re = np.tile(f, b.n), np.tile(t, b.n)
    else:
        pos, rows = _match(rel, cols, vals, b, 0, rel.size, bits, cap, consts)
        rs, re = rel.meta("valid_from")[rows], rel.meta("valid_to")[rows]
    if len(pos) == 0:
        return b
    idx, vf, vt = subtract(b.meta["vf"], b.meta["vt"], pos, rs, re, endpoints)
    if len(idx) == b.n and (idx == np.arange(b.n)).all() and (vf == b.meta["vf"]).all() and (vt == b.meta["vt"]).all():
        return b
    out = b.take(idx)
    out.meta["vf"], out.meta["vt"] = vf, vt
    return out


def eval_expr(e, b: Bindings, terms: TermDictionary) -> np.ndarray:
    """Ids of an expression per binding row (−1 where undefined)."""
    if isinstance(e, Var):
        return b.vars[e.name]
    if isinstance(e, Const):
        return np.full(b.n, terms.intern_const(e.term), dtype=np.int64)
    if isinstance(e, BinOp):
        if INT_CONST and e.op in ("+", "-", "*"):
            fast = _var_op_int(e, b, terms)
            if fast is not None:
                return fast
        left = eval_expr(e.left, b, terms)
        right = eval_expr(e.right, b, terms)
        ok = (left >= 0) & (right >= 0)
        out = np.full(b.n, -1, dtype=np.int64)
        out[ok] = arithmetic(e.op, left[ok], right[ok], terms)
        return out
    if isinstance(e, Call):
        args = [eval_expr(a, b, terms) for a in e.args]
        ok = np.ones(b.n, dtype=bool)
        for a in args:
            ok &= a >= 0
        out = np.full(b.n, -1, dtype=np.int64)
        out[ok] = call(e.func, [a[ok] for a in args], int(ok.sum()), terms)
        return out
    raise TypeError(f"not an expression: {e!r}")


#: ``?x + 1``, ``?x < 10``: a variable against an integer constant computed without
#: materialising the constant as a column (the general path gives the same ids / rows).
INT_CONST = True
_SMALL_INT = 2**31  # as builtins._integer_op: + - * of two operands below this stay exact in int64


def int_const(e) -> int | None:
    """The value of an integer constant (not a boolean), else None (remembered per node: a
    literal's value is parsed from its lexical form on every read)."""
    if not isinstance(e, Const):
        return None
    hit = _INT_CONSTS.get(id(e))
    if hit is None or hit[0] is not e:
        v = e.term.value if isinstance(e.term, Literal) else None
        hit = (e, v if isinstance(v, int) and not isinstance(v, bool) else None)
        if len(_INT_CONSTS) > 4096:
            _INT_CONSTS.clear()
        _INT_CONSTS[id(e)] = hit  # holds the node, so its id cannot be reused while cached
    return hit[1]


_INT_CONSTS: dict[int, tuple] = {}


def _var_op_int(e: BinOp, b: Bindings, terms: TermDictionary) -> np.ndarray | None:
    """``var op c`` / ``c op var`` over integers in numpy (a binding's ids are all defined), or None."""
    if isinstance(e.left, Var) and int_const(e.right) is not None:
        ids, c, flip = b.vars[e.left.name], int_const(e.right), False
    elif isinstance(e.right, Var) and int_const(e.left) is not None:
        ids, c, flip = b.vars[e.right.name], int_const(e.left), True
    else:
        return None
    isint, val = terms.integers()
    if abs(c) >= _SMALL_INT or len(ids) == 0 or not isint[ids].all():
        return None
    x = val[ids]
    if np.abs(x).max() >= _SMALL_INT:
        return None
    res = x + c if e.op == "+" else x * c if e.op == "*" else (c - x if flip else x - c)
    return terms.intern_ints(res)


def compare_var_int(op: str, left, right, b: Bindings, terms: TermDictionary) -> np.ndarray | None:
    """Row mask of ``var op c`` (either side) when every value of the variable is an exact integer."""
    if not (INT_CONST and op in _FLIP):
        return None
    if isinstance(left, Var) and int_const(right) is not None:
        ids, c = b.vars[left.name], int_const(right)
    elif isinstance(right, Var) and int_const(left) is not None:
        ids, c, op = b.vars[right.name], int_const(left), _FLIP[op]
    else:
        return None
    isint, val = terms.integers()
    if abs(c) >= 2**62 or not isint[ids].all():
        return None
    return _INT_CMP[op](val[ids], c)


_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_INT_CMP = {"=": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
            ">=": np.greater_equal}


def expr_vars(e) -> set[str]:
    """Variable names an expression reads."""
    if isinstance(e, Var):
        return {e.name}
    if isinstance(e, BinOp):
        return expr_vars(e.left) | expr_vars(e.right)
    if isinstance(e, Call):
        return set().union(*(expr_vars(a) for a in e.args)) if e.args else set()
    return set()
