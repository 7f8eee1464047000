"""Soufflé programs (``.dl``) → :class:`datalog_ir.DProgram`, mechanically.

Supported: the C preprocessor (``#define``, ``#if``…, via pcpp), ``.type`` aliases/subtypes/unions
of primitive types, ``.decl`` (``eqrel`` becomes its four closure rules), ``.input``/``.output``
with ``filename``/``delimiter``, facts, rules with several heads, ``;`` disjunction, ``!`` negation,
comparisons, ``+ - * / %`` (``/`` on numbers is holokb's truncating ``div``, on floats exact
division), ``^`` (holokb's ``pow``), the bitwise and logical operators ``band bor bxor bshl bshr bnot
land lor lxor lnot`` at Soufflé's precedences, the intrinsic functors ``cat strlen substr contains
match to_number to_string to_float itof ftoi min max`` (``contains``/``match`` also as body
literals), and ``count/sum/mean/min/max`` aggregates with witnesses.  Everything else raises
:class:`Unsupported` with the feature's name: records/ADTs, user-defined functors, other functors
(``ord``, ``range``, unsigned conversions, …), ``bshru``, components, subsumption, choice, ``$``
counters, ordering on symbols.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from souffle_components import expand as expand_components, has_components
from souffle_records import ADT_PREFIX, NIL, RecordTypes, expand as expand_records, has_records
from datalog_ir import (DAgg, DAtom, DBin, DCall, DCmp, DConst, DNeg, DProgram, DRule, DVar, Unsupported, aggregates_in,
                        map_children)

_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<num>0x[0-9a-fA-F]+u?|0b[01]+u?|(?:\d+\.\d+|\d+)(?:[eE][+-]?\d+)?u?)
  | (?P<dir>\.[a-z_]+)
  | (?P<id>[A-Za-z_?][A-Za-z0-9_?]*(?:\.[A-Za-z_?][A-Za-z0-9_?]*)*)
  | (?P<op>:-|<=|>=|!=|<:|\.|[(),;:=<>!+\-*/%^{}\[\]|$@#&~])
""", re.S | re.X)

_PRIMITIVE = {"number": "int", "unsigned": "int", "float": "float", "symbol": "sym"}
_FUNCTORS = {"cat", "strlen", "substr", "ord", "to_number", "to_string", "to_float", "to_unsigned", "itou",
             "itof", "utoi", "utof", "ftoi", "ftou", "match", "contains", "range", "lnot", "bnot", "as",
             "autoinc", "min", "max"}
#: Soufflé's intrinsic functors that holokb has as built-in functions (Soufflé name → holokb name).
_BUILTINS = {"cat": "concat", "strlen": "strlen", "substr": "substr", "contains": "contains", "match": "match",
             "to_number": "to_number", "to_string": "to_string", "min": "min", "max": "max",
             "to_float": "to_float", "itof": "to_float", "ftoi": "to_integer"}
_TESTS = {"contains", "match"}  # boolean functors that may stand alone as a body literal
_WORD_OPS = {"band", "bor", "bxor", "bshl", "bshr", "bshru", "land", "lor", "lxor"}
#: Soufflé's binary word operators by precedence, loosest first (its parser.yy ``%left`` lines); all
#: bind looser than ``+ -``.  Each is holokb's function of the same name (``bshru`` has none).
_WORD_LEVELS = (("lor",), ("lxor",), ("land",), ("bor",), ("bxor",), ("band",), ("bshl", "bshr", "bshru"))
_INT_FUNCS = {"band", "bor", "bxor", "bnot", "bshl", "bshr", "land", "lor", "lxor", "lnot"}
_QUALIFIERS = {"output", "input", "printsize", "brie", "btree", "btree_delete", "inline", "no_inline", "magic",
               "no_magic", "overridable", "eqrel"}


@dataclass
class _Tok:
    kind: str
    text: str
    pos: int


def preprocess(text: str) -> str:
    """Run the C preprocessor over a program that uses it (Soufflé runs ``mcpp``); unchanged otherwise."""
    if not any(line.lstrip().startswith("#") for line in text.splitlines()):
        return text
    import io

    from pcpp import Preprocessor

    class _Quiet(Preprocessor):
        def on_error(self, file, line, msg):
            raise Unsupported(f"C preprocessor: {msg}")

        def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):
            raise Unsupported(f"C preprocessor: #include {includepath} not found")

    pp = _Quiet()
    pp.line_directive = None  # no #line markers in the output
    pp.parse(text, "program.dl")
    out = io.StringIO()
    pp.write(out)
    return out.getvalue()


