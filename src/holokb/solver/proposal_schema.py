"""The FormalProposal v1 schema gate: a small hand-written validator (no new dependency).

It checks what ``formal_proposal.schema.json`` states (required fields, JSON types, the
operator whitelist, fixed arities, identifier grammar) and, beyond JSON Schema, refuses
reserved solver words and prefixes.  Every problem becomes a :class:`Diagnostic` with a JSON
path; all are collected, none is flattened.
"""
from __future__ import annotations

import re
from typing import Any

from ..core.errors import Diagnostic
from .smtlib import SMT_RESERVED

SCHEMA_VERSION = "holoproof.formal-proposal.v1"
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: Solver commands (both spellings, any case), and theory symbols z3/cvc5 predefine (exact case).
_COMMANDS = frozenset(w.lower() for w in SMT_RESERVED if "-" in w) | frozenset(
    w.lower().replace("-", "_") for w in SMT_RESERVED if "-" in w) | frozenset({
        "exit", "assert", "push", "pop", "reset", "echo", "check_sat", "set_option", "declare_fun"})
_THEORY = frozenset(SMT_RESERVED) | frozenset({
    "abs", "div", "mod", "rem", "to_real", "to_int", "is_int", "select", "store", "List", "Array", "Seq",
    "String", "RegLan", "Set", "Bag", "Tuple", "UnitTuple", "nil", "insert", "head", "tail", "cons",
    "RoundingMode", "Float", "BitVec", "Int", "Real", "Bool", "int", "real", "bool",
})
RESERVED_PREFIXES = ("hp_internal_", "hk_internal_")


KINDS = ("sort", "const", "function", "predicate")
ROLES = ("axiom", "assumption", "fact", "hypothesis")
MODES = ("entailment", "consistency", "model")
BUILTIN_SORTS = ("Bool", "Int", "Real")

# op -> (min args, max args or None); leaves and quantifiers are handled separately.
NARY = {
    "not": (1, 1), "and": (1, None), "or": (1, None), "=>": (2, 2), "xor": (2, 2), "=": (2, None),
    "distinct": (2, None), "ite": (3, 3), "<": (2, 2), "<=": (2, 2), ">": (2, 2), ">=": (2, 2),
    "+": (1, None), "-": (1, None), "*": (2, None),
}
LEAVES = ("const", "var", "int", "bool")
QUANTIFIERS = ("forall", "exists")
OPERATORS = frozenset(NARY) | frozenset(LEAVES) | frozenset(QUANTIFIERS) | {"call"}

MAX_DEPTH = 64
MAX_NODES = 20_000


def reserved_reason(name: str) -> str | None:
    """Why ``name`` may not be a user symbol, or None."""
    if name in _THEORY or name.lower() in _COMMANDS:
        return f"{name!r} is a reserved solver word"
    for p in RESERVED_PREFIXES:
        if name.lower().startswith(p):
            return f"{name!r} uses the reserved prefix {p!r}"
    return None


