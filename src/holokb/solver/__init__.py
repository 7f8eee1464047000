"""holokb.solver: consistency, entailment and model finding over z3 (default) and cvc5.

Public API: :func:`get_backend`, :class:`Backend`, :class:`SolveResult`; the active set
(:class:`ActiveSet`, :class:`GroundFact`, :class:`Cardinality`); the modes
(:func:`check_consistency`, :func:`entails`, :func:`find_model`) under :class:`SolverLimits`,
and :class:`ConsistencySession` for incremental re-checks; the FormalProposal gates
(:func:`gate_proposal`, :func:`solve_proposal`, :class:`SymbolRegistry`).  The evaluation
drivers live in ``holokb.solver.eval_deduction`` and ``holokb.solver.eval_folio``.
"""
from .active_set import ActiveSet, Cardinality, GroundFact
from .backend import Backend, SolveResult, SolverContext, get_backend, installed_backends
from .encode import Encoding, encode
from .limits import Limit, SolverLimit
from .modes import (
    ConsistencyResult, EntailmentResult, ModelResult, SolverLimits, check_consistency, entails, find_model,
)
from .proposal import GateResult, Signature, SymbolRegistry, gate_proposal
from .proposal_solve import ProposalVerdict, solve_proposal
from .session import ConsistencySession

__all__ = [
    "ActiveSet", "Backend", "Cardinality", "ConsistencyResult", "ConsistencySession", "Encoding",
    "EntailmentResult", "GateResult", "GroundFact", "Limit", "SolverLimit", "ModelResult", "ProposalVerdict", "Signature",
    "SolveResult", "SolverContext", "SolverLimits", "SymbolRegistry", "check_consistency", "encode", "entails",
    "find_model", "gate_proposal", "get_backend", "installed_backends", "solve_proposal",
]