def tokenize(text: str) -> list[_Tok]:
    """Soufflé tokens (comments and whitespace dropped); a stray character is unsupported."""
    out, pos = [], 0
    text = preprocess(text)
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            raise Unsupported("C preprocessor directive")
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise Unsupported(f"unexpected character {text[pos]!r}")
        kind = m.lastgroup
        if kind != "ws":
            out.append(_Tok(kind, m.group(), pos))
        pos = m.end()
    out.append(_Tok("eof", "", pos))
    return out


@dataclass
class SouffleProgram:
    """The translated program plus what the runner needs: inputs to load, outputs to compare."""

    program: DProgram
    types: dict[str, list[str]] = field(default_factory=dict)  # relation → column kinds
    inputs: dict[str, dict[str, str]] = field(default_factory=dict)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    kept_lines: set[int] = field(default_factory=set)  # lenient mode: lines of translated clauses
    records: "RecordTypes | None" = None  # record types (to read record cells of input files)
    printsize: list[str] = field(default_factory=list)  # relations whose size Soufflé prints


class _Parser:
    def __init__(self, text: str, strict: bool = True, typed: bool = True):
        self.strict = strict
        self.typed = typed
        self.toks = tokenize(text)
        if has_components(self.toks):
            self.toks = expand_components(self.toks)
        self.i = 0
        self.types: dict[str, str | None] = dict(_PRIMITIVE)
        self.pending_types: dict[str, list[str]] = {}
        self.out = SouffleProgram(DProgram(empty_aggregate_zero=True))
        self.eqrel: list[str] = []
        self.inline: set[str] = set()
        self.text = text
        self.kept_lines: set[int] = set()  # source lines of the clauses translated
        self.dropped: list[str] = []  # lenient mode: why clauses were left out
        self.records = RecordTypes()  # record types' fields and relations' column types
        for k, t in enumerate(self.toks[:-3]):  # record and ADT types may be used before their .type
            nxt = self.toks[k + 3]
            if t.kind == "dir" and t.text == ".type" and self.toks[k + 2].text == "=" and (
                    nxt.text == "[" or self.toks[k + 4].text == "{"):
                self.types[self.toks[k + 1].text] = "rec"

    # -- token helpers --
    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> _Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def at(self, text: str) -> bool:
        return self.tok.text == text and self.tok.kind in ("op", "id", "dir")

    def expect(self, text: str) -> _Tok:
        if not self.at(text):
            raise Unsupported(f"syntax not understood near {self.tok.text!r} (expected {text!r})")
        return self.next()

    # -- statements --
    def parse(self) -> SouffleProgram:
        while self.tok.kind != "eof":
            if self.tok.kind == "dir":
                self.directive()
            elif self.strict:
                self.clause()
            else:
                self._lenient_clause()
        self._finish()
        return self.out

    def directive(self) -> None:
        d = self.next().text
        if d == ".type":
            self.type_decl()
        elif d == ".decl":
            self.decl()
        elif d in (".input", ".output", ".printsize"):
            self.io(d)
        elif d == ".pragma":
            words = []
            while self.tok.kind == "str":
                words.append(_unquote(self.next().text))
            if words[:1] == ["magic-transform"]:
                self.out.program.goal_directed = True
        elif d == ".plan":
            while self.tok.kind == "num" or self.tok.text in (":", "(", ")", ","):
                self.next()
        elif d in (".comp", ".init", ".override"):
            raise Unsupported("components")
        elif d == ".functor":
            raise Unsupported("user-defined functors")
        elif d == ".limitsize":
            raise Unsupported(".limitsize")
        elif d == ".include":
            raise Unsupported(".include")
        else:
            raise Unsupported(f"directive {d}")

    def type_decl(self) -> None:
        name = self.next().text
        if self.at("<:"):
            self.next()
            base = self.next().text
            self.types[name] = self.types.get(base)
            return
        self.expect("=")
        if self.at("["):  # a record type: [name: type, …] (field types resolved when a pattern reads them)
            self.next()
            self.types[name] = "rec"
            self.records.fields[name] = self._field_types("]")
            return
        if self.peek().text in ("{",):  # an algebraic data type: Branch {fields} | …
            while True:
                branch = self.next().text
                self.expect("{")
                # field 0 of an ADT value is its branch's tag
                self.records.fields[ADT_PREFIX + branch] = [None, *self._field_types("}")]
                if not self.at("|"):
                    break
                self.next()
            self.types[name] = "rec"
            return
        if self.tok.text == "|":
            raise Unsupported("records/ADTs")
        parts = [self.next().text]
        if self.at("{"):
            raise Unsupported("records/ADTs")
        while self.at("|"):
            self.next()
            parts.append(self.next().text)
            if self.at("{"):
                raise Unsupported("records/ADTs")
        kinds = {self.types.get(p) for p in parts}
        self.types[name] = kinds.pop() if len(kinds) == 1 else None

    def _field_types(self, close: str) -> list[str]:
        """The type names of ``name: type, …`` up to and past ``close``."""
        fields = []
        while not self.at(close):
            self.next()  # field name
            self.expect(":")
            fields.append(self.next().text)
            if self.at(","):
                self.next()
        self.next()
        return fields

    def decl(self) -> None:
        names = [self.next().text]
        while self.at(","):
            self.next()
            names.append(self.next().text)
        self.expect("(")
        cols: list[str] = []
        tnames: list[str] = []
        while not self.at(")"):
            self.next()  # attribute name
            self.expect(":")
            tname = self.next().text
            tnames.append(tname)
            if tname not in self.types:
                raise Unsupported(f"type {tname} (records/ADTs or undefined)")
            kind = self.types[tname]
            if kind is None:
                raise Unsupported(f"type {tname} mixes primitive types")
            cols.append(kind)
            if self.at(","):
                self.next()
        self.expect(")")
        while self.tok.kind == "id" and self.tok.text in _QUALIFIERS or self.at("choice"):
            q = self.next().text
            if q == "eqrel":
                self.eqrel.extend(names)
            if q == "inline":
                self.inline.update(names)
            for n in names:
                if q == "output":
                    self.out.outputs[n] = {}
                elif q == "input":
                    self.out.inputs[n] = {}
        if self.at("choice") or (self.tok.kind == "id" and self.tok.text == "choice"):
            raise Unsupported("choice-domain")
        if self.at("-"):
            raise Unsupported("choice-domain")
        for n in names:
            if n in self.out.types:
                raise Unsupported(f"relation {n} declared twice")
            self.out.types[n] = cols
            self.out.program.arity[n] = len(cols)
            self.records.columns[n] = tnames

    def io(self, d: str) -> None:
        names = [self.next().text]
        while self.at(","):
            self.next()
            names.append(self.next().text)
        opts: dict[str, str] = {}
        if self.at("("):
            self.next()
            while not self.at(")"):
                key = self.next().text
                self.expect("=")
                v = self.next()
                opts[key] = _unquote(v.text) if v.kind == "str" else v.text
                if self.at(","):
                    self.next()
            self.expect(")")
        for n in names:
            if d == ".input":
                self.out.inputs[n] = opts
            elif d == ".output":
                self.out.outputs[n] = opts
            elif d == ".printsize":
                self.out.printsize.append(n)

    def _line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def _lenient_clause(self) -> None:
        """A clause, or (when it uses something unsupported) skip to its final '.'."""
        start = self.i
        try:
            self.clause()
        except Unsupported as e:
            self.dropped.append(str(e))
            self.i = start
            while self.tok.kind != "eof" and not (self.tok.kind == "op" and self.tok.text == "."):
                self.next()
            self.next()
            return
        first, last = self._line(self.toks[start].pos), self._line(self.toks[self.i - 1].pos)
        self.kept_lines.update(range(first, last + 1))

    def clause(self) -> None:
        heads = [self.atom()]
        while self.at(","):
            self.next()
            heads.append(self.atom())
        if self.at("<="):
            raise Unsupported("subsumption")
        if self.at("."):
            self.next()
            for h in heads:
                if all(isinstance(a, (DConst, DVar)) for a in h.args) and not self.strict:
                    self.out.program.text_facts.append(h)  # holokb's analysis checks arity and groundness
                elif all(isinstance(a, DConst) for a in h.args):
                    self.out.program.facts.setdefault(h.pred, []).append(h.args)
                elif not any(_walk_vars(a) or aggregates_in(a) for a in h.args):
                    # Soufflé folds constant arithmetic in facts (``a(1 + 2).``): a rule with an empty body
                    self.out.program.rules.append(DRule(h, ()))
                else:
                    raise Unsupported("non-constant argument in a fact")  # an error in Soufflé too
            return
        self.expect(":-")
        body = self.disjunction()
        self.expect(".")
        for h in heads:
            for conj in body:
                self.out.program.rules.append(DRule(h, conj))

    # -- bodies: a disjunction is a tuple of conjunctions --
    def disjunction(self) -> tuple:
        conjs = list(self.conjunction())
        while self.at(";"):
            self.next()
            conjs.extend(self.conjunction())
        return tuple(conjs)

    def conjunction(self) -> list[tuple]:
        acc = [()]
        while True:
            alts = self.literal()
            acc = [a + b for a in acc for b in alts]
            if not self.at(","):
                return acc
            self.next()

    def literal(self) -> list[tuple]:
        if self.at("!"):
            self.next()
            if self.tok.kind == "id" and self.peek().text == "(" and self.tok.text not in _FUNCTORS:
                return [(DNeg(self.atom()),)]
            if self.tok.kind == "id" and self.tok.text in _TESTS and self.peek().text == "(":
                return [(DCmp("=", self.primary(), DConst("bool", False)),)]
            raise Unsupported("negation of a non-atom")
        if self.tok.kind == "id" and self.tok.text in _TESTS and self.peek().text == "(" and self._test_literal():
            return [(DCmp("=", self.primary(), DConst("bool", True)),)]
        if self.at("("):
            save = self.i
            try:
                return [(self.comparison(),)]
            except Unsupported:
                self.i = save
            self.next()
            d = self.disjunction()
            self.expect(")")
            return [tuple(c) for c in d]
        if self.tok.kind == "id" and self.tok.text in ("true", "false") and self.peek().text != "(":
            t = self.next().text
            return [()] if t == "true" else []
        if self.tok.kind == "id" and self.peek().text == "(" and self.tok.text not in _FUNCTORS:
            return [(self.atom(),)]
        return [(self.comparison(),)]

    def comparison(self) -> DCmp:
        left = self.expr()
        op = self.tok.text
        if op not in ("=", "!=", "<", "<=", ">", ">="):
            raise Unsupported(f"syntax not understood near {op!r}")
        self.next()
        return DCmp(op, left, self.expr())

    def atom(self) -> DAtom:
        t = self.next()
        if t.kind != "id":
            raise Unsupported(f"syntax not understood near {t.text!r}")
        if t.text in _FUNCTORS:
            raise Unsupported(f"functor {t.text}")
        if t.text.startswith("__") and not self.typed and self.toks[self.i - 2].text not in (",", "("):
            raise Unsupported(f"functor {t.text}")
        return DAtom(t.text, self.arguments())

    def arguments(self) -> tuple:
        """``( expr, … )``: the expressions between the parentheses."""
        return self._expressions("(", ")")

    def _expressions(self, opening: str, closing: str) -> tuple:
        """``opening expr, … closing``: the comma-separated expressions between the brackets."""
        self.expect(opening)
        out = []
        while not self.at(closing):
            out.append(self.expr())
            if self.at(","):
                self.next()
            elif not self.at(closing):
                raise Unsupported(f"syntax not understood near {self.tok.text!r}")
        self.next()
        return tuple(out)

    # -- expressions (Soufflé's precedences: word operators < + - < * / % < unary - bnot lnot < ^) --
    def expr(self, level: int = 0):
        if level == len(_WORD_LEVELS):
            return self.sum()
        e = self.expr(level + 1)
        while self.tok.kind == "id" and self.tok.text in _WORD_LEVELS[level]:
            op = self.next().text
            if op == "bshru":
                raise Unsupported("operator bshru (unsigned shift: the width of Soufflé's numbers)")
            e = DCall(op, (e, self.expr(level + 1)))
        return e

    def sum(self):
        e = self.term()
        while self.at("+") or self.at("-"):
            op = self.next().text
            e = DBin(op, e, self.term())
        return e

    def term(self):
        e = self.unary()
        while self.at("*") or self.at("/") or self.at("%"):
            op = self.next().text
            e = DBin(op, e, self.unary())  # "/" becomes div() or stays "/" once types are known
        return e

    def unary(self):
        if self.at("-"):
            self.next()
            inner = self.unary()
            if isinstance(inner, DConst) and inner.kind != "sym":
                return DConst(inner.kind, -inner.value)
            return DBin("-", DConst("int", 0), inner)
        if self.tok.kind == "id" and self.tok.text in ("bnot", "lnot"):
            return DCall(self.next().text, (self.unary(),))
        return self.power()

    def power(self):
        base = self.primary()
        if self.at("^"):  # right-associative, and tighter than unary minus: -2^2 = -(2^2)
            self.next()
            return DCall("pow", (base, self.unary()))
        return base

    def primary(self):
        t = self.tok
        if t.kind == "num":
            self.next()
            return _number(t.text)
        if t.kind == "str":
            self.next()
            return DConst("sym", _unquote(t.text))
        if self.at("("):
            self.next()
            e = self.expr()
            self.expect(")")
            return e
        if self.at("$"):  # an ADT value $Branch(args) (a record tagged by its branch) or the $ counter
            self.next()
            if self.tok.kind != "id":
                raise Unsupported("$ counter")
            branch = self.next().text
            args = self.arguments() if self.at("(") else ()
            return DCall("record", (DConst("adt", branch), *args))
        if self.at("["):  # a record: built in a head, a pattern in a body atom (souffle_records)
            return DCall("record", self._expressions("[", "]"))
        if self.at("@"):
            raise Unsupported("user-defined functors")
        if t.kind == "id":
            if t.text in ("count", "sum", "min", "max", "mean") and self.peek().text != "(" or \
                    t.text in ("sum", "min", "max") and self.peek().text == "(" and self._aggregate_ahead():
                return self.aggregate()
            if t.text.startswith("__") and self.peek().text == "(":  # a Nemo head aggregate, kept as a term
                return self.atom()
            if t.text == "nil":
                self.next()
                return NIL
            if self.peek().text == "(" and t.text in _BUILTINS:
                return self.functor()
            if self.peek().text == "(" and t.text == "range":
                self.next()
                return DCall("range", self.arguments())
            if self.peek().text == "(":
                raise Unsupported(f"functor {t.text}")
            if t.text in _WORD_OPS:
                raise Unsupported(f"syntax not understood near {t.text!r}")
            self.next()
            return DVar(t.text)
        raise Unsupported(f"syntax not understood near {t.text!r}")

    def _ranges(self, it):
        """``x = range(a, b[, step])`` of constants → an atom of an auxiliary relation holding the values
        (Soufflé: from a, exclusive of b, step 1 or -1 toward b when omitted; a step away from b gives
        nothing, a step of 0 the start once); inside aggregate bodies too.  Non-constant bounds are not translated."""
        if isinstance(it, DCmp):
            for v, other in ((it.left, it.right), (it.right, it.left)):
                if it.op == "=" and isinstance(v, DVar) and isinstance(other, DCall) and other.func == "range":
                    return DAtom(self._range_relation(other.args), (v,))
            return DCmp(it.op, self._ranges_in(it.left), self._ranges_in(it.right))
        if isinstance(it, DAtom):
            return DAtom(it.pred, tuple(self._ranges_in(a) for a in it.args))
        return it

    def _ranges_in(self, e):
        if isinstance(e, DAgg):
            return DAgg(e.func, e.term, tuple(tuple(self._ranges(i) for i in conj) for conj in e.body))
        if isinstance(e, DCall) and e.func == "range":
            raise Unsupported("range outside an equality x = range(…)")
        return map_children(e, self._ranges_in) if isinstance(e, (DBin, DCall)) else e

    def _range_relation(self, args) -> str:
        from fractions import Fraction

        if not 2 <= len(args) <= 3 or not all(isinstance(a, DConst) and a.kind in ("int", "float") for a in args):
            raise Unsupported("functor range with non-constant bounds")
        kind = "float" if any(a.kind == "float" for a in args) else "int"
        a, b, *step = (Fraction(repr(x.value)) if x.kind == "float" else Fraction(x.value) for x in args)
        d = step[0] if step else (1 if a <= b else -1)
        values = [a] if d == 0 and a != b else []  # a step of 0: the start once (Soufflé's range test)
        if d != 0 and (b - a) / d > 0:
            n = -(-(b - a) // d)  # ceil: the values a + k*d on the way to b, b excluded
            if n > 100_000:
                raise Unsupported("functor range of more than 100,000 values")
            values = [a + k * d for k in range(int(n))]
        name = f"_range{len(self.out.types)}"
        self.out.types[name] = [kind]
        self.out.program.arity[name] = 1
        self.out.program.facts[name] = [(DConst(kind, float(v) if kind == "float" else int(v)),) for v in values]
        return name

    def functor(self) -> DCall:
        name = self.next().text
        args = self.arguments()
        if name == "match" and args and isinstance(args[0], DConst) and ("\\" in str(args[0].value)
                                                                          or "[:" in str(args[0].value)):
            # Soufflé's symbols keep their escapes and std::regex has POSIX classes: not Python's re.
            raise Unsupported("regex dialect (escapes, POSIX classes)")
        return DCall(_BUILTINS[name], args)

    def _test_literal(self) -> bool:
        """``match(a, b)`` stands alone (no comparison operator follows its closing parenthesis)."""
        k = self._closing()
        return k is not None and self.peek(k + 1).text not in ("=", "!=", "<", "<=", ">", ">=")

    def _aggregate_ahead(self) -> bool:
        """``min (x+1) : {...}`` is an aggregate; ``min(x, y)`` is a functor."""
        k = self._closing(comma_ends=True)
        return k is not None and self.peek(k + 1).text == ":"

    def _closing(self, *, comma_ends: bool = False) -> int | None:
        """How far ahead the parenthesis opened next closes; None at the end of the input (or, with
        ``comma_ends``, at a comma directly inside it)."""
        depth, k = 0, 1
        while True:
            t = self.peek(k)
            if t.kind == "eof":
                return None
            if t.text == "(":
                depth += 1
            elif t.text == ")":
                depth -= 1
                if depth == 0:
                    return k
            elif comma_ends and t.text == "," and depth == 1:
                return None
            k += 1

    def aggregate(self) -> DAgg:
        func = self.next().text
        term = None
        if func != "count":
            term = self.expr()
        self.expect(":")
        if self.at("{"):
            self.next()
            body = self.disjunction()
            self.expect("}")
        else:
            body = ((self.atom(),),)
        return DAgg(func, term, body)

    # -- after parsing --
    def _finish(self) -> None:
        prog = self.out.program
        prog.rules = [DRule(r.head, tuple(self._ranges(it) for it in r.body)) for r in prog.rules]
        for n in self.eqrel:
            x, y, z = DVar("x"), DVar("y"), DVar("z")
            prog.rules += [
                DRule(DAtom(n, (x, x)), (DAtom(n, (x, DVar("_"))),)),
                DRule(DAtom(n, (x, x)), (DAtom(n, (DVar("_"), x)),)),
                DRule(DAtom(n, (y, x)), (DAtom(n, (x, y)),)),
                DRule(DAtom(n, (x, z)), (DAtom(n, (x, y)), DAtom(n, (y, z)))),
            ]
        for r in prog.rules:
            # Soufflé substitutes an inline relation into its callers, so its rules need not be range
            # restricted (``a2(x, y) :- x = y.``); holokb materialises every relation.
            if r.head.pred in self.inline and set(_expr_vars_of(r.head)) - set(_positive_vars(r.body)):
                raise Unsupported("inline relation defined by a rule that is not range restricted")
        if not self.typed:
            return
        types = self.out.types
        used = {a.pred for r in prog.rules for a in _atoms(r)} | set(prog.facts) | set(self.out.inputs) \
            | set(self.out.outputs)
        prog.declared = dict(prog.arity)
        if not self.strict:  # semantic tests: leave undeclared relations and arity clashes to holokb
            return
        for p in sorted(used):
            if p not in types:
                raise Unsupported(f"undeclared relation {p}")
        # Constants follow their column's type (1 in a float column is 1.0) and facts must fit.
        prog.facts = {p: [tuple(_coerce(c, k) for c, k in zip(row, types[p])) for row in rows]
                      for p, rows in prog.facts.items()}
        for p, rows in prog.facts.items():
            if any(len(r) != len(types[p]) for r in rows):
                raise Unsupported("fact arity differs from its declaration")
        self.records.kinds = dict(self.types)
        self.out.records = self.records
        prog.rules = [_typed_rule(r, types, self.records) for r in prog.rules]
        prog.outputs = sorted(set(self.out.outputs) | set(self.out.printsize))


def _atoms(r: DRule):
    yield r.head
    for it in r.body:
        if isinstance(it, DAtom):
            yield it
        elif isinstance(it, DNeg):
            yield it.atom
    for it in r.body:
        yield from _agg_atoms(it)


def _agg_atoms(x):
    if isinstance(x, DCmp):
        yield from _agg_atoms(x.left)
        yield from _agg_atoms(x.right)
    elif isinstance(x, DBin):
        yield from _agg_atoms(x.left)
        yield from _agg_atoms(x.right)
    elif isinstance(x, DAgg):
        for conj in x.body:
            for it in conj:
                if isinstance(it, DAtom):
                    yield it
                elif isinstance(it, DNeg):
                    yield it.atom
                yield from _agg_atoms(it)
    elif isinstance(x, DAtom):
        for a in x.args:
            yield from _agg_atoms(a)


def _coerce(c, kind: str):
    if not isinstance(c, DConst):
        return c
    if kind == "float" and c.kind == "int":
        return DConst("float", float(c.value))
    if (kind == "sym") != (c.kind == "sym"):
        raise Unsupported("constant of the wrong type")
    return c


def _typed_rule(r: DRule, types: dict[str, list[str]], records: RecordTypes | None = None) -> DRule:
    """Coerce constants in atoms to their column type; reject ordering comparisons on symbols."""
    var_kind: dict[str, str] = {}
    if records is not None and has_records(r.body):
        body, field_kinds = expand_records(r.body, records)
        r = DRule(r.head, body)
        var_kind.update(field_kinds)

    def atom(a: DAtom) -> DAtom:
        kinds = types[a.pred]
        if len(kinds) != len(a.args):
            raise Unsupported("atom arity differs from its declaration")
        args = []
        for t, k in zip(a.args, kinds):
            if isinstance(t, DVar):
                var_kind.setdefault(t.name, k)
            args.append(_coerce(t, k) if isinstance(t, DConst) else t)
        return DAtom(a.pred, tuple(args))

    def item(it):
        if isinstance(it, DAtom):
            return atom(it)
        if isinstance(it, DNeg):
            return DNeg(atom(it.atom))
        if isinstance(it, DCmp):
            return DCmp(it.op, expr(it.left), expr(it.right))
        return it

    def expr(e):
        if isinstance(e, DAgg):
            return DAgg(e.func, e.term if e.term is None else expr(e.term),
                        tuple(tuple(item(i) for i in conj) for conj in e.body))
        if isinstance(e, DBin):
            return DBin(e.op, expr(e.left), expr(e.right))
        if isinstance(e, DCall):
            return DCall(e.func, tuple(expr(a) for a in e.args))
        return e

    body = tuple(item(i) for i in r.body)
    head = atom(r.head)

    inferring: set[str] = set()

    def kind(e) -> str | None:
        if isinstance(e, DConst):
            return e.kind
        if isinstance(e, DVar):
            if e.name not in var_kind and e.name not in inferring:  # bound by ``x = expr``: expr's kind
                inferring.add(e.name)
                for it in body:
                    if isinstance(it, DCmp) and it.op == "=":
                        for v, other in ((it.left, it.right), (it.right, it.left)):
                            if isinstance(v, DVar) and v.name == e.name and kind(other) is not None:
                                var_kind[e.name] = kind(other)
                                break
                    if e.name in var_kind:
                        break
                inferring.discard(e.name)
            return var_kind.get(e.name)
        if isinstance(e, DBin):
            ks = {kind(e.left), kind(e.right)}
            return "float" if "float" in ks else ("sym" if "sym" in ks else "int")
        if isinstance(e, DAgg):
            return "int" if e.func == "count" else "float" if e.func == "mean" else kind(e.term)
        if isinstance(e, DCall):
            if e.func == "record":
                return "rec"
            if e.func == "field":
                return None  # a field's kind comes from the record type (souffle_records seeds it)
            if e.func == "pow":
                return "float" if "float" in (kind(e.args[0]), kind(e.args[1])) else kind(e.args[0])
            return {"concat": "sym", "substr": "sym", "to_string": "sym", "strlen": "int", "to_number": "int",
                    "div": "int", "contains": "bool", "match": "bool", "to_float": "float",
                    "to_integer": "int"}.get(e.func) or ("int" if e.func in _INT_FUNCS else kind(e.args[0]))
        return None

    def check(it):
        if isinstance(it, DCmp) and it.op not in ("=", "!=") and "sym" in (kind(it.left), kind(it.right)):
            raise Unsupported("ordering comparison on symbols")
        if isinstance(it, DCmp) and it.op not in ("=", "!=") and "rec" in (kind(it.left), kind(it.right)):
            raise Unsupported("ordering comparison on records")
        if isinstance(it, DCmp):
            for side in (it.left, it.right):
                if isinstance(side, DAgg):
                    for conj in side.body:
                        for i in conj:
                            check(i)
        if isinstance(it, DCmp) and any(isinstance(s, DBin) and kind(s) == "sym" for s in (it.left, it.right)):
            raise Unsupported("arithmetic on symbols")

    # Division: Soufflé's "/" truncates on integers (holokb's div) and is exact on floats.
    body = tuple(_divisions(i, kind) for i in body)
    head = _divisions(head, kind)
    # + on symbols is concatenation in Soufflé; "arithmetic on symbols" below checks comparisons only.
    body = tuple(_symbol_plus(_float_to_string(i, kind), kind) for i in body)
    head = _symbol_plus(_float_to_string(head, kind), kind)
    # to_number of a number (Soufflé overloads it: a float truncates toward zero) is holokb's to_integer.
    body = tuple(_numeric_to_number(i, kind) for i in body)
    head = _numeric_to_number(head, kind)
    for it in body:
        check(it)
    return DRule(head, body)


def _expr_vars_of(a: DAtom) -> list[str]:
    return [v for t in a.args for v in _walk_vars(t)]


def _walk_vars(e) -> list[str]:
    if isinstance(e, DVar):
        return [] if e.name == "_" else [e.name]
    if isinstance(e, (DBin,)):
        return _walk_vars(e.left) + _walk_vars(e.right)
    if isinstance(e, DCall):
        return [v for a in e.args for v in _walk_vars(a)]
    return []


def _positive_vars(body) -> list[str]:
    return [v for it in body if isinstance(it, DAtom) for t in it.args for v in _walk_vars(t)]


def _divisions(x, kind):
    """``x`` (an item or expression) with every ``/`` between non-floats rewritten to ``div``."""
    if isinstance(x, DBin) and x.op == "/" and "float" not in (kind(x.left), kind(x.right)):
        return DCall("div", (_divisions(x.left, kind), _divisions(x.right, kind)))
    return map_children(x, lambda c: _divisions(c, kind))


def _float_to_string(x, kind):
    if isinstance(x, DCall) and x.func == "to_string" and x.args and kind(x.args[0]) == "float":
        raise Unsupported("to_string of a float (Soufflé prints C's %f: 3.140000)")
    return map_children(x, lambda c: _float_to_string(c, kind))


def _symbol_plus(x, kind):
    if isinstance(x, DBin) and x.op == "+" and "sym" in (kind(x.left), kind(x.right)):
        return DCall("concat", (_symbol_plus(x.left, kind), _symbol_plus(x.right, kind)))
    return map_children(x, lambda c: _symbol_plus(c, kind))


def _numeric_to_number(x, kind):
    if isinstance(x, DCall) and x.func == "to_number" and len(x.args) == 1 and kind(x.args[0]) in ("float", "int"):
        return DCall("to_integer", (_numeric_to_number(x.args[0], kind),))
    return map_children(x, lambda c: _numeric_to_number(c, kind))


def _number(text: str) -> DConst:
    t = text[:-1] if text.endswith("u") else text
    if t.startswith("0x"):
        return DConst("int", int(t, 16))
    if t.startswith("0b"):
        return DConst("int", int(t, 2))
    if any(ch in t for ch in ".eE"):
        return DConst("float", float(t))
    return DConst("int", int(t))


def _unquote(s: str) -> str:
    # Soufflé keeps a symbol's escape sequences as written, except for the quotes themselves.
    return s[1:-1]


def parse_souffle(text: str, *, strict: bool = True) -> SouffleProgram:
    """Translate Soufflé source; raise :class:`Unsupported` with the first feature holokb lacks.

    ``strict=False`` (for programs that must be rejected) keeps undeclared relations, arity
    clashes and non-ground facts for holokb's analysis to find.
    """
    p = _Parser(text, strict)
    out = p.parse()
    out.kept_lines = p.kept_lines
    return out


def parse_clauses(text: str) -> DProgram:
    """Untyped Soufflé-style clauses (no ``.decl``): rules and facts only, constants as written."""
    p = _Parser(text, strict=True, typed=False)
    return p.parse().program
