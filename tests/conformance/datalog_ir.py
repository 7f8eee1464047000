"""A neutral Datalog IR that the Soufflé, Nemo and YAML translators produce, its mechanical
emission as holokb rule text, and a runner that closes it with the engine.

Translators parse their own syntax into these nodes and raise :class:`Unsupported` (with a
short reason that becomes the skip reason) for anything holokb cannot express.  The emitter
owns the rewrites every front end needs: expressions in atom arguments become fresh variables,
aggregates anywhere in an expression are lifted to their own body item, aggregate bodies become
auxiliary predicates (so they may hold negation, comparisons and disjunction), ``_`` inside an
aggregate body is named (Soufflé and holokb both count distinct tuples), and nullary relations
get one dummy argument (holokb predicates have arity >= 1).
"""
from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Union

from holokb.analysis import analyze
from holokb.core import IRI, Limits
from holokb.core.terms import XSD_DOUBLE, XSD_INTEGER, XSD_STRING, Literal
from holokb.core.functions import RECORD
from holokb.engine import Database, ask, closure
from holokb.syntax import parse_rules

BASE = "http://souffle.test/"


class Unsupported(Exception):
    """The program uses a feature holokb lacks; ``str(e)`` is the skip reason."""


# -- the IR ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class DVar:
    name: str  # "_" is anonymous


@dataclass(frozen=True)
class DConst:
    kind: str  # "sym" | "int" | "float"
    value: object


@dataclass(frozen=True)
class DBin:
    op: str
    left: "DExpr"
    right: "DExpr"


@dataclass(frozen=True)
class DCall:
    func: str  # a holokb built-in (holokb.syntax.ast.FUNCTIONS)
    args: tuple


@dataclass(frozen=True)
class DAgg:
    func: str  # count | sum | min | max
    term: "DExpr | None"
    body: tuple  # a disjunction: tuple of conjunctions (tuples of items)


DExpr = Union[DVar, DConst, DBin, DCall, DAgg]


@dataclass(frozen=True)
class DAtom:
    pred: str
    args: tuple


@dataclass(frozen=True)
class DNeg:
    atom: DAtom


@dataclass(frozen=True)
class DCmp:
    op: str
    left: DExpr
    right: DExpr


@dataclass(frozen=True)
class DRule:
    head: DAtom
    body: tuple  # one conjunction (disjunctions are split by the translators)


@dataclass
class DProgram:
    """Rules, ground input facts per predicate, the relations to compare and their arities."""

    rules: list[DRule] = field(default_factory=list)
    facts: dict[str, list[tuple]] = field(default_factory=dict)
    arity: dict[str, int] = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    empty_aggregate_zero: bool = False  # Soufflé: count/sum over no tuples is 0
    declared: dict[str, int] | None = None  # emitted as a vocabulary when set (Soufflé's .decl)
    text_facts: list[DAtom] = field(default_factory=list)  # facts written in the rule text (may be non-ground)
    goal_directed: bool = False  # answer outputs with ``ask`` (magic sets), as Soufflé's magic-transform


# -- emission ---------------------------------------------------------------------------------
_DUMMY = DConst("sym", "")
_SAFE_VAR = re.compile(r"[^A-Za-z0-9_]")


