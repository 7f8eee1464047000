"""Running a gated FormalProposal: entailment, consistency or model finding on a backend."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal as _Lit, Mapping

from ..core.errors import Diagnostic
from .backend import Backend, get_backend
from .proposal import GateResult, ProposalStatus, SymbolRegistry, gate_proposal

Verdict = _Lit["entailed", "refuted", "consistent", "inconsistent", "found", "none", "unknown"]
_NEG, _POS = "hp_internal_neg_goal", "hp_internal_goal"


@dataclass(frozen=True, slots=True)
class ProposalVerdict:
    """Gate status and, for a validated proposal, the solver's verdict with core (assertion ids) or model."""

    status: ProposalStatus
    gate: str | None
    verdict: Verdict | None = None
    core: tuple[str, ...] = ()
    model: tuple[tuple[str, str], ...] = ()
    reason: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()


def solve_proposal(proposal: Mapping[str, Any] | str | GateResult, *, registry: SymbolRegistry | None = None,
                   backend: Backend | str = "z3", timeout_ms: int = 10_000) -> ProposalVerdict:
    """Gate the proposal, then run its queryPlan mode (consistency when it has none).

    A proposal that fails a gate never reaches the solver.
    """
    g = proposal if isinstance(proposal, GateResult) else gate_proposal(proposal, registry=registry)
    if not g.ok:
        return ProposalVerdict(g.status, g.gate, diagnostics=g.diagnostics)
    be = get_backend(backend) if isinstance(backend, str) else backend
    ctx = be.context(timeout_ms=timeout_ms)
    ctx.load(g.smtlib or "")
    base = ctx.check(model_for=g.constants)
    mode = g.mode or "consistency"
    if mode == "consistency" or g.goal is None:
        if base.status == "unknown":
            return ProposalVerdict(g.status, None, "unknown", reason=base.reason)
        return ProposalVerdict(g.status, None, "consistent" if base.status == "sat" else "inconsistent",
                               core=base.core, model=base.model)
    if base.status == "unsat":
        return ProposalVerdict(g.status, None, "unknown", core=base.core, reason="inconsistent premises")
    if mode == "model":
        ctx.add(_POS, g.goal)
        r = ctx.check(model_for=g.constants)
        if r.status == "sat":
            return ProposalVerdict(g.status, None, "found", model=r.model)
        if r.status == "unsat":
            return ProposalVerdict(g.status, None, "none", core=_strip(r.core), reason="core")
        return ProposalVerdict(g.status, None, "unknown", reason=r.reason)
    ctx.push()
    ctx.add(_NEG, f"(not {g.goal})")
    r = ctx.check(model_for=())
    ctx.pop()
    if r.status == "unsat":
        return ProposalVerdict(g.status, None, "entailed", core=_strip(r.core), reason="core")
    ctx.push()
    ctx.add(_POS, g.goal)
    r2 = ctx.check(model_for=())
    ctx.pop()
    if r2.status == "unsat":
        return ProposalVerdict(g.status, None, "refuted", core=_strip(r2.core), reason="core")
    if "unknown" in (r.status, r2.status):
        return ProposalVerdict(g.status, None, "unknown", reason=f"solver: {r.reason or r2.reason}")
    return ProposalVerdict(g.status, None, "unknown", reason="neither goal nor its negation follows")


def _strip(core: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n for n in core if not n.startswith("hp_internal_"))
