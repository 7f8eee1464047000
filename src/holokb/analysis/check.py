"""``analyze(module) -> Program``: every check runs, all diagnostics are raised once.

:func:`analyze` lowers a parsed module (AST) to the checked IR; :func:`check_program` checks a
program built in code (rewritings such as magic sets, tests, benchmarks) with the same stratifier.
A :class:`Program` is the engine's only input, and only these two functions mark one ``checked``.

Codes (stable): HK201 unsafe head variable, HK202 unbound variable under ``not``, HK203 unbound
variable in a comparison, HK204 aggregate target already bound, HK205 arity mismatch, HK206
undeclared predicate, HK207 argument type mismatch, HK208 cycle through negation, HK209 cycle
through an aggregate, HK210 duplicate rule name, HK211 weight outside (0, 1], HK212 depth < 1,
HK213 conflicting vocabulary declarations, HK214 malformed aggregate, HK215 variable in a fact.
"""
from __future__ import annotations

import difflib
from dataclasses import replace
import hashlib
from collections.abc import Iterable, Mapping

from ..core.errors import Diagnostic, Location, RuleAnalysisError
from ..core.terms import IRI, INTEGER_TYPES, RDF_TYPE, XSD_DECIMAL, XSD_INTEGER, Literal
from ..syntax.module import Module
from .program import Aggregate, Atom, Const, Negation, PredicateDecl, Program, Query, Rule, Var, body_atoms
from .render import Names, render
from .safety import check_body
from .stratify import CLASS_SEP, NegativeCycle, stratify


class _Reporter:
    def __init__(self, module: Module):
        self.module = module
        self.diagnostics: list[Diagnostic] = []
        self.names = Names(module.prefixes)

    def __call__(self, code: str, message: str, loc: Location | None, *, hint: str | None = None,
                 notes: tuple[str, ...] = ()) -> None:
        self.diagnostics.append(Diagnostic(code, message, loc, hint, "error", self.module.source_line(loc), notes))

    def raise_if_any(self) -> None:
        if self.diagnostics:
            diags = sorted(self.diagnostics, key=_diag_order)
            raise RuleAnalysisError(f"{len(diags)} problem(s) in the rules; first: {diags[0].message}", tuple(diags))

    def show(self, predicate: str) -> str:
        return self.names.iri(predicate)


def analyze(module: Module, *, rdf_types: bool = True,
            known_predicates: Mapping[str, int] | Iterable[str] | None = None) -> Program:
    """Check a parsed module and compile it to a :class:`Program`; raise :class:`RuleAnalysisError`
    with every diagnostic when anything is wrong.

    ``rdf_types=True`` (the KB mode) rewrites unary atoms ``ex:C(?x)`` to ``rdf:type(?x, ex:C)``.
    ``known_predicates`` (IRI → arity, or just IRIs) are accepted even if the vocabulary omits them.
    """
    report = _Reporter(module)
    vocab = _vocabulary(module.declarations, report)
    known: dict[str, int | None] = {}
    if isinstance(known_predicates, Mapping):
        known.update(known_predicates)
    elif known_predicates is not None:
        known.update((p, None) for p in known_predicates)
    _check_atoms(module, vocab, known, rdf_types, report)

    rules: list[Rule] = []
    constraints: list[Rule] = []
    first_name: dict[str, Rule] = {}
    for r in module.rules:
        kind = "constraint" if r.head is None else "rule"
        what = f"{kind} '{r.name}'"
        if r.name in first_name:
            report("HK210", f"duplicate rule name '{r.name}'", r.origin, hint="give every rule a unique name",
                   notes=(f"first defined at {first_name[r.name].origin}",))
        else:
            first_name[r.name] = r
        if not (0.0 < r.weight <= 1.0):
            report("HK211", f"weight {r.weight!r} of {what} is outside (0, 1]", r.origin,
                   hint="a weight is a confidence factor, e.g. [weight 0.9]")
        if r.depth is not None and r.depth < 1:
            report("HK212", f"depth {r.depth} of {what} must be at least 1", r.origin)
        checked = check_body(r.body, r.head, what, report)
        body = tuple(_normalise_item(b, rdf_types) for b in checked.body)
        head = _normalise(r.head, rdf_types) if r.head is not None else None
        out = Rule(r.name, head, body, r.weight, r.depth, r.origin)
        (constraints if head is None else rules).append(out)

    queries: list[Query] = []
    for q in module.queries:
        checked = check_body(q.body, None, "the query", report)
        queries.append(Query(tuple(_normalise_item(b, rdf_types) for b in checked.body), q.variables, q.origin))

    facts: list[Atom] = []
    for f in module.facts:
        vs = [t for t in f.args if isinstance(t, Var)]
        if vs:
            shown = ", ".join(sorted({"?_" if v.anonymous else f"?{v.name}" for v in vs}))
            report("HK215", f"fact {report.show(f.predicate)} contains the variable {shown}", f.origin,
                   hint="facts are ground; to derive facts for all values write a rule")
        facts.append(_normalise(f, rdf_types))

    strata, cycles = stratify(tuple(rules))
    for c in cycles:
        _report_cycle(c, tuple(rules), report)
    report.raise_if_any()
    return _sealed(Program(tuple(rules), tuple(constraints), tuple(queries), vocab, strata, module.prefixes, "",
                           tuple(facts)))


