"""Python source for one rule variant's plan, the fused small-delta loop's building block (:mod:`.rowloop`).

:class:`VariantCompiler` turns a plan (:meth:`~.body.BodySolver._plan`) into nested loops, one level per
atom, over the loop's Python mirrors and dict indexes: variables as locals, integer comparisons and
arithmetic inline (computed integers minted inline, :meth:`~.dictionary.TermDictionary.lazy_int_parts`),
anything else through the row path's scalar builtins, key steps as probes where that is exact.  The
result runs on its own (:meth:`~.rowloop.FusedLoop.run`'s Python loop) and its lines are inlined into the
generated iteration loop (:meth:`~.rowloop.FusedLoop._loop`).
"""
from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING

from ..analysis.program import BinOp, Call, Const, Var
from . import joins as _joins
from . import rowwise as _rowwise
from .joins import expr_vars, int_const
from .planning import positive_atoms

if TYPE_CHECKING:
    from .rowloop import FusedLoop

#: Bindings one rule variant may produce in one iteration before the iteration is handed back.
MAX_BINDINGS = 1024
_SMALL = 2**31  # operands of + - * below this: exact in int64 (as rowwise / builtins)
_CODE: dict[tuple[str, str], object] = {}  # generated source -> code object (same source, same code)
_CODE_MAX = 4096


def compile_cached(src: str, name: str):
    """``compile`` with a cache: the generated source names only its own namespace, so one code
    object serves every closure whose plan prints the same (a program closed many times)."""
    code = _CODE.get((src, name))
    if code is None:
        if len(_CODE) >= _CODE_MAX:
            _CODE.clear()
        code = _CODE[(src, name)] = compile(src, name, "exec")
    return code


class Over(Exception):
    """A variant produced more bindings than this path holds: hand the iteration back."""


def _c_mod(x: int, y: int) -> int:
    """``x % y`` truncating toward zero (the remainder has the dividend's sign; y != 0)."""
    r = abs(x) % abs(y)
    return r if x >= 0 else -r


def _c_div(x: int, y: int) -> int:
    """Integer division truncating toward zero (y != 0)."""
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


_PY_OP = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_ONCE = (0,)


