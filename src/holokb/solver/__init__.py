"""holokb.solver: consistency, entailment and model finding over z3 (default) and cvc5.

Public API: :func:`get_backend`, :class:`Backend`, :class:`SolveResult`; the active set
(:class:`ActiveSet`, :class:`GroundFact`, :class:`Cardinality`); the modes
(:func:`check_consistency`, :func:`entails`, :func:`find_model`) under :class:`SolverLimits`;
the FormalProposal gates (:func:`gate_proposal`, :func:`emit_smtlib`).
"""
from .active_set import ActiveSet, Cardinality, GroundFact
from .backend import Backend, SolveResult, SolverContext, get_backend, installed_backends
from .encode import Encoding, encode
from .modes import (
    ConsistencyResult, EntailmentResult, ModelResult, SolverLimits, check_consistency, entails, find_model,
)

__all__ = [
    "ActiveSet", "Backend", "Cardinality", "ConsistencyResult", "Encoding", "EntailmentResult", "GroundFact",
    "ModelResult", "SolveResult", "SolverContext", "SolverLimits", "check_consistency", "encode", "entails",
    "find_model", "get_backend", "installed_backends",
]