def check_program(rules: tuple[Rule, ...], *, constraints: tuple[Rule, ...] = (), queries: tuple[Query, ...] = (),
                  vocabulary: Mapping[str, PredicateDecl] | None = None, prefixes: tuple[tuple[str, str], ...] = (),
                  facts: tuple[Atom, ...] = ()) -> Program:
    """A checked :class:`Program` from IR built in code: stratified by the one stratifier, and
    :class:`RuleAnalysisError` (HK208/HK209) when negation or an aggregate is recursive.

    The rules must already be IR (assignments resolved, aggregates grouped), as rewritings of a
    checked program are; rule text goes through :func:`analyze` instead.

    >>> from holokb.analysis.program import Atom, Rule, Var
    >>> r = Rule("r", Atom("http://x/p", (Var("a"),)), (Atom("http://x/q", (Var("a"),)),))
    >>> check_program((r,)).strata, check_program((r,)).checked
    (((0,),), True)
    """
    report = _Reporter(Module(None, prefixes))
    rules = tuple(rules)
    strata, cycles = stratify(rules)
    for c in cycles:
        _report_cycle(c, rules, report)
    report.raise_if_any()
    return _sealed(Program(rules, tuple(constraints), tuple(queries), dict(vocabulary or {}), strata, prefixes, "",
                           tuple(facts)))


def _sealed(program: Program) -> Program:
    """``program`` with its rule-set hash, marked checked (the engine's precondition)."""
    digest = hashlib.sha256(render(program, prefixes=False, queries=False).encode("utf-8")).hexdigest()
    out = Program(program.rules, program.constraints, program.queries, program.vocabulary, program.strata,
                  program.prefixes, digest, program.facts)
    object.__setattr__(out, "checked", True)
    return out


def _diag_order(d: Diagnostic) -> tuple:
    loc = d.location
    return (loc.file or "", loc.line, loc.column, d.code) if loc else ("", 0, 0, d.code)


def _vocabulary(decls: tuple[PredicateDecl, ...], report: _Reporter) -> dict[str, PredicateDecl]:
    vocab: dict[str, PredicateDecl] = {}
    for d in decls:
        prev = vocab.get(d.predicate)
        if prev is None:
            vocab[d.predicate] = d
        elif (prev.arity, prev.arg_types, prev.functional) != (d.arity, d.arg_types, d.functional):
            report("HK213", f"{report.show(d.predicate)} is declared twice, differently", d.origin,
                   hint="keep one declaration", notes=(f"first declared at {prev.origin}",))
    return vocab


def _atoms_in_order(module: Module):
    for r in module.rules:
        if r.head is not None:
            yield r.head
        yield from body_atoms(r.body)
    yield from module.facts
    for q in module.queries:
        yield from body_atoms(q.body)