class VariantCompiler:
    """Python source for one rule variant's plan: nested loops, one level per atom (see module doc)."""

    def __init__(self, loop: FusedLoop, ri: int, rule, plan, k: int, rec, tag: str):
        self.loop, self.ri, self.rule, self.k, self.rec, self.tag = loop, ri, rule, k, dict(rec), tag
        self.steps, self.live = plan
        self.ev = loop.ev
        self.ns: dict = {"ONE": _ONCE, "_Over": Over, "LIM": MAX_BINDINGS, "bisect_left": bisect_left,
                         "INTS": loop.rw._ints, "IVAL": loop.rw._int,
                         "TD": loop.terms, **loop.terms.lazy_int_parts(),
                         "EVAL": loop.rw._eval, "CMPG": loop.rw._compare}
        self.lines: list[str] = []
        self.vars: dict[str, str] = {}
        self.ivals: dict[str, str] = {}
        self.keyed: list[tuple] = []  # (Var, expr) of key steps bound here: their `x = e` holds by construction
        self._n = 0

    def _name(self, prefix: str, value=None) -> str:
        self._n += 1
        name = f"{prefix}{self._n}{self.tag}"
        if value is not None:
            self.ns[name] = value
        return name

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def build(self):
        ev, rule = self.ev, self.rule
        record = ev.record
        atoms = positive_atoms(rule.body)
        labels = sorted({s.label for s in self.steps if s.kind == "atom"})
        # bindings are counted against MAX_BINDINGS unless one atom is all there is: its rows are
        # the delta's, at most THRESHOLD at the start of every iteration the loop runs
        self.counted = len(labels) > 1 or _rowwise.THRESHOLD > MAX_BINDINGS
        if self.counted:
            self.emit(1, "W = 0")
        stores = {}
        ranges = []  # (label, own relation or None, which rows): the fused loop reads them from its locals
        for label in labels:
            a = atoms[label]
            st = stores[label] = self.loop.store((a.predicate, a.negated), a.arity)
            rk = self.rec.get(label)
            if rk is None:  # a relation of an earlier stratum: all its rows
                m = self._name('M', st.mirror)
                ranges.append((label, None, m))
                self.emit(1, f"lo{label}, hi{label} = 0, {m}.n")
            elif label == self.k:  # the delta atom: last iteration's rows
                ranges.append((label, rk, "delta"))
                self.emit(1, f"lo{label}, hi{label} = delta[{self._name('K', rk)}]")
            elif label < self.k:  # atoms before it: every row up to last iteration's
                ranges.append((label, rk, "upto"))
                self.emit(1, f"lo{label}, hi{label} = 0, delta[{self._name('K', rk)}][1]")
            else:  # atoms after it: the rows before last iteration's
                ranges.append((label, rk, "old"))
                self.emit(1, f"lo{label}, hi{label} = 0, old_end[{self._name('K', rk)}]")
        body = len(self.lines)
        first = self.steps[0] if self.steps else None
        if first is not None and first.kind == "atom" and not any(isinstance(t, Const) for t in first.item.args):
            d = 1  # the first step is a loop over rows: every `continue` is inside it
        else:
            self.emit(1, "for _once in ONE:")  # a loop for the `continue`s of steps before any atom
            d = 2
        dep, prod, plen = "0", "1.0", "0"
        prem: dict[int, str] = {}
        semi: list[int] = []
        for i, step in enumerate(self.steps):
            kind, item = step.kind, step.item
            if kind == "atom":
                st = stores[step.label]
                rows, dep, prod, plen, fresh = self._atom(d, step.label, item, st, dep, prod, plen, record)
                prem[step.label] = rows
                d += 1
                if (not record and rule.depth is None and not any(n in self.live[i] for n in fresh)):
                    semi.append(d)  # a semi-join: later steps read nothing of this atom's rows
            elif kind == "neg":
                self._neg(d, item.atom)
            elif kind == "cmp":
                self._cmp(d, item.op, item.left, item.right)
            elif kind == "assign":
                t = self._expr(d, item.expr)
                name = item.target.name
                if name in self.vars:
                    self.emit(d, f"if {t} != {self.vars[name]}: continue")
                else:
                    self.vars[name] = t  # (an undefined value, id -1, has been cut by _expr's lines)
            elif kind == "key":
                self._key(d, item, self.steps[i + 1:])
            else:
                raise AssertionError(kind)  # aggregates are not eligible
        if rule.depth is not None:
            self.emit(d, f"if {dep} + 1 > {int(rule.depth)}: continue")
        head = []
        for t in rule.head.args:
            head.append(self.vars[t.name] if isinstance(t, Var) else str(self.ev.terms.intern(t.term)))
        key = "(" + "".join(h + ", " for h in head) + ")"
        if record:
            own = ev.proof_value_names(self.ri)
            names = tuple(sorted(n for n in self.vars if n in self.live[-1] and n in own))
            nm = self._name("NAMES", names)
            premt = "(" + "".join(prem[label] + ", " for label in range(len(atoms))) + ")"
            valst = "(" + "".join(self.vars[n] + ", " for n in names) + ")"
            proof = ([prem[label] for label in range(len(atoms))], [self.vars[n] for n in names], names, prod, plen)
            emit = (len(self.lines) - body, d, head, f"{dep} + 1", proof)
            self.emit(d, f"out.append(({key}, {dep} + 1, {self.ri}, ({premt}, {valst}, {prod}, {plen}, {nm})))")
        else:
            emit = (len(self.lines) - body, d, head, f"{dep} + 1", None)
            self.emit(d, f"out.append(({key}, {dep} + 1, {self.ri}, None))")
        for level in reversed(semi):
            self.emit(level, "break")
        src = "def fn(delta, old_end, out):\n" + "\n".join(self.lines) + "\n"
        exec(compile_cached(src, f"<fused rule {rule.name}>"), self.ns)  # noqa: S102 - our own generated plan code
        fn = self.ns["fn"]
        fn.head = (rule.head.predicate, rule.head.negated)
        fn.source, fn.lines, fn.ns = src, self.lines, {k: v for k, v in self.ns.items() if k not in ("__builtins__", "fn")}
        # for the generated iteration loop (FusedLoop._loop): the row ranges, the lines after them and
        # where in those the candidate is emitted (line, depth, head ids, depth of the new row, and with
        # proofs: premise rows, proof values, their names, score product and length so far)
        fn.ranges, fn.body, fn.emit = ranges, self.lines[body:], emit
        fn.counted = self.counted
        return fn

    def _atom(self, d, label, atom, st, dep, prod, plen, record):
        cols, keys, fresh, repeats = [], [], {}, []
        for p, t in enumerate(atom.args):
            if isinstance(t, Const):
                cols.append(p)
                keys.append(str(self.ev.terms.intern_const(t.term)))
            elif t.name in self.vars:
                cols.append(p)
                keys.append(self.vars[t.name])
            elif t.name in fresh:
                repeats.append((fresh[t.name], p))
            else:
                fresh[t.name] = p
        m = st.mirror
        r = self._name("r")
        if cols:
            idx = self._name("I", st.index(tuple(cols)))
            rs = self._name("rs")
            self.emit(d, f"{rs} = {idx}.get(({''.join(k + ', ' for k in keys)}))")
            self.emit(d, f"if {rs} is None: continue")
            self.emit(d, f"for {r} in ({rs} if lo{label} == 0 else {rs}[bisect_left({rs}, lo{label}):]):")
            self.emit(d + 1, f"if {r} >= hi{label}: break")
        else:
            self.emit(d, f"for {r} in range(lo{label}, hi{label}):")
        d += 1
        for p, q in repeats:
            cp, cq = self._name("C", m.cols[p]), self._name("C", m.cols[q])
            self.emit(d, f"if {cp}[{r}] != {cq}[{r}]: continue")
        if self.counted:
            self.emit(d, "W += 1")
            self.emit(d, "if W > LIM: raise _Over")
        for name, p in fresh.items():
            v = self._name("v")
            self.emit(d, f"{v} = {self._name('C', m.cols[p])}[{r}]")
            self.vars[name] = v
        dd = self._name("D", m.depth)
        nd = self._name("d")
        self.emit(d, f"{nd} = {dd}[{r}]")
        self.emit(d, f"if {dep} > {nd}: {nd} = {dep}")  # a binding starts at depth 0 (transitive rows: -1)
        if record and m.prod is not None:
            npr, npl = self._name("pr"), self._name("pl")
            # (the first atom's: its row's own score and length, floats and ints as stored)
            if not self.loop.unit_scores:  # (unit scores: every product is 1.0, none is read)
                self.emit(d, f"{npr} = {'' if prod == '1.0' else prod + ' * '}{self._name('P', m.prod)}[{r}]")
                prod = npr
            if not self.loop.plen_is_depth:  # (else the new row's length is its depth: none is read)
                self.emit(d, f"{npl} = {'' if plen == '0' else plen + ' + '}{self._name('Q', m.plen)}[{r}]")
                plen = npl
        return r, nd, prod, plen, list(fresh)

    def _neg(self, d, atom) -> None:
        rel = self.ev.relations.get((atom.predicate, atom.negated))
        if rel is None or rel.size == 0:
            return
        cols, keys = [], []
        for p, t in enumerate(atom.args):
            if isinstance(t, Const):
                i = _joins.const_id(t.term, self.ev.terms)
                if i < 0:
                    return  # no stored row mentions it: nothing to subtract
                cols.append(p)
                keys.append(str(i))
            elif t.name in self.vars:
                cols.append(p)
                keys.append(self.vars[t.name])
        if not cols:
            self.emit(d, "continue")  # some row holds always: every binding is cut
            return
        rows = set(zip(*[rel.col(c).tolist() for c in cols]))
        self.emit(d, f"if ({''.join(k + ', ' for k in keys)}) in {self._name('N', rows)}: continue")

    def _env(self, e) -> str:
        return "{" + ", ".join(f"{n!r}: {self.vars[n]}" for n in sorted(expr_vars(e))) + "}"

    def _int_of(self, d, e) -> str | None:
        """Lines binding an integer value of a variable or small integer constant (None: not one);
        a variable's is read once (later steps run inside the block that read it)."""
        if isinstance(e, Var):
            a = self.ivals.get(e.name)
            if a is not None:
                return a
            a = self.ivals[e.name] = self._name("a")
            x = self.vars[e.name]
            self.emit(d, f"{a} = LAZY.get({x})")  # minted here (a long recursion's values), else known
            self.emit(d, f"if {a} is None:")
            self.emit(d + 1, f"{a} = INTS.get({x})")
            self.emit(d + 1, f"if {a} is None: {a} = IVAL({x})")
            return a
        c = int_const(e)
        if c is not None and abs(c) < _SMALL:
            return repr(c)
        return None

    def _key(self, d, item, rest) -> None:
        """A key step ``x := e`` (:func:`~.planning.plan_body`) where ``e`` is integer arithmetic and
        every later atom reading ``x`` is a relation of an earlier stratum (its rows cannot change while
        the loop runs) whose column holds only ids where value equality is id equality: ``x`` is bound
        to the id of ``e``'s value and the atom probed by it.  A binding with no such id has no
        matching row; one whose operands are not small exact integers hands the iteration back (the
        row path keys it).  Otherwise the atom joins unkeyed and the later ``x = e`` filters."""
        ev, name, e = self.ev, item.target.name, item.expr
        if name in self.vars or not (isinstance(e, BinOp) and e.op in ("+", "-", "*")):
            return
        if not all(isinstance(o, Var) or int_const(o) is not None for o in (e.left, e.right)):
            return
        for st in rest:
            if st.kind != "atom":
                continue
            rk = (st.item.predicate, st.item.negated)
            for p, t in enumerate(st.item.args):
                if isinstance(t, Var) and t.name == name and (
                        rk in self.loop.own or not ev._identity_column(ev.relation(rk, st.item.arity), p)):
                    return
        a, b = self._int_of(d, e.left), self._int_of(d, e.right)
        if a is None or b is None:
            return
        conds = [f"{x} is not None and -{_SMALL} < {x} < {_SMALL}" for x in (a, b) if x.isidentifier()]
        if conds:
            self.emit(d, f"if not ({' and '.join(conds)}): raise _Over")
        k = self._name("k")
        self.emit(d, f"{k} = IDS.get({a} {e.op} {b})")
        self.emit(d, f"if {k} is None: continue")
        self.vars[name] = k
        self.keyed.append((Var(name), e))

    def _cmp(self, d, op, left, right) -> None:
        if op == "=" and ((left, right) in self.keyed or (right, left) in self.keyed):
            return  # x was bound to the id of e's value (an exact integer: one id per value)
        if _joins.INT_CONST and op in _PY_OP:
            a, b = self._int_value(d, left), self._int_value(d, right)
            if a is not None and b is not None:
                # both sides exact integers: compared as Python ints (what compare_ids does for two
                # integer ids; nothing is minted — rows and proofs hold no compared value);
                # otherwise (not integers, a zero divisor: undefined) the general comparison
                guards = a[1] + b[1]
                test = f"if not ({a[0]} {_PY_OP[op]} {b[0]}): continue"
                if not guards:
                    self.emit(d, test)
                    return
                self.emit(d, f"if {' and '.join(guards)}:")
                self.emit(d + 1, test)
                self.emit(d, f"elif not CMPG({op!r}, {self._name('E', left)}, {self._name('E', right)}, "
                             f"{{**{self._env(left)}, **{self._env(right)}}}): continue")
                return
        env = "{**" + self._env(left) + ", **" + self._env(right) + "}"
        self.emit(d, f"if not CMPG({op!r}, {self._name('E', left)}, {self._name('E', right)}, {env}): continue")

    def _int_value(self, d, e) -> tuple[str, list[str]] | None:
        """(Python expression of ``e``'s exact integer value, the conditions under which it is one)
        when ``e`` is a variable, an integer constant, or ``+ - * %`` / ``div`` / ``mod`` of two of
        those (operands below 2**31, as the general path's integer fast path; ``%`` and ``div``
        truncate toward zero, C-style, and a zero divisor is left to the general path); else None."""
        if isinstance(e, Var):
            a = self._int_of(d, e)
            return a, [f"{a} is not None"]
        c = int_const(e)
        if c is not None:
            return repr(c), []
        if isinstance(e, BinOp) and e.op in ("+", "-", "*", "%"):
            op, operands = e.op, (e.left, e.right)
        elif isinstance(e, Call) and e.func in ("div", "mod") and len(e.args) == 2:
            op, operands = ("%" if e.func == "mod" else "div"), tuple(e.args)
        else:
            return None
        if not all(isinstance(o, Var) or int_const(o) is not None for o in operands):
            return None
        x, y = (self._int_of(d, o) for o in operands)
        if x is None or y is None:
            return None
        guards = [f"{v} is not None and -{_SMALL} < {v} < {_SMALL}" for v in (x, y) if v.isidentifier()]
        if op in ("+", "-", "*"):
            return f"({x} {op} {y})", guards
        if y == "0":
            return None
        if y.isidentifier():
            guards.append(f"{y} != 0")
        self.ns.setdefault("CMOD", _c_mod)
        self.ns.setdefault("CDIV", _c_div)
        return f"{'CMOD' if op == '%' else 'CDIV'}({x}, {y})", guards

    def _expr(self, d, e) -> str:
        """Lines computing an expression's id into a fresh local (the binding is cut where it is
        undefined: EVAL gives -1); its name."""
        t = self._name("t")
        if isinstance(e, Var):
            return self.vars[e.name]
        if isinstance(e, Const):
            self.emit(d, f"{t} = {self.ev.terms.intern_const(e.term)}")
            return t
        if isinstance(e, BinOp) and e.op in ("+", "-", "*") and (
                isinstance(e.left, Var) or int_const(e.left) is not None) and (
                isinstance(e.right, Var) or int_const(e.right) is not None):
            a, b = self._int_of(d, e.left), self._int_of(d, e.right)
            if a is not None and b is not None:
                conds = [f"{x} is not None and -{_SMALL} < {x} < {_SMALL}" for x in (a, b) if x.isidentifier()]
                self.emit(d, f"if {' and '.join(conds)}:")
                # the id of a computed integer inline (|v| < 2**62: kept lazily, see lazy_int_minter)
                v = self._name("w")
                self.emit(d + 1, f"{v} = {a} {e.op} {b}")
                self.emit(d + 1, f"{t} = IDS.get({v})")
                self.emit(d + 1, f"if {t} is None:")
                self.emit(d + 2, f"{t} = TD._bound")
                self.emit(d + 2, f"TD._bound = {t} + 1")
                self.emit(d + 2, f"IDS[{v}] = {t}; LAZY[{t}] = {v}")
                self.emit(d, "else:")
                self.emit(d + 1, f"{t} = EVAL({self._name('E', e)}, {self._env(e)})")
                self.emit(d + 1, f"if {t} < 0: continue")  # undefined (division by zero, a type error)
                return t
        self.emit(d, f"{t} = EVAL({self._name('E', e)}, {self._env(e)})")
        self.emit(d, f"if {t} < 0: continue")
        return t


__all__ = ["MAX_BINDINGS", "Over", "VariantCompiler", "compile_cached"]
