"""A second, reference backend: the same Program run by pyDatalog in a child process.

Used for differential tests (native closure == pyDatalog on the same program and facts).  The
program is compiled to Python source text that *we* generate: predicates become ``p0, p1, ...``,
variables ``V0, V1, ...``, and constants are either Python ints (``xsd:integer`` literals, so
that comparisons mean the same as in the engine) or opaque string tokens ``'t0', 't1', ...``.
No user-supplied text ever reaches the child: IRIs and literal forms stay in this process, and
the facts travel as JSON on stdin.  pyDatalog keeps global state and can run for a very long
time (measured here: a 6-rule RDFS program over 555 triples never finished), so every run has
a wall-clock timeout and the child is killed when it passes.

Supported: positive rules with any number of premises, recursion, stratified negation as
failure (a negated atom with unbound or anonymous variables is projected through an auxiliary
predicate first, since pyDatalog wants negated literals ground), comparisons ``= != < <= > >=``
(ordering comparisons only between integers), constants in heads and bodies, negative facts
(polarity ``negate`` is its own predicate).
Not supported (``UnsupportedProgram``): aggregates, assignments and arithmetic, nullary atoms;
constraints and queries are ignored.  Validity intervals, weights, depths and proofs have no
meaning here: the result is the set of args per derived relation.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass

from ..analysis.program import Aggregate, Assignment, Atom, Comparison, Const, Negation, Program, Var
from ..core.terms import XSD_INTEGER, Literal, Term
from .database import Database, RelKey

_OPS = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


class UnsupportedProgram(ValueError):
    """The program uses a construct the pyDatalog backend cannot express."""


@dataclass(frozen=True, slots=True)
class PydatalogResult:
    """Derived relations (args sets per rule-head relation), or ``timed_out`` with no relations."""

    relations: dict
    timed_out: bool
    seconds: float


@dataclass(frozen=True, slots=True)
class CompiledProgram:
    """Generated child source plus the tables that map safe names back to ours."""

    source: str
    heads: tuple[tuple[RelKey, str, int], ...]  # (relation key, safe name, arity) of derived relations
    names: dict  # relation key -> safe predicate name
    tokens: tuple  # index -> Term for string tokens


class _Encoder:
    def __init__(self) -> None:
        self.tokens: list[Term] = []
        self._token_of: dict[Term, str] = {}

    def value(self, t: Term):
        if isinstance(t, Literal) and t.datatype == XSD_INTEGER and type(t.value) is int:
            return t.value
        tok = self._token_of.get(t)
        if tok is None:
            tok = f"t{len(self.tokens)}"
            self._token_of[t] = tok
            self.tokens.append(t)
        return tok

    def decode(self, v) -> Term:
        if isinstance(v, int):
            return Literal.of(v)
        return self.tokens[int(v[1:])]


def _check(program: Program) -> None:
    for r in program.rules:
        if r.head.arity == 0:
            raise UnsupportedProgram(f"rule {r.name}: nullary head atom")
        for b in r.body:
            if isinstance(b, (Aggregate, Assignment)):
                raise UnsupportedProgram(f"rule {r.name}: {type(b).__name__.lower()}s are not supported")
            if isinstance(b, Comparison) and not all(isinstance(x, (Var, Const)) for x in (b.left, b.right)):
                raise UnsupportedProgram(f"rule {r.name}: arithmetic is not supported")
            atom = b.atom if isinstance(b, Negation) else b
            if isinstance(atom, Atom) and atom.arity == 0:
                raise UnsupportedProgram(f"rule {r.name}: nullary atom {atom.predicate}")


def compile_program(program: Program, enc: _Encoder | None = None) -> tuple[CompiledProgram, _Encoder]:
    """Translate ``program`` to the child's Python source (pyDatalog clauses over safe names)."""
    _check(program)
    enc = enc or _Encoder()
    names: dict[RelKey, str] = {}
    arities: dict[str, int] = {}

    def pred(rk: RelKey, arity: int) -> str:
        if rk not in names:
            names[rk] = f"p{len(names)}"
            arities[names[rk]] = arity
        return names[rk]

    lines: list[str] = []
    aux = 0
    variables: set[str] = set()
    for r in program.rules:
        vmap: dict[str, str] = {}

        def term(t) -> str:
            if isinstance(t, Var):
                if t.name not in vmap:
                    vmap[t.name] = f"V{len(vmap)}"
                return vmap[t.name]
            return repr(enc.value(t.term))

        def atom(a: Atom) -> str:
            return f"{pred((a.predicate, a.negated), a.arity)}({', '.join(term(x) for x in a.args)})"

        pos = [b for b in r.body if isinstance(b, Atom)]
        body = [atom(a) for a in pos]
        bound = {x.name for a in pos for x in a.args if isinstance(x, Var)}
        for c in (b for b in r.body if isinstance(b, Comparison)):
            body.append(f"({term(c.left)} {_OPS[c.op]} {term(c.right)})")
        for n in (b for b in r.body if isinstance(b, Negation)):
            a = n.atom
            free = [x for x in a.args if isinstance(x, Var) and x.name not in bound]
            if free:
                # pyDatalog needs ground negated literals: ∄y p(x, y) becomes aux(x) :- p(x, y).
                keep = sorted({x.name for x in a.args if isinstance(x, Var) and x.name in bound})
                name = f"a{aux}"
                aux += 1
                local = {v: f"V{i}" for i, v in enumerate(dict.fromkeys(
                    x.name for x in a.args if isinstance(x, Var)))}
                inner = ", ".join(local[x.name] if isinstance(x, Var) else repr(enc.value(x.term)) for x in a.args)
                head_args = ", ".join(local[v] for v in keep) if keep else "'u'"
                variables.update(local.values())
                arities[name] = max(len(keep), 1)
                lines.append(f"{name}({head_args}) <= {pred((a.predicate, a.negated), a.arity)}({inner})")
                body.append(f"~{name}({', '.join(term(Var(v)) for v in keep) if keep else repr('u')})")
            else:
                body.append(f"~{atom(a)}")
        head = atom(r.head)
        variables.update(vmap.values())
        lines.append(f"{head} <= {' & '.join(body)}")
    heads, seen = [], set()
    for r in program.rules:
        rk = (r.head.predicate, r.head.negated)
        if rk not in seen:
            seen.add(rk)
            heads.append((rk, names[rk], r.head.arity))
    preds = list(names.values()) + [f"a{i}" for i in range(aux)]
    terms = sorted(variables | {f"V{i}" for _, _, n in heads for i in range(n)}) + preds
    src = _CHILD.format(terms=", ".join(terms), rules="\n".join(lines),
                        heads=repr([(n, k) for _, n, k in heads]), arities=repr(sorted(arities.items())))
    return CompiledProgram(src, tuple(heads), dict(names), tuple(enc.tokens)), enc