class _Emitter:
    def __init__(self, prog: DProgram):
        self.prog = prog
        self.fresh = itertools.count(1)
        self.rules: list[str] = []
        self.aux = itertools.count(1)
        self.aux_arity: dict[str, int] = {"_true": 1}

    # terms
    def pred(self, name: str) -> str:
        return f"<{BASE}{name}>"

    def const(self, c: DConst) -> str:
        if c.kind == "rec":  # Soufflé's nil: holokb's absent record
            return f'"{c.value}"^^<{RECORD}>'
        if c.kind == "adt":  # an ADT branch's tag (field 0 of its record)
            return f"<adt:{c.value}>"
        if c.kind == "sym":
            s = str(c.value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
            return f'"{s}"'
        if c.kind == "int":
            return str(int(c.value))
        if c.kind == "bool":
            return "true" if c.value else "false"
        f = float(c.value)
        if not math.isfinite(f):
            raise Unsupported("non-finite float constant")
        return f'"{f!r}"^^<{XSD_DOUBLE}>'

    def var(self, v: DVar) -> str:
        if v.name == "_":
            return "?_"
        if v.name.startswith("#t"):
            return "?t" + v.name[2:]
        return "?v_" + _SAFE_VAR.sub("_", v.name)

    def new_var(self) -> DVar:
        return DVar(f"#t{next(self.fresh)}")

    def expr(self, e) -> str:
        if isinstance(e, DVar):
            return self.var(e)
        if isinstance(e, DConst):
            return self.const(e)
        if isinstance(e, DBin):
            return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"
        if isinstance(e, DCall):
            return f"{e.func}({', '.join(self.expr(a) for a in e.args)})"
        raise AssertionError(e)  # aggregates are lifted before emission

    # rewriting
    def lift(self, e, extra: list):
        """Replace aggregates inside ``e`` by fresh variables bound by items appended to ``extra``."""
        if isinstance(e, DAgg):
            v = self.new_var()
            extra.append(("agg", v, e))
            return v
        if isinstance(e, DBin):
            return DBin(e.op, self.lift(e.left, extra), self.lift(e.right, extra))
        if isinstance(e, DCall):
            return DCall(e.func, tuple(self.lift(a, extra) for a in e.args))
        return e

    def atom_args(self, a: DAtom, extra: list, anon_named: bool) -> list[str]:
        if not a.args:
            return [self.const(_DUMMY)]
        out = []
        for t in a.args:
            if isinstance(t, DVar) and t.name == "_" and anon_named:
                t = self.new_var()
            if isinstance(t, (DVar, DConst)):
                out.append(self.var(t) if isinstance(t, DVar) else self.const(t))
            else:
                v = self.new_var()
                extra.append(("cmp", DCmp("=", v, self.lift(t, extra))))
                out.append(self.var(v))
        return out

    def atom(self, a: DAtom, extra: list, anon_named: bool = False) -> str:
        args = self.atom_args(a, extra, anon_named)
        return f"{self.pred(a.pred)}({', '.join(args)})"

    def body(self, items, anon_named: bool) -> tuple[list[str], list]:
        """Body texts plus the aggregates lifted out of it (emitted by the caller)."""
        texts: list[str] = []
        aggs: list = []
        pending: list = []
        for it in items:
            if isinstance(it, DAtom):
                texts.append(self.atom(it, pending, anon_named))
            elif isinstance(it, DNeg):
                texts.append("not " + self.atom(it.atom, pending, anon_named))
            elif isinstance(it, DCmp):
                pending.append(("cmp", DCmp(it.op, self.lift(it.left, pending), self.lift(it.right, pending))))
            else:
                raise AssertionError(it)
            texts.extend(self._drain(pending, aggs, anon_named))
        texts.extend(self._drain(pending, aggs, anon_named))
        return texts, aggs

    def _drain(self, pending: list, aggs: list, anon_named: bool) -> list[str]:
        out = []
        while pending:
            kind, *rest = pending.pop(0)
            if kind == "cmp":
                c = rest[0]
                left, right = c.left, c.right
                if c.op == "=" and not isinstance(left, DVar) and isinstance(right, DVar):
                    left, right = right, left
                out.append(f"{self.expr(left)} {c.op} {self.expr(right)}")
            else:
                aggs.append((rest[0], rest[1]))
        return out

    def _reaches(self, pred: str) -> set[str]:
        """Every relation ``pred``'s rules read, directly or not (itself included)."""
        if not hasattr(self, "_deps"):
            self._deps: dict[str, set[str]] = {}
            for r in self.prog.rules:
                self._deps.setdefault(r.head.pred, set()).update(_body_preds(r.body))
        seen, todo = {pred}, [pred]
        while todo:
            for q in self._deps.get(todo.pop(), ()):
                if q not in seen:
                    seen.add(q)
                    todo.append(q)
        return seen

    def rule(self, r: DRule) -> None:
        self._head = r.head.pred
        pending: list = []
        head_args = self.atom_args(r.head, pending, False)
        texts, aggs = self.body(r.body, False)
        texts += self._drain(pending, aggs, False)
        # Outer variables are those a positive atom outside the aggregate grounds (Soufflé's scoping:
        # ``Y = min Z+Y : {..}`` uses a local Y); atom texts are the ones that start with an IRI.
        outer_vars = _vars_of_text(t for t in texts if t.startswith("<"))
        # … and those an equality outside it grounds from them or from constants (``(z = 0; z = 1),
        # cnt = count : { n % 2 = z, … }``: z is the rule's); they bind like atoms when decorrelating.
        outer_eqs = [it for it in r.body if isinstance(it, DCmp) and not aggregates_in(it)]
        atom_names = {v for it in r.body if isinstance(it, DAtom) for v in _atom_vars(it)}
        outer_atoms = [t for t in texts if t.startswith("<")]
        for v, e in groundings(outer_eqs, atom_names):
            outer_vars.add(self.var(DVar(v)))
            outer_atoms.append(f"{self.var(DVar(v))} = {self.expr(e)}")
        self._correlated = 0
        agg_texts = []
        for target, agg in aggs:
            agg_texts.append(self.aggregate(target, agg, outer_vars | {self.var(t) for t, _ in aggs}, outer_atoms))
        variants = [[]]
        for (target, agg), (text, zero) in zip(aggs, agg_texts):
            nxt = []
            for v in variants:
                nxt.append(v + [text])
                if zero is not None:
                    nxt.append(v + zero)
            variants = nxt
        head = f"{self.pred(r.head.pred)}({', '.join(head_args)})"
        for v in variants:
            self.emit(head, texts + v)

    def aggregate(self, target: DVar, agg: DAgg, outer: set[str],
                  outer_atoms: list[str] = ()) -> tuple[str, list[str] | None]:
        """The aggregate item over an auxiliary relation, and (Soufflé) the items of its empty case.

        A body that compares with an outer variable its own atoms do not bind (``count : { a(x),
        x < y }``, ``y`` bound outside) is decorrelated: the outer atoms that bind ``y`` join the
        auxiliary rule, ``y`` becomes one of its arguments, and the aggregate groups by it."""
        k = next(self.aux)
        # Variables used only inside the aggregate are local to it (Soufflé and Nemo scope them so):
        # rename them apart, so two aggregates of one rule never share (and group by) them.
        local = {v for conj in agg.body for it in conj for v in _item_vars(it)} | set(_expr_vars(agg.term))
        rename = {v: self.new_var() for v in sorted(local) if v != "_" and self.var(DVar(v)) not in outer}
        term = None if agg.term is None else _subst(agg.term, rename)
        named = {conj: tuple(_name_anon(_subst(it, rename), self) for it in conj) for conj in agg.body}
        # aux(args) collects every variable the body binds in an atom, in first-seen order.
        order: list[str] = []
        for conj in agg.body:
            for it in named[conj]:
                for v in _atom_vars(it):
                    if v not in order:
                        order.append(v)
        for conj in agg.body:  # a disjunct must bind them all, else its aux rule is unsafe
            if {v for it in named[conj] for v in _atom_vars(it)} != set(order):
                raise Unsupported("aggregate body disjuncts bind different variables")
        # A local variable the body computes from them (``mean x : { x = z + 1, A(z) }``) is bound too.
        assigned = _assigned(named[agg.body[0]], set(order)) if len(agg.body) == 1 else []
        order += assigned
        aux = f"_agg{k}"
        bodies = []
        for conj in agg.body:
            texts, inner_aggs = self.body(named[conj], False)
            if inner_aggs:
                raise Unsupported("aggregate nested inside an aggregate body")
            bodies.append(texts)
        own = {self.var(DVar(v)) for v in order}
        correlated = sorted(set().union(*(_vars_of_text(t) for t in bodies)) - own)
        binders = [t for t in outer_atoms if _vars_of_text([t]) & set(correlated)]
        if correlated and not (set(correlated) <= outer and set(correlated) <= _vars_of_text(binders)):
            raise Unsupported("aggregate body uses an outer variable outside its atoms")
        if correlated:
            # Decorrelating puts the binders in the auxiliary rule: a binder that depends on the rule's
            # own head would make the rule recursive through its aggregate, and several correlated
            # aggregates in one rule are what Soufflé refuses as "mutually dependent": not translated.
            self._correlated += 1
            if self._correlated > 1:
                raise Unsupported("several aggregates of one rule use outer variables")
            if any(self._head in self._reaches(_pred_of_text(t)) for t in binders):
                raise Unsupported("aggregate body uses an outer variable bound in a recursive rule")
        arg_texts = [self.var(DVar(v)) for v in order] + correlated
        args = ", ".join(arg_texts) or self.const(_DUMMY)
        self.aux_arity[aux] = max(len(arg_texts), 1)
        for texts in bodies:
            extra = [t for t in binders if _vars_of_text([t]) & (set(correlated) & _vars_of_text(texts))]
            self.emit(f"{self.pred(aux)}({args})", extra + texts if correlated else texts)
        term = "" if term is None else self.expr(term)
        text = f"{self.var(target)} = {agg.func}({term} : {self.pred(aux)}({args}))"
        zero = None
        if self.prog.empty_aggregate_zero and agg.func in ("count", "sum"):
            group = [self.var(DVar(v)) for v in order if self.var(DVar(v)) in outer] + correlated
            gaux = f"_agg{k}g"
            gargs = ", ".join(group) or self.const(_DUMMY)
            self.aux_arity[gaux] = max(len(group), 1)
            self.emit(f"{self.pred(gaux)}({gargs})", [f"{self.pred(aux)}({args})"])
            zero = [f"not {self.pred(gaux)}({gargs})", f"{self.var(target)} = 0"]
        return text, zero

    def emit(self, head: str, body: list[str]) -> None:
        n = len(self.rules) + 1
        if body:
            self.rules.append(f"rule r{n}: {head} :- {', '.join(body)}.")
        else:
            self.rules.append(f"rule r{n}: {head} :- {self.pred('_true')}({self.const(_DUMMY)}).")


def existential_negation(rules: list[DRule]) -> list[DRule]:
    """Nemo's reading of ``~p(?x, ?y)``: a variable met only under negation is existential.

    Single occurrences become ``_``; a repeated one (``~s3(?X, ?P, ?P)``) keeps its equality
    through an auxiliary relation ``_negN(?X) :- s3(?X, ?P, ?P)`` that is negated instead.
    """
    out: list[DRule] = []
    aux = itertools.count(1)
    for r in rules:
        seen = {v for it in r.body if not isinstance(it, DNeg) for v in _item_vars(it)}
        seen |= {v for t in r.head.args for v in _expr_vars(t)}
        body = []
        for it in r.body:
            if not isinstance(it, DNeg):
                body.append(it)
                continue
            local = Counter(v for v in _item_vars(it) if v not in seen and v != "_")
            if any(n > 1 for n in local.values()):
                name = f"_neg{next(aux)}"
                keep = tuple(dict.fromkeys(DVar(v) for v in _item_vars(it) if v in seen))
                out.append(DRule(DAtom(name, keep), (it.atom,)))
                body.append(DNeg(DAtom(name, keep)))
            else:
                body.append(DNeg(DAtom(it.atom.pred, tuple(DVar("_") if isinstance(t, DVar) and t.name in local else t
                                                           for t in it.atom.args))))
        out.append(DRule(r.head, tuple(body)))
    return out


def _name_anon(it, em: _Emitter):
    def fix(a: DAtom) -> DAtom:
        return DAtom(a.pred, tuple(em.new_var() if isinstance(t, DVar) and t.name == "_" else t for t in a.args))
    if isinstance(it, DAtom):
        return fix(it)
    return it


def map_children(x, f):
    """``x`` (an IR item or expression) rebuilt with ``f`` applied to each direct child; leaves as they are."""
    if isinstance(x, DBin):
        return DBin(x.op, f(x.left), f(x.right))
    if isinstance(x, DCall):
        return DCall(x.func, tuple(f(a) for a in x.args))
    if isinstance(x, DAtom):
        return DAtom(x.pred, tuple(f(t) for t in x.args))
    if isinstance(x, DNeg):
        return DNeg(f(x.atom))
    if isinstance(x, DCmp):
        return DCmp(x.op, f(x.left), f(x.right))
    if isinstance(x, DAgg):
        return DAgg(x.func, None if x.term is None else f(x.term), tuple(tuple(f(it) for it in conj) for conj in x.body))
    return x


def _subst(x, m: dict):
    """``x`` with variables renamed by ``m`` (IR items and expressions)."""
    if isinstance(x, DVar):
        return m.get(x.name, x)
    return map_children(x, lambda c: _subst(c, m))


def _item_vars(it) -> list[str]:
    if isinstance(it, DAtom):
        return [v for t in it.args for v in _expr_vars(t)]
    if isinstance(it, DNeg):
        return _item_vars(it.atom)
    if isinstance(it, DCmp):
        return _expr_vars(it.left) + _expr_vars(it.right)
    return []


def _atom_vars(it) -> list[str]:
    if isinstance(it, DAtom):
        out = []
        for t in it.args:
            out.extend(_expr_vars(t))
        return [v for v in out if v != "_"]
    return []


def _expr_vars(e) -> list[str]:
    if isinstance(e, DVar):
        return [e.name]
    if isinstance(e, DBin):
        return _expr_vars(e.left) + _expr_vars(e.right)
    if isinstance(e, DCall):
        return [v for a in e.args for v in _expr_vars(a)]
    if isinstance(e, DAgg):
        return [v for conj in e.body for it in conj for v in _item_vars(it)] + _expr_vars(e.term)
    return []


_VAR_RE = re.compile(r"\?[A-Za-z_][A-Za-z0-9_]*")


def _assigned(items, bound: set[str]) -> list[str]:
    """Variables of ``v = expr`` items whose ``expr`` reads only bound variables, to a fixpoint."""
    return [v for v, _ in groundings(items, bound)]


def groundings(items, bound: set[str]) -> list[tuple[str, object]]:
    """(variable, expression) of the ``v = expr`` items that ground ``v`` from bound variables or
    constants, in an order in which each reads only what is bound before it."""
    bound, out = set(bound), []
    changed = True
    while changed:
        changed = False
        for it in items:
            if isinstance(it, DCmp) and it.op == "=":
                for v, e in ((it.left, it.right), (it.right, it.left)):
                    if (isinstance(v, DVar) and v.name not in bound and v.name != "_"
                            and not aggregates_in(e) and set(_expr_vars(e)) <= bound):
                        bound.add(v.name)
                        out.append((v.name, e))
                        changed = True
                        break
    return out


def _body_preds(items) -> set[str]:
    out: set[str] = set()
    for it in items:
        if isinstance(it, DAtom):
            out.add(it.pred)
        elif isinstance(it, DNeg):
            out.add(it.atom.pred)
        for sub in aggregates_in(it):
            for conj in sub.body:
                out |= _body_preds(conj)
    return out


def aggregates_in(x) -> list:
    """The aggregates an item or expression holds (not those nested inside their bodies)."""
    if isinstance(x, DAgg):
        return [x]
    if isinstance(x, DCmp):
        return aggregates_in(x.left) + aggregates_in(x.right)
    if isinstance(x, DBin):
        return aggregates_in(x.left) + aggregates_in(x.right)
    if isinstance(x, DCall):
        return [a for e in x.args for a in aggregates_in(e)]
    if isinstance(x, DAtom):
        return [a for e in x.args for a in aggregates_in(e)]
    return []


_PRED_TEXT = re.compile(r"^<" + re.escape(BASE) + r"(.*?)>\(")


def _pred_of_text(text: str) -> str:
    m = _PRED_TEXT.match(text)
    return m.group(1) if m else ""


def _vars_of_text(texts) -> set[str]:
    out: set[str] = set()
    for t in texts:
        out.update(v for v in _VAR_RE.findall(_STRINGS.sub("", t)) if v != "?_")
    return out


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')


def to_holokb(prog: DProgram) -> str:
    """The program as holokb rule text (facts are loaded separately, see :func:`run`)."""
    em = _Emitter(prog)
    for r in prog.rules:
        em.rule(r)
    lines = list(em.rules)
    for a in prog.text_facts:
        lines.append(f"{em.atom(a, [], False)}.")
    if prog.declared is not None:
        arities = {**{p: max(n, 1) for p, n in prog.declared.items()}, **em.aux_arity}
        vocab = ", ".join(f"{em.pred(p)}/{n}" for p, n in sorted(arities.items()))
        lines.insert(0, f"vocabulary: {vocab}.")
    return "\n".join(lines) + "\n"


# -- running ------------------------------------------------------------------------------------
def term_of(c: DConst):
    """The engine term for a constant."""
    if c.kind == "adt":
        return IRI("adt:" + str(c.value))
    if c.kind == "rec":  # nil, or a record value read from a facts file (souffle_io)
        return c.value if isinstance(c.value, Literal) else Literal(str(c.value), RECORD)
    if c.kind == "sym":
        return Literal(str(c.value), XSD_STRING)
    if c.kind == "int":
        return Literal(str(int(c.value)), XSD_INTEGER)
    return Literal(repr(float(c.value)), XSD_DOUBLE)


def cell_text(t) -> str:
    """How a result term is written in a CSV cell (a record as Soufflé prints one: [nil, 1, [a, nil]])."""
    if isinstance(t, IRI):
        return t.value
    if t.datatype == RECORD:
        return _record_text(t)
    v = t.value
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)) or type(v).__name__ == "Decimal":
        return number_text(str(v)) or str(v)
    return t.lexical


