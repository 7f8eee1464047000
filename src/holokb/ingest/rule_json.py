"""Rules read from documents, stored as canonical JSON of the rule IR (not as rule-language text).

Why not text: the rule language writes ``not p(…)`` in a body for negation as failure, while the
IR also has *negative-fact* premises (``Atom(negated=True)``: "if something is not big", an
explicit negation in the open world).  Text would turn the second into the first and change what
a rule proves; the JSON keeps the IR exactly.

>>> from holokb.analysis.program import Atom, Rule, Var
>>> r = Rule("r", Atom("http://e/p", (Var("x"),)), (Atom("http://e/q", (Var("x"),), negated=True),))
>>> rule_from_json(rule_to_json(r)) == r
True
"""
from __future__ import annotations

import json
from typing import Any

from ..analysis.program import (
    Aggregate, Assignment, Atom, BinOp, BodyItem, Call, Comparison, Const, Expr, Negation, Rule, Var,
)
from ..core.errors import InvalidValueError
from ..core.terms import IRI, Literal

FORMAT = 1


def _term(t: Expr) -> Any:
    if isinstance(t, Var):
        return {"var": t.name}
    if isinstance(t, Const):
        v = t.term
        if isinstance(v, IRI):
            return {"iri": v.value}
        out = {"lit": v.lexical, "dt": v.datatype}
        if v.lang:
            out["lang"] = v.lang
        return out
    if isinstance(t, Call):
        return {"call": t.func, "args": [_term(a) for a in t.args]}
    return {"op": t.op, "l": _term(t.left), "r": _term(t.right)}


def _atom(a: Atom) -> dict:
    return {"p": a.predicate, "args": [_term(x) for x in a.args], "neg": a.negated}


def _item(b: BodyItem) -> dict:
    if isinstance(b, Atom):
        return {"atom": _atom(b)}
    if isinstance(b, Negation):
        return {"naf": _atom(b.atom)}
    if isinstance(b, Comparison):
        return {"cmp": b.op, "l": _term(b.left), "r": _term(b.right)}
    if isinstance(b, Assignment):
        return {"let": b.target.name, "expr": _term(b.expr)}
    if isinstance(b, Aggregate):
        return {"agg": b.func, "target": b.target.name, "term": None if b.term is None else _term(b.term),
                "body": [_atom(a) for a in b.body], "by": [v.name for v in b.group_by]}
    raise InvalidValueError(f"cannot store a rule body item of type {type(b).__name__}")


def rule_to_json(rule: Rule) -> str:
    """Canonical JSON (sorted keys, no spaces) of a rule; origins are not stored (evidence is)."""
    data = {"format": FORMAT, "name": rule.name, "head": None if rule.head is None else _atom(rule.head),
            "body": [_item(b) for b in rule.body], "weight": rule.weight, "depth": rule.depth}
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _from_term(d: Any) -> Expr:
    if "var" in d:
        return Var(str(d["var"]))
    if "iri" in d:
        return Const(IRI(d["iri"]))
    if "lit" in d:
        return Const(Literal(d["lit"], d["dt"], d.get("lang")))
    if "call" in d:
        return Call(str(d["call"]), tuple(_from_term(x) for x in d["args"]))
    return BinOp(d["op"], _from_term(d["l"]), _from_term(d["r"]))


def _from_atom(d: dict) -> Atom:
    return Atom(str(d["p"]), tuple(_from_term(x) for x in d["args"]), bool(d["neg"]))  # type: ignore[misc]


def _from_item(d: dict) -> BodyItem:
    if "atom" in d:
        return _from_atom(d["atom"])
    if "naf" in d:
        return Negation(_from_atom(d["naf"]))
    if "cmp" in d:
        return Comparison(d["cmp"], _from_term(d["l"]), _from_term(d["r"]))
    if "let" in d:
        return Assignment(Var(d["let"]), _from_term(d["expr"]))
    if "agg" in d:
        return Aggregate(Var(d["target"]), d["agg"], None if d["term"] is None else _from_term(d["term"]),
                         tuple(_from_atom(a) for a in d["body"]), tuple(Var(v) for v in d["by"]))
    raise InvalidValueError("unknown body item")


def rule_from_json(text: str) -> Rule:
    """The rule stored by :func:`rule_to_json`; :class:`InvalidValueError` when it is not one."""
    try:
        d = json.loads(text)
        if d.get("format") != FORMAT:
            raise InvalidValueError(f"unknown stored rule format {d.get('format')!r}")
        head = None if d["head"] is None else _from_atom(d["head"])
        return Rule(str(d["name"]), head, tuple(_from_item(b) for b in d["body"]), float(d["weight"]),
                    None if d["depth"] is None else int(d["depth"]))
    except InvalidValueError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise InvalidValueError(f"not a stored rule: {e}") from None