class _Check:
    def __init__(self) -> None:
        self.diags: list[Diagnostic] = []
        self.nodes = 0

    def err(self, path: str, message: str, code: str = "HK401", hint: str | None = None) -> None:
        self.diags.append(Diagnostic(code, f"{path}: {message}", hint=hint))

    def ident(self, path: str, v: Any, *, symbol: bool = True) -> bool:
        if not isinstance(v, str) or not IDENT.match(v):
            self.err(path, f"not an identifier (^[A-Za-z_][A-Za-z0-9_]*$): {str(v)[:40]!r}", "HK402")
            return False
        why = reserved_reason(v) if symbol else None
        if why:
            self.err(path, why, "HK403", hint="rename the symbol")
            return False
        return True

    def sort(self, path: str, v: Any) -> None:
        if isinstance(v, str) and v in BUILTIN_SORTS:
            return
        self.ident(path, v)

    def fields(self, path: str, obj: Any, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> bool:
        if not isinstance(obj, dict):
            self.err(path, f"expected an object, got {type(obj).__name__}")
            return False
        for k in required:
            if k not in obj:
                self.err(path, f"missing required field {k!r}")
        for k in obj:
            if k not in required and k not in optional:
                self.err(path, f"unknown field {str(k)[:40]!r}")
        return all(k in obj for k in required)

    def expr(self, path: str, e: Any, depth: int = 0) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES or depth > MAX_DEPTH:
            if self.nodes == MAX_NODES + 1 or depth == MAX_DEPTH + 1:
                self.err(path, "expression too large or too deep", "HK404")
            return
        if not isinstance(e, dict) or "op" not in e:
            self.err(path, "expected an expression object with an 'op'")
            return
        op = e["op"]
        if not isinstance(op, str) or op not in OPERATORS:
            self.err(f"{path}.op", f"operator {str(op)[:20]!r} is not allowed", "HK405",
                     hint="allowed: " + " ".join(sorted(OPERATORS)))
            return
        if op in ("const", "var"):
            if self.fields(path, e, ("op", "name")):
                self.ident(f"{path}.name", e["name"])
        elif op == "int":
            if self.fields(path, e, ("op", "value")) and (
                    not isinstance(e["value"], int) or isinstance(e["value"], bool) or abs(e["value"]) >= 2**63):
                self.err(f"{path}.value", "expected a 64-bit integer")
        elif op == "bool":
            if self.fields(path, e, ("op", "value")) and not isinstance(e["value"], bool):
                self.err(f"{path}.value", "expected true or false")
        elif op == "call":
            if self.fields(path, e, ("op", "symbol", "args")):
                self.ident(f"{path}.symbol", e["symbol"])
                self.args(path, e["args"], 1, None, depth)
        elif op in QUANTIFIERS:
            if self.fields(path, e, ("op", "vars", "body")):
                vs = e["vars"]
                if not isinstance(vs, list) or not vs:
                    self.err(f"{path}.vars", "expected a non-empty list of {name, sort}")
                else:
                    for i, v in enumerate(vs):
                        if self.fields(f"{path}.vars[{i}]", v, ("name", "sort")):
                            self.ident(f"{path}.vars[{i}].name", v["name"])
                            self.sort(f"{path}.vars[{i}].sort", v["sort"])
                self.expr(f"{path}.body", e["body"], depth + 1)
        else:
            lo, hi = NARY[op]
            if self.fields(path, e, ("op", "args")):
                self.args(path, e["args"], lo, hi, depth)

    def args(self, path: str, args: Any, lo: int, hi: int | None, depth: int) -> None:
        if not isinstance(args, list):
            self.err(f"{path}.args", "expected a list")
            return
        if len(args) < lo or (hi is not None and len(args) > hi):
            want = f"{lo}" if hi == lo else f"{lo}..{'n' if hi is None else hi}"
            self.err(f"{path}.args", f"expected {want} arguments, got {len(args)}", "HK406")
        for i, a in enumerate(args):
            self.expr(f"{path}.args[{i}]", a, depth + 1)


def check_schema(p: Any) -> tuple[Diagnostic, ...]:
    """All schema-gate findings for a decoded proposal (empty when it passes)."""
    c = _Check()
    if not c.fields("$", p, ("schemaVersion", "proposalId", "declarations", "assertions"),
                    ("worldId", "source", "queryPlan", "ambiguities", "tags")):
        return tuple(c.diags)
    if p["schemaVersion"] != SCHEMA_VERSION:
        c.err("$.schemaVersion", f"expected {SCHEMA_VERSION!r}")
    for k in ("proposalId", "worldId"):
        if k in p and (not isinstance(p[k], str) or not re.fullmatch(r"[A-Za-z0-9_.:-]{1,128}", p[k])):
            c.err(f"$.{k}", "expected a short id string ([A-Za-z0-9_.:-]{1,128})")
    if "source" in p and c.fields("$.source", p["source"], (), ("sourceId", "span", "createdAt")):
        sp = p["source"].get("span")
        if sp is not None and c.fields("$.source.span", sp, ("start", "end")):
            if not all(isinstance(sp[k], int) and not isinstance(sp[k], bool) and sp[k] >= 0 for k in ("start", "end")):
                c.err("$.source.span", "start and end must be non-negative integers")
        for k in ("sourceId", "createdAt"):
            if k in p["source"] and not isinstance(p["source"][k], str):
                c.err(f"$.source.{k}", "expected a string")
    decls = p["declarations"]
    if not isinstance(decls, list):
        c.err("$.declarations", "expected a list")
        decls = []
    for i, d in enumerate(decls):
        path = f"$.declarations[{i}]"
        if not c.fields(path, d, ("kind", "name"), ("argSorts", "resultSort")):
            continue
        if d["kind"] not in KINDS:
            c.err(f"{path}.kind", f"expected one of {', '.join(KINDS)}")
            continue
        c.ident(f"{path}.name", d["name"])
        if d["kind"] == "sort":
            if "argSorts" in d or "resultSort" in d:
                c.err(path, "a sort declaration takes only kind and name")
            continue
        args = d.get("argSorts", [])
        if not isinstance(args, list):
            c.err(f"{path}.argSorts", "expected a list of sorts")
            args = []
        if d["kind"] == "const" and args:
            c.err(f"{path}.argSorts", "a const takes no arguments")
        if d["kind"] in ("function", "predicate") and not args:
            c.err(f"{path}.argSorts", f"a {d['kind']} takes at least one argument")
        for j, s in enumerate(args):
            c.sort(f"{path}.argSorts[{j}]", s)
        if d["kind"] == "predicate":
            if d.get("resultSort", "Bool") != "Bool":
                c.err(f"{path}.resultSort", "a predicate's result sort is Bool")
        elif "resultSort" not in d:
            c.err(path, "missing required field 'resultSort'")
        else:
            c.sort(f"{path}.resultSort", d["resultSort"])
    asserts = p["assertions"]
    if not isinstance(asserts, list):
        c.err("$.assertions", "expected a list")
        asserts = []
    for i, a in enumerate(asserts):
        path = f"$.assertions[{i}]"
        if not c.fields(path, a, ("assertionId", "expr"), ("role", "comment")):
            continue
        c.ident(f"{path}.assertionId", a["assertionId"])
        if "role" in a and a["role"] not in ROLES:
            c.err(f"{path}.role", f"expected one of {', '.join(ROLES)}")
        if "comment" in a and not isinstance(a["comment"], str):
            c.err(f"{path}.comment", "expected a string")
        c.expr(f"{path}.expr", a["expr"])
    if "queryPlan" in p and c.fields("$.queryPlan", p["queryPlan"], ("verificationMode",), ("goal",)):
        qp = p["queryPlan"]
        if qp["verificationMode"] not in MODES:
            c.err("$.queryPlan.verificationMode", f"expected one of {', '.join(MODES)}")
        if "goal" in qp:
            c.expr("$.queryPlan.goal", qp["goal"])
        elif qp["verificationMode"] != "consistency":
            c.err("$.queryPlan", f"mode {qp['verificationMode']!r} needs a goal")
    for k in ("ambiguities", "tags"):
        if k in p and (not isinstance(p[k], list) or not all(isinstance(x, str) for x in p[k])):
            c.err(f"$.{k}", "expected a list of strings")
    return tuple(c.diags)


def load_json_schema() -> dict:
    """The shipped JSON Schema (``formal_proposal.schema.json``), for tools and editors."""
    import json
    from importlib import resources
    return json.loads(resources.files(__package__).joinpath("formal_proposal.schema.json").read_text("utf-8"))