def _record_text(t) -> str:
    """A record as Soufflé prints it: ``[a, 1]``, ``nil``, an ADT value ``$Branch(a, 1)`` or ``$Branch``."""
    from holokb.core.functions import apply_call

    if t.lexical == "nil":
        return "nil"
    fields = []
    while (f := apply_call("field", (t, Literal(str(len(fields)), XSD_INTEGER)))) is not None:
        fields.append(f)
    if fields and isinstance(fields[0], IRI) and fields[0].value.startswith("adt:"):
        rest = ", ".join(cell_text(f) for f in fields[1:])
        return "$" + fields[0].value[4:] + (f"({rest})" if rest else "")
    return "[" + ", ".join(cell_text(f) for f in fields) + "]"


def number_text(s: str) -> str | None:
    """A canonical spelling of a number (ints exactly, others to 6 significant digits), else None."""
    s = s.strip()
    try:
        return str(int(s))
    except ValueError:
        pass
    try:
        f = float(s)
    except ValueError:
        return None
    if not math.isfinite(f):
        return None
    if f == int(f) and abs(f) < 1e15:
        return str(int(f))
    return f"{f:.6g}"


@dataclass(frozen=True)
class RunResult:
    relations: dict  # pred -> Counter of rows (tuples of cell text)
    truncated: bool
    limit_hit: str | None
    text: str