_CHILD = '''import json, sys
from pyDatalog import pyDatalog
pyDatalog.create_terms({terms!r})
data = json.load(sys.stdin)
for name, arity in {arities}:  # define every predicate: pyDatalog rejects asking an unknown one
    pyDatalog.assert_fact(name, *["_"] * arity)
    pyDatalog.retract_fact(name, *["_"] * arity)
for name, args in data:
    pyDatalog.assert_fact(name, *args)
{rules}
out = {{}}
for name, arity in {heads}:
    ans = pyDatalog.ask(name + "(" + ", ".join("V%d" % i for i in range(arity)) + ")")
    out[name] = sorted(ans.answers, key=repr) if ans is not None else []
json.dump(out, sys.stdout)
'''


def run_pydatalog(program: Program, db: Database, *, timeout_s: float = 30.0) -> PydatalogResult:
    """Closure of ``program`` over ``db`` by pyDatalog in a child process, killed after ``timeout_s``."""
    enc = _Encoder()
    compiled, enc = compile_program(program, enc)
    names = dict(compiled.names)
    facts = []
    for (predicate, negated), args in db.items():
        rk = (predicate, negated)
        if rk not in names:  # a relation no rule reads or derives
            continue
        facts.append([names[rk], [enc.value(a) for a in args]])
    t0 = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-c", compiled.source], input=json.dumps(facts),
                              capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return PydatalogResult({}, True, time.monotonic() - t0)
    seconds = time.monotonic() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"pyDatalog child failed:\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout)
    rels = {}
    for rk, name, _ in compiled.heads:
        rels[rk] = {tuple(enc.decode(v) for v in row) for row in out[name]}
    return PydatalogResult(rels, False, seconds)


__all__ = ["CompiledProgram", "PydatalogResult", "UnsupportedProgram", "compile_program", "run_pydatalog"]
