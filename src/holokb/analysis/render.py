"""Canonical rule text for a :class:`Program`: re-parseable, one statement per line.

``analyze(parse_rules(render(p)))`` equals ``p`` apart from origins.  Layout: prefixes,
vocabulary, facts, rules, constraints, queries — each in program order.  Literals keep their
lexical form (bare for plain integers, decimals, doubles and booleans; typed otherwise).
"""
from __future__ import annotations

import re

from ..core.terms import (
    IRI, OWL, RDF, RDF_LANGSTRING, RDFS, XSD, XSD_BOOLEAN, XSD_DECIMAL, XSD_DOUBLE, XSD_INTEGER, XSD_STRING, Literal,
    Term,
)
from .program import (
    Aggregate, Assignment, Atom, BodyItem, Call, Comparison, Const, Expr, Negation, PredicateDecl, Program, Query,
    Rule, Var,
)

_STANDARD = {"owl": OWL, "rdf": RDF, "rdfs": RDFS, "xsd": XSD}
_LOCAL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_\-.]*[A-Za-z0-9_\-])?\Z")
_BARE = {
    XSD_INTEGER: re.compile(r"-?[0-9]+\Z"),
    XSD_DECIMAL: re.compile(r"-?[0-9]*\.[0-9]+\Z"),
    XSD_DOUBLE: re.compile(r"-?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)[eE][+\-]?[0-9]+\Z"),
    XSD_BOOLEAN: re.compile(r"(?:true|false)\Z"),
}


class Names:
    """Compacts IRIs with a prefix table (longest namespace wins; ties by prefix name)."""

    def __init__(self, prefixes: tuple[tuple[str, str], ...] | None):
        table = dict(_STANDARD)
        if prefixes is not None:
            table.update(dict(prefixes))
        self.enabled = prefixes is not None
        self.table = sorted(table.items(), key=lambda kv: (-len(kv[1]), kv[0]))

    def iri(self, value: str) -> str:
        """``ex:name`` when a prefix fits, else ``<value>``."""
        if self.enabled:
            for name, ns in self.table:
                if value.startswith(ns) and _LOCAL.match(value, len(ns)):
                    return f"{name}:{value[len(ns):]}"
        return f"<{value}>"


def escape_string(s: str) -> str:
    """A double-quoted string literal with the rule language's escapes."""
    out = []
    for c in s:
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20 or c in "\u2028\u2029\x85":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def term_text(t: Term, names: Names) -> str:
    """A constant in rule syntax."""
    if isinstance(t, IRI):
        return names.iri(t.value)
    assert isinstance(t, Literal)
    if t.datatype == RDF_LANGSTRING and t.lang:
        return f"{escape_string(t.lexical)}@{t.lang}"
    if t.datatype == XSD_STRING:
        return escape_string(t.lexical)
    bare = _BARE.get(t.datatype)
    if bare is not None and bare.match(t.lexical):
        return t.lexical
    return f"{escape_string(t.lexical)}^^{names.iri(t.datatype)}"


def _var(v: Var) -> str:
    return "?_" if v.anonymous else f"?{v.name}"


def expr_text(e: Expr, names: Names, nested: bool = False) -> str:
    """An expression; nested operations are always parenthesised (so the tree is explicit)."""
    if isinstance(e, Var):
        return _var(e)
    if isinstance(e, Const):
        return term_text(e.term, names)
    if isinstance(e, Call):
        return f"{e.func}({', '.join(expr_text(a, names) for a in e.args)})"
    inner = f"{expr_text(e.left, names, True)} {e.op} {expr_text(e.right, names, True)}"
    return f"({inner})" if nested else inner


def atom_text(a: Atom, names: Names, *, premise: bool = False) -> str:
    """``pred(args)``; a negative fact is ``not pred(args)`` in a head or fact and ``-pred(args)`` as a
    premise (in a body ``not`` is negation as failure, a different meaning)."""
    args = ", ".join(_var(t) if isinstance(t, Var) else term_text(t.term, names) for t in a.args)
    sign = ("-" if premise else "not ") if a.negated else ""
    return sign + f"{names.iri(a.predicate)}({args})"


def item_text(b: BodyItem, names: Names) -> str:
    """One body literal."""
    match b:
        case Atom():
            return atom_text(b, names, premise=True)
        case Negation(atom):
            return "not " + atom_text(atom, names, premise=True)
        case Comparison(op, left, right):
            return f"{expr_text(left, names)} {op} {expr_text(right, names)}"
        case Assignment(target, expr):
            return f"{_var(target)} = {expr_text(expr, names)}"
        case Aggregate(target, func, term, body):
            t = expr_text(term, names) + " " if term is not None else ""
            return f"{_var(target)} = {func}({t}: {', '.join(atom_text(a, names, premise=True) for a in body)})"
    raise TypeError(b)  # pragma: no cover


def rule_text(r: Rule, names: Names) -> str:
    """``rule name [weight w, depth d]: head :- body.`` (or ``constraint name: false :- ...``)."""
    anns = []
    if r.weight != 1.0:
        anns.append(f"weight {r.weight!r}")
    if r.depth is not None:
        anns.append(f"depth {r.depth}")
    ann = f" [{', '.join(anns)}]" if anns else ""
    kind = "constraint" if r.head is None else "rule"
    head = "false" if r.head is None else atom_text(r.head, names)
    body = ", ".join(item_text(b, names) for b in r.body)
    return f"{kind} {r.name}{ann}: {head} :- {body}."


def decl_text(d: PredicateDecl, names: Names) -> str:
    """``ex:p/2 (iri, xsd:duration) functional``."""
    out = f"{names.iri(d.predicate)}/{d.arity}"
    if d.arg_types:
        words = ["any" if t is None else t if t in ("iri", "literal") else names.iri(t) for t in d.arg_types]
        out += f" ({', '.join(words)})"
    return out + (" functional" if d.functional else "")


def query_text(q: Query, names: Names) -> str:
    """``?- body.``"""
    return "?- " + ", ".join(item_text(b, names) for b in q.body) + "."


def render(program: Program, *, prefixes: bool = True, queries: bool = True) -> str:
    """Canonical, re-parseable rule text (``prefixes=False`` writes every IRI in full)."""
    names = Names(program.prefixes if prefixes else None)
    lines: list[str] = []
    if prefixes:
        for name, ns in program.prefixes:
            if _STANDARD.get(name) != ns:
                lines.append(f"@prefix {name}: <{ns}> .")
    for d in program.vocabulary.values():
        lines.append(f"vocabulary: {decl_text(d, names)}.")
    for f in program.facts:
        lines.append(atom_text(f, names) + ".")
    for r in program.rules + program.constraints:
        lines.append(rule_text(r, names))
    if queries:
        for q in program.queries:
            lines.append(query_text(q, names))
    return "\n".join(lines) + ("\n" if lines else "")