def run(prog: DProgram, *, timeout_s: float = 10.0) -> RunResult:
    """Translate, analyse (``rdf_types=False``) and close ``prog``; rows of every output relation."""
    text = to_holokb(prog)
    if prog.goal_directed:
        for k, pred in enumerate(prog.outputs):
            n = max(prog.arity.get(pred, 1), 1)
            args = ", ".join(f"?q{i}" for i in range(n)) if prog.arity.get(pred, 1) else '""'
            text += f"?- <{BASE}{pred}>({args}).\n"
    program = analyze(parse_rules(text), rdf_types=False)
    db = Database()
    db.add(BASE + "_true", (term_of(_DUMMY),))
    for pred, rows in prog.facts.items():
        for row in rows:
            args = tuple(term_of(c) for c in row) if row else (term_of(_DUMMY),)
            db.add(BASE + pred, args)
    limits = Limits(timeout_s=timeout_s, max_results=None)
    out = {}
    truncated, hit = False, None
    if prog.goal_directed:
        for pred, q in zip(prog.outputs, program.queries):
            ans = ask(program, db, q, limits=limits)
            rows = ans.rows if prog.arity.get(pred, 1) else tuple(() for _ in ans.rows) or ()
            if not prog.arity.get(pred, 1):
                rows = ((term_of(_DUMMY),),) if ans.rows else ()
            out[pred] = rows
            truncated, hit = truncated or ans.truncated, hit or ans.limit_hit
    else:
        model = closure(program, db, limits=limits)
        truncated, hit = model.truncated, model.limit_hit
        out = {pred: model.relation(BASE + pred) for pred in prog.outputs}
    rel = {}
    for pred, tuples in out.items():
        rows = Counter()
        for args in tuples:
            rows[() if prog.arity.get(pred, len(args)) == 0 else tuple(cell_text(a) for a in args)] += 1
        rel[pred] = rows
    return RunResult(rel, truncated, hit, text)


def normalise_row(cells, numeric: bool = True) -> tuple:
    """Cells with number spellings made canonical (``1.0`` and ``1`` agree, floats to 6 digits)."""
    out = []
    for c in cells:
        n = number_text(c) if numeric else None
        out.append(n if n is not None else c)
    return tuple(out)


def diff(expected: Counter, actual: Counter, limit: int = 5) -> str:
    """A short human description of how two multisets of rows differ."""
    missing = list((expected - actual).elements())[:limit]
    extra = list((actual - expected).elements())[:limit]
    return f"missing {missing} extra {extra}"
