"""FormalProposal v1: the only way structured input from outside (an LLM, a parser) reaches a solver.

Gates, in order, each deterministic:
1. schema   (:mod:`.proposal_schema`): shape, operator whitelist, identifiers, reserved words;
   failing ⇒ status ``proposed``;
2. registry: declarations agree with the :class:`SymbolRegistry` passed in, every usage is
   declared and well-sorted, quantified variables are bound; failing ⇒ ``contested``;
3. emission: SMT-LIB 2 built from the IR only (declarations sorted by kind then name,
   assertions in array order as ``(! e :named id)``), then re-scanned: the only commands are
   the ones the emitter writes; failing ⇒ ``contested``.
A proposal that passes all three is ``validated`` and carries its SMT-LIB text.

>>> p = {"schemaVersion": "holoproof.formal-proposal.v1", "proposalId": "fp_1",
...      "declarations": [{"kind": "const", "name": "x", "resultSort": "Int"}],
...      "assertions": [{"assertionId": "ax_1", "expr": {"op": ">", "args": [
...          {"op": "const", "name": "x"}, {"op": "int", "value": 2}]}}]}
>>> print(gate_proposal(p).smtlib)
(declare-const x Int)
(assert (! (> x 2) :named ax_1))
<BLANKLINE>
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal as _Lit, Mapping

from ..core.errors import Diagnostic, SolverError
from .proposal_schema import BUILTIN_SORTS, check_schema
from .smtlib import int_literal, split_commands

ProposalStatus = _Lit["proposed", "contested", "validated"]
_KIND_ORDER = {"sort": 0, "const": 1, "function": 2, "predicate": 3}
_ALLOWED_COMMANDS = frozenset({"declare-sort", "declare-const", "declare-fun", "assert"})


@dataclass(frozen=True, slots=True)
class Signature:
    """A symbol's signature: kind (sort/const/function/predicate), argument sorts, result sort."""

    kind: str
    arg_sorts: tuple[str, ...] = ()
    result_sort: str = "Bool"


@dataclass(frozen=True, slots=True)
class SymbolRegistry:
    """The world's known symbols (name → Signature).  Proposals must reuse them compatibly."""

    symbols: Mapping[str, Signature] = field(default_factory=dict)

    def merged(self, decls: Mapping[str, Signature]) -> "SymbolRegistry":
        """A registry with ``decls`` added (used after a proposal is accepted)."""
        return SymbolRegistry({**self.symbols, **decls})


@dataclass(frozen=True, slots=True)
class GateResult:
    """The outcome of the gates: status, the gate that failed (or None), diagnostics, SMT-LIB text."""

    status: ProposalStatus
    gate: str | None
    diagnostics: tuple[Diagnostic, ...] = ()
    smtlib: str | None = None
    goal: str | None = None
    mode: str | None = None
    constants: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == "validated"


def _diag(path: str, msg: str, code: str = "HK410", hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, f"{path}: {msg}", hint=hint)


