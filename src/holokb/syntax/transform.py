"""Parse tree → AST nodes, expanding prefixes and typing literals; problems become diagnostics.

The transformer never raises on bad input: it records a :class:`Diagnostic` and substitutes a
placeholder so that every other mistake in the file is still found.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from lark import Token, Transformer, v_args

from ..core.errors import Diagnostic, InvalidValueError, Location
from ..core.terms import (
    IRI, OWL, RDF, RDF_LANGSTRING, RDFS, XSD, XSD_BOOLEAN, XSD_DECIMAL, XSD_DOUBLE, XSD_DURATION, XSD_INTEGER, Literal,
)
from ..core.time import Duration
from .anon import renumber_query, renumber_rule
from .ast import (
    FUNCTIONS, Aggregate, Atom, BinOp, Call, Comparison, Const, Expr, Negation, PredicateDecl, Query, Rule, Var,
)

#: Prefixes every rule file may use without declaring them.
STANDARD_PREFIXES: tuple[tuple[str, str], ...] = (("owl", OWL), ("rdf", RDF), ("rdfs", RDFS), ("xsd", XSD))

#: Known xsd datatypes (for "did you mean" on vocabulary argument types).
XSD_TYPES = frozenset(
    XSD + n for n in (
        "string", "integer", "int", "long", "short", "byte", "decimal", "double", "float", "boolean",
        "dateTime", "date", "duration", "nonNegativeInteger", "positiveInteger", "nonPositiveInteger",
        "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte", "anyURI",
    )
)

_UNIT_MS = {
    "ms": 1, "millisecond": 1, "milliseconds": 1,
    "s": 1000, "sec": 1000, "secs": 1000, "second": 1000, "seconds": 1000,
    "min": 60_000, "mins": 60_000, "minute": 60_000, "minutes": 60_000,
    "h": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
    "d": 86_400_000, "day": 86_400_000, "days": 86_400_000,
    "w": 604_800_000, "week": 604_800_000, "weeks": 604_800_000,
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_ANNOTATIONS = ("depth", "weight")
_PLACEHOLDER = Const(IRI("urn:holokb:error"))


@dataclass(frozen=True, slots=True)
class Include:
    """An ``@include "path" .`` directive, resolved by the parser."""

    path: str
    origin: Location


@dataclass
class Collected:
    """What one file's transform produced, in source order."""

    prefixes: dict[str, str] = field(default_factory=dict)
    declarations: list[PredicateDecl] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    facts: list[Atom] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)
    includes: list[Include] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _AggCall:
    func: str
    term: Expr | None
    body: tuple[Atom, ...]
    origin: Location


