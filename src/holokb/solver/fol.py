"""A parser for FOLIO's first-order syntax (∀ ∃ ¬ ∧ ∨ → ↔ ⊕ = ≠, predicates, constants) → FormalProposal.

Precedence, tightest first: ¬ and quantifiers (a quantifier scopes over the next unary formula,
so ``∃z (P(z)) → Q`` reads ``(∃z P(z)) → Q``), ∧, ∨ and ⊕, → (right-associative), ↔.  When that
reading leaves a variable free, the formula is re-read with quantifiers scoping as far right as
possible; single-letter names still free after that are closed universally (a known FOLIO typo).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import SolverError


class FolSyntaxError(SolverError):
    """A FOL string the parser cannot read."""


_TOKEN = re.compile(r"\s*(?:(?P<op>∀|∃|¬|∧|∨|→|—>|->|↔|⊕|≠|=|\(|\)|,)|(?P<name>\w(?:[\w.']|-(?!>))*))")
_VARLIKE = re.compile(r"^[u-z]$")


@dataclass(frozen=True, slots=True)
class Pred:
    name: str
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Eq:
    left: str
    right: str


@dataclass(frozen=True, slots=True)
class Not:
    body: "Formula"


@dataclass(frozen=True, slots=True)
class Bin:
    op: str  # and or xor implies iff
    left: "Formula"
    right: "Formula"


@dataclass(frozen=True, slots=True)
class Quant:
    kind: str  # forall exists
    var: str
    body: "Formula"


Formula = Pred | Eq | Not | Bin | Quant


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise FolSyntaxError(f"unexpected {text[pos:pos + 12]!r} at column {pos + 1} in {text!r}")
        pos = m.end()
        if m.group("op"):
            op = m.group("op")
            out.append(("op", "→" if op in ("—>", "->") else op))
        else:
            out.append(("name", m.group("name")))
    return out


class _Parser:
    def __init__(self, text: str, wide: bool):
        self.text, self.toks, self.i, self.wide = text, _tokens(text), 0, wide

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        t = self.peek()
        if t is None or (value is not None and t[1] != value):
            raise FolSyntaxError(f"expected {value or 'more input'} at token {self.i + 1} in {self.text!r}")
        self.i += 1
        return t

    def parse(self) -> Formula:
        f = self.iff()
        if self.peek() is not None:
            raise FolSyntaxError(f"unexpected {self.peek()[1]!r} at token {self.i + 1} in {self.text!r}")
        return f

    def iff(self) -> Formula:
        left = self.implies()
        while self.peek() == ("op", "↔"):
            self.take()
            left = Bin("iff", left, self.implies())
        return left

    def implies(self) -> Formula:
        left = self.disj()
        if self.peek() == ("op", "→"):
            self.take()
            return Bin("implies", left, self.implies())
        return left

    def disj(self) -> Formula:
        left = self.conj()
        while self.peek() in (("op", "∨"), ("op", "⊕")):
            op = "or" if self.take()[1] == "∨" else "xor"
            left = Bin(op, left, self.conj())
        return left

    def conj(self) -> Formula:
        left = self.unary()
        while self.peek() == ("op", "∧"):
            self.take()
            left = Bin("and", left, self.unary())
        return left

    def unary(self) -> Formula:
        t = self.peek()
        if t == ("op", "¬"):
            self.take()
            return Not(self.unary())
        if t in (("op", "∀"), ("op", "∃")):
            self.take()
            kind = "forall" if t[1] == "∀" else "exists"
            var = self.take()[1]
            if not re.match(r"^[A-Za-z_]\w*$", var):
                raise FolSyntaxError(f"bad quantified variable {var!r} in {self.text!r}")
            body = self.iff() if self.wide else self.unary()
            return Quant(kind, var, body)
        if t == ("op", "("):
            self.take()
            f = self.iff()
            self.take(")")
            return f
        if t is None or t[0] != "name":
            raise FolSyntaxError(f"expected a formula at token {self.i + 1} in {self.text!r}")
        name = self.take()[1]
        if self.peek() == ("op", "("):
            self.take()
            args = [self.take()[1]]
            while self.peek() == ("op", ","):
                self.take()
                args.append(self.take()[1])
            self.take(")")
            if any(not re.match(r"^[A-Za-z0-9_]", a) for a in args):
                raise FolSyntaxError(f"bad argument in {self.text!r}")
            return Pred(name, tuple(args))
        if self.peek() in (("op", "="), ("op", "≠")):
            op = self.take()[1]
            right = self.take()[1]
            return Eq(name, right) if op == "=" else Not(Eq(name, right))
        raise FolSyntaxError(f"{name!r} is neither a predicate application nor an equation in {self.text!r}")


def free_vars(f: Formula, bound: frozenset[str] = frozenset()) -> set[str]:
    """Names used as terms that no quantifier binds and that look like variables (one of u..z)."""
    if isinstance(f, Pred):
        return {a for a in f.args if a not in bound and _VARLIKE.match(a)}
    if isinstance(f, Eq):
        return {a for a in (f.left, f.right) if a not in bound and _VARLIKE.match(a)}
    if isinstance(f, Not):
        return free_vars(f.body, bound)
    if isinstance(f, Bin):
        return free_vars(f.left, bound) | free_vars(f.right, bound)
    return free_vars(f.body, bound | {f.var})


def _unbound_quantified(f: Formula, bound: frozenset[str] = frozenset()) -> set[str]:
    """Variables a quantifier introduces that are used outside its (tight) scope."""
    return {v for v in free_vars(f, bound) if v in _quantified(f)}


def _quantified(f: Formula) -> set[str]:
    if isinstance(f, Quant):
        return {f.var} | _quantified(f.body)
    if isinstance(f, Not):
        return _quantified(f.body)
    if isinstance(f, Bin):
        return _quantified(f.left) | _quantified(f.right)
    return set()


def balance_parentheses(text: str) -> str:
    """Drop ``)`` that close nothing and close what is left open (FOLIO's commonest annotation slip)."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                continue
            depth -= 1
        out.append(ch)
    return "".join(out).rstrip() + ")" * depth


def parse_fol(text: str, *, repair: bool = True) -> Formula:
    """Parse one FOLIO formula (see the module docstring for scoping); FolSyntaxError when it does not read.

    With ``repair``, a formula that fails to parse is retried once with balanced parentheses.
    """
    text = text.strip().rstrip(".")
    try:
        return _parse(text)
    except FolSyntaxError:
        fixed = balance_parentheses(text) if repair else text
        if fixed == text:
            raise
        return _parse(fixed)


def _parse(text: str) -> Formula:
    f = _Parser(text, wide=False).parse()
    if _unbound_quantified(f):
        f = _Parser(text, wide=True).parse()
    for v in sorted(free_vars(f), reverse=True):
        f = Quant("forall", v, f)
    return f


def _constants(f: Formula, bound: frozenset[str]) -> set[str]:
    if isinstance(f, Pred):
        return {a for a in f.args if a not in bound}
    if isinstance(f, Eq):
        return {a for a in (f.left, f.right) if a not in bound}
    if isinstance(f, Not):
        return _constants(f.body, bound)
    if isinstance(f, Bin):
        return _constants(f.left, bound) | _constants(f.right, bound)
    return _constants(f.body, bound | {f.var})


def _sym(prefix: str, name: str) -> str:
    return prefix + re.sub(r"[^A-Za-z0-9_]", lambda m: f"_{ord(m.group()):x}_", name)


class ProposalBuilder:
    """Collects predicates (by name and arity) and constants across formulas; emits proposal parts."""

    def __init__(self) -> None:
        self.preds: dict[str, int] = {}
        self.consts: set[str] = set()
        self.domain: tuple[str, ...] | None = None
        self.subst: dict[str, str] = {}

    def pred_symbol(self, name: str, arity: int) -> str:
        sym = _sym("P_", name) + (f"_{arity}" if arity != 1 else "")
        self.preds[sym] = arity
        return sym

    def term(self, name: str, bound: frozenset[str]) -> dict:
        if name in self.subst and name in bound:
            return {"op": "const", "name": self.subst[name]}
        if name in bound:
            return {"op": "var", "name": _sym("v_", name)}
        sym = _sym("c_", name)
        self.consts.add(sym)
        return {"op": "const", "name": sym}

    def expr(self, f: Formula, bound: frozenset[str] = frozenset()) -> dict:
        """The FormalProposal expression of ``f``."""
        if isinstance(f, Pred):
            return {"op": "call", "symbol": self.pred_symbol(f.name, len(f.args)),
                    "args": [self.term(a, bound) for a in f.args]}
        if isinstance(f, Eq):
            return {"op": "=", "args": [self.term(f.left, bound), self.term(f.right, bound)]}
        if isinstance(f, Not):
            return {"op": "not", "args": [self.expr(f.body, bound)]}
        if isinstance(f, Bin):
            l, r = self.expr(f.left, bound), self.expr(f.right, bound)
            if f.op == "iff":
                return {"op": "=", "args": [l, r]}
            return {"op": {"and": "and", "or": "or", "xor": "xor", "implies": "=>"}[f.op], "args": [l, r]}
        inner = bound | {f.var}
        if self.domain is not None:
            # Finite domain: the quantifier becomes a conjunction/disjunction over the domain.
            saved = self.subst
            parts = []
            for c in self.domain:
                self.subst = {**saved, f.var: c}
                parts.append(self.expr(f.body, inner))
            self.subst = saved
            return parts[0] if len(parts) == 1 else {"op": "and" if f.kind == "forall" else "or", "args": parts}
        return {"op": f.kind, "vars": [{"name": _sym("v_", f.var), "sort": "U"}], "body": self.expr(f.body, inner)}

    def use_finite_domain(self, formulas: list[Formula], fresh: int) -> None:
        """Read quantifiers over the constants of ``formulas`` plus ``fresh`` new elements (finite models only)."""
        names: set[str] = set()
        for f in formulas:
            names |= _constants(f, frozenset())
        consts = sorted(_sym("c_", n) for n in names) + [f"c_hk_fresh_{i}" for i in range(fresh)]
        self.consts.update(consts)
        self.domain = tuple(consts)
        self.subst = {}

    def declarations(self) -> list[dict]:
        """The sort U, every constant, and every predicate seen so far."""
        out = [{"kind": "sort", "name": "U"}]
        out += [{"kind": "const", "name": c, "resultSort": "U"} for c in sorted(self.consts)]
        out += [{"kind": "predicate", "name": p, "argSorts": ["U"] * k} for p, k in sorted(self.preds.items())]
        return out