def _check_atoms(module: Module, vocab: dict[str, PredicateDecl], known: dict[str, int | None],
                 rdf_types: bool, report: _Reporter) -> None:
    """Vocabulary (HK206), arity (HK205) and argument types (HK207), each atom in source order."""
    has_vocab = bool(vocab)
    first_use: dict[str, Atom] = {}
    undeclared_seen: set[str] = set()
    candidates = sorted({report.show(p) for p in list(vocab) + list(known)})
    for a in _atoms_in_order(module):
        p = a.predicate
        decl = vocab.get(p)
        builtin = rdf_types and p == RDF_TYPE
        if has_vocab and decl is None and p not in known and not builtin:
            if p not in undeclared_seen:
                undeclared_seen.add(p)
                shown = report.show(p)
                close = difflib.get_close_matches(shown, candidates, n=1, cutoff=0.6)
                hint = f"did you mean {close[0]}?" if close else f"add {shown}/{a.arity} to the vocabulary"
                report("HK206", f"predicate {shown} is not declared in the vocabulary", a.origin, hint=hint)
            continue
        expected = decl.arity if decl is not None else (2 if builtin else known.get(p))
        if expected is None:
            prev = first_use.setdefault(p, a)
            if prev.arity != a.arity:
                report("HK205", f"{report.show(p)} is used with {a.arity} argument(s) here but {prev.arity} before",
                       a.origin, notes=(f"first used at {prev.origin}",),
                       hint="a predicate has one arity; use a different name for the other relation")
        elif expected != a.arity:
            where = f"declared at {decl.origin}" if decl is not None else "known to the KB"
            report("HK205", f"{report.show(p)} takes {expected} argument(s), {a.arity} given", a.origin,
                   notes=(where,))
        if decl is not None and decl.arg_types and len(decl.arg_types) == a.arity:
            for i, (t, want) in enumerate(zip(a.args, decl.arg_types)):
                if isinstance(t, Const) and want is not None and not _fits(t, want):
                    report("HK207", f"argument {i + 1} of {report.show(p)} must be {_type_word(want, report)}, "
                           f"got {_term_word(t, report)}", a.origin, notes=(f"declared at {decl.origin}",))


def _fits(c: Const, want: str) -> bool:
    t = c.term
    if want == "iri":
        return isinstance(t, IRI)
    if want == "literal":
        return isinstance(t, Literal)
    if not isinstance(t, Literal):
        return False
    if t.datatype == want:
        return True
    if want == XSD_INTEGER or want == XSD_DECIMAL:  # the numeric tower: integers are decimals
        return t.datatype in INTEGER_TYPES or (want == XSD_DECIMAL and t.datatype == XSD_DECIMAL)
    return want in INTEGER_TYPES and t.datatype in INTEGER_TYPES


def _type_word(want: str, report: _Reporter) -> str:
    return {"iri": "an IRI", "literal": "a literal"}.get(want) or f"a {report.show(want)} literal"


def _term_word(c: Const, report: _Reporter) -> str:
    t = c.term
    if isinstance(t, IRI):
        return f"the IRI {report.show(t.value)}"
    return f"{report.show(t.datatype)} literal \"{t.lexical}\""


def _normalise(a: Atom, rdf_types: bool) -> Atom:
    if rdf_types and len(a.args) == 1:
        return Atom(RDF_TYPE, (a.args[0], Const(IRI(a.predicate))), a.negated, a.origin)
    return a


def _normalise_item(b, rdf_types: bool):
    if not rdf_types:
        return b
    if isinstance(b, Atom):
        return _normalise(b, True)
    if isinstance(b, Negation):
        return Negation(_normalise(b.atom, True), b.origin)
    if isinstance(b, Aggregate):
        return replace(b, body=tuple(_normalise(a, True) for a in b.body))
    return b


def _key_text(key: tuple[str, bool], report: _Reporter) -> str:
    name, negated = key
    shown = report.show(name.split(CLASS_SEP, 1)[1]) if CLASS_SEP in name else report.show(name)
    return ("not " if negated else "") + shown


def _report_cycle(c: NegativeCycle, rules: tuple[Rule, ...], report: _Reporter) -> None:
    steps = []
    for e in c.edges:
        kind = "not " if e.negative else ""
        steps.append(f"{_key_text(e.head, report)} needs {kind}{_key_text(e.body, report)}")
    names = ("rule " if len(c.rules) == 1 else "rules ") + ", ".join(f"'{rules[i].name}'" for i in c.rules)
    code, why = ("HK209", "an aggregate") if c.via_aggregate else ("HK208", "negation")
    first = rules[c.rules[0]]
    notes = tuple(f"rule '{rules[i].name}' at {rules[i].origin}" for i in c.rules)
    report(code, f"{names} {'is' if len(c.rules) == 1 else 'are'} recursive through {why}: " + "; ".join(steps), first.origin,
           hint="a predicate may not depend on its own negation or aggregate; split it into two predicates "
           "or drop the cycle", notes=notes)