class _Types:
    """Registry gate: resolves and sort-checks every expression."""

    def __init__(self, symbols: dict[str, Signature]):
        self.symbols = symbols
        self.diags: list[Diagnostic] = []

    def sort_known(self, path: str, s: str) -> None:
        if s in BUILTIN_SORTS:
            return
        sig = self.symbols.get(s)
        if sig is None or sig.kind != "sort":
            self.diags.append(_diag(path, f"unknown sort {s!r}", hint="declare it with kind 'sort'"))

    def infer(self, path: str, e: dict, env: dict[str, str]) -> str | None:
        op = e["op"]
        if op == "int":
            return "Int"
        if op == "bool":
            return "Bool"
        if op == "var":
            s = env.get(e["name"])
            if s is None:
                self.diags.append(_diag(path, f"variable {e['name']!r} is not bound by a quantifier"))
            return s
        if op == "const":
            sig = self.symbols.get(e["name"])
            if sig is None or sig.kind != "const":
                self.diags.append(_diag(path, f"{e['name']!r} is not a declared const",
                                        hint=self._near(e["name"])))
                return None
            return sig.result_sort
        if op == "call":
            sig = self.symbols.get(e["symbol"])
            if sig is None or sig.kind not in ("function", "predicate"):
                self.diags.append(_diag(path, f"{e['symbol']!r} is not a declared function or predicate",
                                        hint=self._near(e["symbol"])))
                for i, a in enumerate(e["args"]):
                    self.infer(f"{path}.args[{i}]", a, env)
                return None
            if len(sig.arg_sorts) != len(e["args"]):
                self.diags.append(_diag(path, f"{e['symbol']!r} takes {len(sig.arg_sorts)} arguments, "
                                              f"got {len(e['args'])}"))
            for i, (a, want) in enumerate(zip(e["args"], sig.arg_sorts)):
                self.expect(f"{path}.args[{i}]", a, env, want)
            return sig.result_sort
        if op in ("forall", "exists"):
            inner = dict(env)
            for i, v in enumerate(e["vars"]):
                if v["name"] in self.symbols:
                    self.diags.append(_diag(f"{path}.vars[{i}]", f"variable {v['name']!r} shadows a declared symbol"))
                self.sort_known(f"{path}.vars[{i}].sort", v["sort"])
                inner[v["name"]] = v["sort"]
            self.expect(f"{path}.body", e["body"], inner, "Bool")
            return "Bool"
        args = e["args"]
        if op in ("not", "and", "or", "=>", "xor"):
            for i, a in enumerate(args):
                self.expect(f"{path}.args[{i}]", a, env, "Bool")
            return "Bool"
        if op in ("=", "distinct"):
            first = self.infer(f"{path}.args[0]", args[0], env)
            for i, a in enumerate(args[1:], 1):
                self.expect(f"{path}.args[{i}]", a, env, first)
            return "Bool"
        if op == "ite":
            self.expect(f"{path}.args[0]", args[0], env, "Bool")
            s = self.infer(f"{path}.args[1]", args[1], env)
            self.expect(f"{path}.args[2]", args[2], env, s)
            return s
        # arithmetic and comparisons: Int or Real, all arguments the same sort
        first = self.infer(f"{path}.args[0]", args[0], env)
        if first is not None and first not in ("Int", "Real"):
            self.diags.append(_diag(f"{path}.args[0]", f"{op!r} needs Int or Real, got {first}"))
        for i, a in enumerate(args[1:], 1):
            self.expect(f"{path}.args[{i}]", a, env, first)
        return "Bool" if op in ("<", "<=", ">", ">=") else first

    def expect(self, path: str, e: dict, env: dict[str, str], want: str | None) -> None:
        got = self.infer(path, e, env)
        if want is not None and got is not None and got != want:
            self.diags.append(_diag(path, f"expected {want}, got {got}"))

    def _near(self, name: str) -> str | None:
        low = name.lower()
        for k in sorted(self.symbols):
            if k.lower() == low:
                return f"did you mean {k!r}?"
        return None


def _emit(e: dict) -> str:
    op = e["op"]
    if op in ("const", "var"):
        return e["name"]
    if op == "int":
        return int_literal(e["value"])
    if op == "bool":
        return "true" if e["value"] else "false"
    if op == "call":
        return f"({e['symbol']} {' '.join(_emit(a) for a in e['args'])})"
    if op in ("forall", "exists"):
        vs = " ".join(f"({v['name']} {v['sort']})" for v in e["vars"])
        return f"({op} ({vs}) {_emit(e['body'])})"
    return f"({op} {' '.join(_emit(a) for a in e['args'])})"


def _signature(d: dict) -> Signature:
    if d["kind"] == "sort":
        return Signature("sort", (), "")
    return Signature(d["kind"], tuple(d.get("argSorts", ())), d.get("resultSort", "Bool"))


def _decl_text(name: str, sig: Signature) -> str:
    if sig.kind == "sort":
        return f"(declare-sort {name} 0)"
    if sig.kind == "const":
        return f"(declare-const {name} {sig.result_sort})"
    return f"(declare-fun {name} ({' '.join(sig.arg_sorts)}) {sig.result_sort})"