class ToAST(Transformer):
    """Builds AST nodes; appends to ``self.diagnostics`` instead of raising."""

    def __init__(self, file: str | None):
        super().__init__(visit_tokens=False)
        self.file = file
        self.out = Collected(prefixes=dict(STANDARD_PREFIXES))
        self.declared_prefixes: dict[str, str] = {}
        self.diagnostics: list[Diagnostic] = []

    # -- helpers ------------------------------------------------------------------------
    def _loc(self, x) -> Location:
        if isinstance(x, Token):
            return Location(self.file, x.line, x.column, x.end_line, x.end_column)
        return Location(self.file, x.line, x.column, x.end_line, x.end_column)

    def _error(self, code: str, message: str, where, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, message, self._loc(where), hint))

    def _pname(self, tok: Token) -> str:
        prefix, _, local = str(tok).partition(":")
        ns = self.out.prefixes.get(prefix)
        if ns is None:
            known = ", ".join(sorted(self.out.prefixes))
            self._error("HK104", f"unknown prefix '{prefix}:'", tok,
                        f"declare it with @prefix {prefix}: <...> . (known prefixes: {known})")
            return "urn:holokb:error"
        return ns + local

    def _iri(self, tok: Token) -> str:
        if tok.type == "PNAME":
            return self._pname(tok)
        value = str(tok)[1:-1]
        if ":" not in value:
            self._error("HK105", f"relative IRI <{value}> is not allowed", tok,
                        "write an absolute IRI such as <http://example.org/x>, or a prefixed name")
            return "urn:holokb:error"
        return value

    def _literal(self, lexical: str, datatype: str, where, lang: str | None = None) -> Const:
        try:
            return Const(Literal(lexical, datatype, lang))
        except InvalidValueError as e:
            self._error("HK105", f"ill-typed literal: {e.message}", where,
                        "check the lexical form against the datatype (e.g. \"PT15M\"^^xsd:duration)")
            return _PLACEHOLDER

    def _string(self, tok: Token) -> str:
        body, out, i = str(tok)[1:-1], [], 0
        while i < len(body):
            c = body[i]
            if c != "\\":
                out.append(c)
                i += 1
                continue
            e = body[i + 1]
            if e in _ESCAPES:
                out.append(_ESCAPES[e])
                i += 2
            elif e in "uU":
                n = 4 if e == "u" else 8
                digits = body[i + 2:i + 2 + n]
                try:
                    if len(digits) != n:
                        raise ValueError
                    out.append(chr(int(digits, 16)))
                except ValueError:
                    self._error("HK112", f"bad unicode escape '\\{e}{digits}' in string", tok,
                                f"write \\{e} followed by {n} hexadecimal digits")
                i += 2 + n
            else:
                self._error("HK112", f"unknown escape '\\{e}' in string", tok,
                            'valid escapes: \\" \\\\ \\n \\t \\r \\b \\f \\uXXXX \\UXXXXXXXX')
                i += 2
        return "".join(out)

    # -- directives ---------------------------------------------------------------------
    def prefix_decl(self, items):
        ns_tok, iri_tok = items
        name = str(ns_tok)[:-1]
        self.out.prefixes[name] = str(iri_tok)[1:-1]
        self.declared_prefixes[name] = str(iri_tok)[1:-1]

    def include_decl(self, items):
        (tok,) = items
        self.out.includes.append(Include(self._string(tok), self._loc(tok)))

    def vocab_decl(self, items):
        self.out.declarations.extend(items)

    @v_args(meta=True)
    def pred_decl(self, meta, items):
        pred, _slash, arity_tok, *rest = items
        arity = int(arity_tok)
        types: tuple[str | None, ...] = ()
        functional = False
        for r in rest:
            if isinstance(r, Token) and r.type == "FUNCTIONAL":
                functional = True
            else:
                types = r
        if arity < 1:
            self._error("HK113", f"arity of {pred} must be at least 1, got {arity}", arity_tok)
        if types and len(types) != arity:
            self._error("HK113", f"{len(types)} argument types given for a predicate of arity {arity}", meta,
                        f"list exactly {arity} types, one per argument (iri, literal, any or an xsd datatype)")
        return PredicateDecl(pred, arity, types, functional, self._loc(meta))

    def arg_types(self, items):
        return tuple(items)

    def arg_type(self, items):
        (tok,) = items
        if tok.type == "TYPE_WORD":
            return {"iri": "iri", "literal": "literal", "any": None}[str(tok)]
        iri = self._iri(tok)
        if iri.startswith(XSD) and iri not in XSD_TYPES:
            import difflib
            close = difflib.get_close_matches(iri, sorted(XSD_TYPES), n=1)
            hint = f"did you mean xsd:{close[0][len(XSD):]}?" if close else None
            self._error("HK114", f"unknown XML Schema datatype {tok}", tok, hint)
        return iri

    # -- rules ----------------------------------------------------------------------------
    def annotations(self, items):
        return list(items)

    def annotation(self, items):
        name, value = items
        return (name, value)

    def _annotations(self, anns) -> tuple[float, int | None]:
        weight, depth, seen = 1.0, None, set()
        for name, (num_tok, value) in anns:
            key = str(name)
            if key in seen:
                self._error("HK107", f"annotation '{key}' given twice", name)
            seen.add(key)
            if key == "weight":
                weight = float(value)
            elif key == "depth":
                if not isinstance(value, int):
                    self._error("HK107", f"depth must be a whole number, got {num_tok}", num_tok,
                                "depth counts rule applications, e.g. [depth 3]")
                else:
                    depth = value
            else:
                import difflib
                close = difflib.get_close_matches(key, _ANNOTATIONS, n=1)
                hint = f"did you mean '{close[0]}'?" if close else "known annotations: weight, depth"
                self._error("HK107", f"unknown annotation '{key}'", name, hint)
        return weight, depth

    def signed_number(self, items):
        neg = len(items) == 2
        tok = items[-1]
        text = ("-" if neg else "") + str(tok)
        if tok.type == "INT":
            return (tok, int(text))
        return (tok, float(text))

    def _rule(self, meta, items, constraint: bool):
        name_tok = items[0]
        anns = items[1] if len(items) == 4 else []
        head, body = items[-2], items[-1]
        weight, depth = self._annotations(anns)
        kind, head_atom, head_where = head
        if constraint and kind != "false":
            self._error("HK111", f"constraint '{name_tok}' must have the head 'false'", head_where,
                        "write: constraint name: false :- ... (or use 'rule' to derive facts)")
        if not constraint and kind == "false":
            self._error("HK111", f"rule '{name_tok}' has the head 'false'", head_where,
                        "integrity constraints are written: constraint name: false :- ...")
        if kind == "true":
            self._error("HK111", "a head cannot be 'true'", head_where, "use an atom or 'false'")
        rule = Rule(str(name_tok), None if constraint else head_atom, body, weight, depth, self._loc(meta))
        if not constraint and rule.head is None:
            rule = Rule(rule.name, Atom("urn:holokb:error", ()), body, weight, depth, rule.origin)
        self.out.rules.append(renumber_rule(rule))

    @v_args(meta=True)
    def rule_decl(self, meta, items):
        self._rule(meta, items, constraint=False)

    @v_args(meta=True)
    def constraint_decl(self, meta, items):
        self._rule(meta, items, constraint=True)

    @v_args(meta=True)
    def pos_head(self, meta, items):
        return ("atom", items[0], meta)

    @v_args(meta=True)
    def neg_head(self, meta, items):
        a = items[-1]  # `not p(..)` or `-p(..)`: the MINUS token comes first
        return ("atom", Atom(a.predicate, a.args, True, self._loc(meta)), meta)

    def bool_head(self, items):
        return (str(items[0]), None, items[0])

    def pos_fact(self, items):
        self.out.facts.append(items[0])

    @v_args(meta=True)
    def neg_fact(self, meta, items):
        a = items[-1]
        self.out.facts.append(Atom(a.predicate, a.args, True, self._loc(meta)))

    @v_args(meta=True)
    def query_decl(self, meta, items):
        body = items[0]
        q = renumber_query(Query(body, (), self._loc(meta)))
        seen: dict[str, Var] = {}
        for v in _named_vars_in_order(q.body):
            seen.setdefault(v.name, v)
        self.out.queries.append(Query(q.body, tuple(seen.values()), q.origin))

    def body(self, items):
        return tuple(items)

    @v_args(meta=True)
    def negation(self, meta, items):
        return Negation(items[0], self._loc(meta))

    @v_args(meta=True)
    def neg_atom(self, meta, items):
        a = items[-1]
        return Atom(a.predicate, a.args, True, self._loc(meta))

    @v_args(meta=True)
    def comparison(self, meta, items):
        left, op, right = items
        loc = self._loc(meta)
        if isinstance(right, _AggCall) and isinstance(left, Var) and str(op) == "=":
            return Aggregate(left, right.func, right.term, right.body, loc)  # type: ignore[arg-type]
        for side in (left, right):
            if _contains_agg(side):
                self._error("HK110", "an aggregate must stand alone on the right of '?v ='", meta,
                            "write ?n = count(?y : ex:member(?g, ?y)) and use ?n elsewhere")
                return Comparison("=", _PLACEHOLDER, _PLACEHOLDER, loc)
        return Comparison(str(op), left, right, loc)  # type: ignore[arg-type]

    @v_args(meta=True)
    def aggregate(self, meta, items):
        func, *rest = items
        term = rest[0] if rest and not isinstance(rest[0], Atom) else None
        atoms = tuple(a for a in rest if isinstance(a, Atom))
        if term is None and str(func) != "count":
            self._error("HK110", f"{func} needs a term to aggregate", meta,
                        f"write ?v = {func}(?x : ex:p(?g, ?x))")
        return _AggCall(str(func), term, atoms, self._loc(meta))

    def binop(self, items):
        left, op, right = items
        if _contains_agg(left) or _contains_agg(right):
            self._error("HK110", "an aggregate cannot be part of an arithmetic expression", op,
                        "bind it first: ?n = count(...), then use ?n")
            return _PLACEHOLDER
        return BinOp(str(op), left, right)  # type: ignore[arg-type]

    @v_args(meta=True)
    def call(self, meta, items):
        name_tok, *args = items
        args = [a for a in args if a is not None]
        name = str(name_tok)
        spec = FUNCTIONS.get(name)
        if spec is None:
            import difflib
            close = difflib.get_close_matches(name, sorted(FUNCTIONS), n=1)
            hint = f"did you mean {close[0]}?" if close else "built-in functions: " + ", ".join(sorted(FUNCTIONS))
            self._error("HK115", f"unknown function '{name}'", name_tok, hint)
            return _PLACEHOLDER
        lo, hi, doc = spec
        if len(args) < lo or (hi is not None and len(args) > hi):
            want = str(lo) if lo == hi else f"at least {lo}" if hi is None else f"{lo} to {hi}"
            self._error("HK116", f"{name} takes {want} argument(s), {len(args)} given", name_tok, f"{name}: {doc}")
            return _PLACEHOLDER
        if any(_contains_agg(a) for a in args):
            self._error("HK110", "an aggregate cannot be an argument of a function", name_tok,
                        "bind it first: ?n = count(...), then use ?n")
            return _PLACEHOLDER
        return Call(name, tuple(args))

    @v_args(meta=True)
    def test(self, meta, items):
        """A boolean call standing alone in a body holds when it is true."""
        return Comparison("=", items[0], Const(Literal("true", XSD_BOOLEAN)), self._loc(meta))

    @v_args(meta=True)
    def negated_test(self, meta, items):
        return Comparison("=", items[0], Const(Literal("false", XSD_BOOLEAN)), self._loc(meta))

    @v_args(meta=True)
    def atom(self, meta, items):
        pred, *args = items
        return Atom(pred, tuple(a for a in args if a is not None), False, self._loc(meta))

    def predicate(self, items):
        return self._iri(items[0])

    def var(self, items):
        (tok,) = items
        name = str(tok)[1:]
        if name == "_":
            return Var("_")
        if name.startswith("_"):
            self._error("HK106", f"variable name '?{name}' may not start with '_'", tok,
                        f"use ?_ for an anonymous variable, or rename it to ?{name.lstrip('_') or 'x'}")
            return Var("_")
        return Var(name)

    # -- constants ------------------------------------------------------------------------
    def iri_pname(self, items):
        return Const(IRI(self._pname(items[0])))

    def iri_ref(self, items):
        return Const(IRI(self._iri(items[0])))

    def plain_string(self, items):
        return Const(Literal(self._string(items[0])))

    def lang_string(self, items):
        s, tag = items
        return self._literal(self._string(s), RDF_LANGSTRING, s, lang=str(tag)[1:])

    def typed_pname(self, items):
        s, dt = items
        return self._literal(self._string(s), self._pname(dt), s)

    def typed_ref(self, items):
        s, dt = items
        return self._literal(self._string(s), self._iri(dt), s)

    def boolean(self, items):
        return Const(Literal(str(items[0]), XSD_BOOLEAN))

    def number(self, items):
        neg = len(items) == 2
        tok = items[-1]
        text = ("-" if neg else "") + str(tok)
        dt = {"INT": XSD_INTEGER, "DECIMAL": XSD_DECIMAL, "DOUBLE": XSD_DOUBLE}[tok.type]
        return self._literal(text, dt, tok)

    def duration(self, items):
        neg = len(items) == 2
        tok = items[-1]
        text = str(tok)
        i = 0
        while i < len(text) and (text[i].isdigit() or text[i] == "."):
            i += 1
        amount, unit = text[:i], text[i:].strip()
        try:
            ms = Decimal(amount) * _UNIT_MS[unit]
        except (InvalidOperation, KeyError):  # pragma: no cover - the token regex rules these out
            self._error("HK105", f"bad duration {text!r}", tok)
            return _PLACEHOLDER
        if ms != ms.to_integral_value():
            self._error("HK105", f"duration {text!r} is not a whole number of milliseconds", tok)
            return _PLACEHOLDER
        d = Duration(0, -int(ms) if neg else int(ms))
        return Const(Literal(d.lexical(), XSD_DURATION))


def _contains_agg(e) -> bool:
    if isinstance(e, _AggCall):
        return True
    if isinstance(e, BinOp):
        return _contains_agg(e.left) or _contains_agg(e.right)
    if isinstance(e, Call):
        return any(_contains_agg(a) for a in e.args)
    return False


def _named_vars_in_order(body) -> list[Var]:
    out: list[Var] = []

    def expr(e):
        if isinstance(e, Var):
            if not e.anonymous:
                out.append(e)
        elif isinstance(e, BinOp):
            expr(e.left)
            expr(e.right)
        elif isinstance(e, Call):
            for a in e.args:
                expr(a)

    for b in body:
        match b:
            case Atom(_, args):
                for t in args:
                    expr(t)
            case Negation(atom):
                for t in atom.args:
                    expr(t)
            case Comparison(_, left, right):
                expr(left)
                expr(right)
            case Aggregate(target):
                expr(target)  # variables inside the aggregate are local to it
    return out
