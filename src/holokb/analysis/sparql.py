"""Rules → SPARQL 1.1 Update: ``INSERT { head } WHERE { body }`` per rule (closure on a remote
SPARQL engine).

Binary atoms become triple patterns; comparisons become FILTER, assignments BIND, negation
FILTER NOT EXISTS.  Rules with aggregates, negative (``not``) heads or non-binary atoms have
no faithful translation and are rejected (or skipped with ``skip_unsupported=True``).
Apply the updates of each stratum (``to_sparql_update_strata``) repeatedly until the graph
stops growing before moving to the next stratum.
"""
from __future__ import annotations

from ..core.errors import Diagnostic, RuleAnalysisError
from ..core.terms import IRI, RDF_LANGSTRING, XSD_STRING, Literal, Term
from .program import Aggregate, Assignment, Atom, BinOp, Call, Comparison, Const, Expr, Negation, Program, Rule, Var
from .render import escape_string


def _term(t: Term) -> str:
    if isinstance(t, IRI):
        return f"<{t.value}>"
    assert isinstance(t, Literal)
    s = escape_string(t.lexical)
    if t.datatype == RDF_LANGSTRING and t.lang:
        return f"{s}@{t.lang}"
    if t.datatype == XSD_STRING:
        return s
    return f"{s}^^<{t.datatype}>"


def _expr(e: Expr) -> str:
    if isinstance(e, Var):
        return f"?{e.name}"
    if isinstance(e, Const):
        return _term(e.term)
    assert isinstance(e, BinOp) and e.op != "%", e  # _unsupported keeps calls and % out
    return f"({_expr(e.left)} {e.op} {_expr(e.right)})"


def _triple(a: Atom) -> str:
    s, o = (_expr(t) for t in a.args)
    return f"{s} <{a.predicate}> {o} ."


def _unsupported(r: Rule) -> str | None:
    if r.head is None:
        return "it is a constraint"
    if r.head.negated:
        return "its head is a negative fact"
    atoms = [r.head]
    for b in r.body:
        if isinstance(b, Aggregate):
            return "it has an aggregate"
        if isinstance(b, Atom):
            atoms.append(b)
        elif isinstance(b, Negation):
            atoms.append(b.atom)
    for a in atoms:
        if a.arity != 2:
            return f"<{a.predicate}> has {a.arity} argument(s); only binary predicates are triples"
    for b in r.body:
        exprs = (b.left, b.right) if isinstance(b, Comparison) else (b.expr,) if isinstance(b, Assignment) else ()
        for e in exprs:
            if _untranslatable(e):
                return "it uses a built-in function or % (SPARQL's functions differ in edge cases)"
    return None


def _untranslatable(e: Expr) -> bool:
    if isinstance(e, Call):
        return True
    if isinstance(e, BinOp):
        return e.op == "%" or _untranslatable(e.left) or _untranslatable(e.right)
    return False


def rule_to_sparql(r: Rule) -> str:
    """One ``INSERT { } WHERE { }`` update for a translatable rule."""
    where: list[str] = []
    for b in r.body:
        match b:
            case Atom():
                where.append(_triple(b))
            case Negation(atom):
                where.append(f"FILTER NOT EXISTS {{ {_triple(atom)} }}")
            case Comparison(op, left, right):
                where.append(f"FILTER ({_expr(left)} {op} {_expr(right)})")
            case Assignment(target, expr):
                where.append(f"BIND ({_expr(expr)} AS ?{target.name})")
    assert r.head is not None
    body = "\n  ".join(where)
    return f"# rule {r.name}\nINSERT {{ {_triple(r.head)} }}\nWHERE {{\n  {body}\n}}"


def to_sparql_update_strata(program: Program, *, skip_unsupported: bool = False) -> list[list[str]]:
    """Updates grouped by stratum, lowest first (run each group to a fixpoint in turn)."""
    problems: list[Diagnostic] = []
    out: list[list[str]] = []
    for stratum in program.strata:
        group = []
        for i in stratum:
            r = program.rules[i]
            why = _unsupported(r)
            if why is None:
                group.append(rule_to_sparql(r))
            elif not skip_unsupported:
                problems.append(Diagnostic("HK220", f"rule '{r.name}' has no SPARQL translation: {why}", r.origin))
        if group:
            out.append(group)
    if problems:
        raise RuleAnalysisError(f"{len(problems)} rule(s) cannot be written as SPARQL Update", tuple(problems))
    return out


def to_sparql_update(program: Program, *, skip_unsupported: bool = False) -> list[str]:
    """SPARQL 1.1 ``INSERT { head } WHERE { body }`` per rule, in stratum order."""
    return [u for group in to_sparql_update_strata(program, skip_unsupported=skip_unsupported) for u in group]