def gate_proposal(proposal: Mapping[str, Any] | str, *, registry: SymbolRegistry | None = None) -> GateResult:
    """Run the schema, registry and emission gates; a validated proposal carries its SMT-LIB text.

    The emitted text declares the registry symbols the proposal uses as well as its own.
    """
    if isinstance(proposal, str):
        try:
            proposal = json.loads(proposal)
        except (ValueError, RecursionError) as e:
            return GateResult("proposed", "schema", (_diag("$", f"not JSON: {e}", "HK400"),))
    diags = check_schema(proposal)
    if diags:
        return GateResult("proposed", "schema", diags)
    reg = dict((registry or SymbolRegistry()).symbols)
    own: dict[str, Signature] = {}
    rdiags: list[Diagnostic] = []
    for i, d in enumerate(proposal["declarations"]):
        sig = _signature(d)
        prev = reg.get(d["name"]) or own.get(d["name"])
        if prev is not None and prev != sig:
            rdiags.append(_diag(f"$.declarations[{i}]", f"{d['name']!r} is already declared as {prev.kind} "
                                f"({' '.join(prev.arg_sorts)}) -> {prev.result_sort}", "HK411",
                                hint="reuse the registry symbol's signature or pick a new name"))
        own[d["name"]] = sig
    symbols = {**reg, **own}
    types = _Types(symbols)
    for i, d in enumerate(proposal["declarations"]):
        sig = own[d["name"]]
        for j, s in enumerate(sig.arg_sorts):
            types.sort_known(f"$.declarations[{i}].argSorts[{j}]", s)
        if sig.kind in ("const", "function"):
            types.sort_known(f"$.declarations[{i}].resultSort", sig.result_sort)
    ids: set[str] = set()
    for i, a in enumerate(proposal["assertions"]):
        if a["assertionId"] in ids or a["assertionId"] in symbols:
            rdiags.append(_diag(f"$.assertions[{i}].assertionId", f"duplicate name {a['assertionId']!r}", "HK412"))
        ids.add(a["assertionId"])
        types.expect(f"$.assertions[{i}].expr", a["expr"], {}, "Bool")
    qp = proposal.get("queryPlan")
    if qp and "goal" in qp:
        types.expect("$.queryPlan.goal", qp["goal"], {}, "Bool")
    rdiags.extend(types.diags)
    if rdiags:
        return GateResult("contested", "registry", tuple(rdiags))
    used = _used_symbols(proposal)
    needed = {n: s for n, s in symbols.items() if n in own or n in used}
    for n, s in list(needed.items()):
        for srt in s.arg_sorts + ((s.result_sort,) if s.kind in ("const", "function") else ()):
            if srt not in BUILTIN_SORTS and srt in symbols:
                needed[srt] = symbols[srt]
    lines = [_decl_text(n, s) for n, s in sorted(needed.items(), key=lambda kv: (_KIND_ORDER[kv[1].kind], kv[0]))]
    lines += [f"(assert (! {_emit(a['expr'])} :named {a['assertionId']}))" for a in proposal["assertions"]]
    text = "\n".join(lines) + "\n"
    goal = _emit(qp["goal"]) if qp and "goal" in qp else None
    bad = _emission_problems(text, len(needed), len(proposal["assertions"]), goal)
    if bad:
        return GateResult("contested", "emission", bad)
    consts = tuple(sorted(n for n, s in needed.items() if s.kind == "const"))
    return GateResult("validated", None, (), text, goal, qp["verificationMode"] if qp else None, consts)


def _used_symbols(p: Mapping[str, Any]) -> set[str]:
    out: set[str] = set()

    def walk(e: dict) -> None:
        if e["op"] == "const":
            out.add(e["name"])
        elif e["op"] == "call":
            out.add(e["symbol"])
        for a in e.get("args", ()):
            walk(a)
        if "body" in e:
            for v in e["vars"]:
                out.add(v["sort"])
            walk(e["body"])

    for a in p["assertions"]:
        walk(a["expr"])
    if p.get("queryPlan", {}).get("goal"):
        walk(p["queryPlan"]["goal"])
    return out


def _emission_problems(text: str, n_decls: int, n_asserts: int, goal: str | None) -> tuple[Diagnostic, ...]:
    """Re-scan the emitted text: only the commands the emitter writes, in the expected number."""
    try:
        cmds = split_commands(text)
        goal_cmds = split_commands(f"(assert {goal})") if goal is not None else ()
    except SolverError as e:
        return (_diag("$", f"emitted text does not scan: {e}", "HK420"),)
    heads = [c.head for c in cmds]
    if any(h not in _ALLOWED_COMMANDS for h in heads) or len(cmds) != n_decls + n_asserts or len(goal_cmds) > 1:
        return (_diag("$", f"emitted text holds unexpected commands: {sorted(set(heads))}", "HK421"),)
    return ()


def proposal_signatures(proposal: Mapping[str, Any]) -> dict[str, Signature]:
    """The declarations of a (schema-valid) proposal as signatures, for merging into a registry."""
    return {d["name"]: _signature(d) for d in proposal["declarations"]}
