"""holokb.engine: semi-naive Datalog over integer-encoded columns, with budgets and proofs.

Physical layer (no rules): :mod:`.dictionary`, :mod:`.relation`, :mod:`.keyset`, :mod:`.joins`,
:mod:`.builtins`.
Logical layer: :mod:`.planning`, :mod:`.body`, :mod:`.evaluator`, :mod:`.aggregates`, :mod:`.transitive`, and
the modes :func:`closure`, :func:`local_closure`, :func:`ask`.  Input: a checked
:class:`~holokb.analysis.Program` (from :func:`holokb.analysis.analyze` or ``check_program``) and a
:class:`Database`.  Output: a frozen :class:`Model` with a typed :class:`ProofTable`.
Reference backend for differential tests: :mod:`.pydatalog_backend` (pyDatalog in a child process).
"""
from .closure import closure
from .database import Database
from .dictionary import TermDictionary
from .encoded import EncodedAbsence, EncodedStep, EncodedSteps
from .modes import Answers, ask, local_closure, neighbourhood
from .model import DerivedFact, FactRef, Model, ProofStep, ProofTable, RuleProofs, Stats, Violation
from .proofs import ProofNode, path_score

__all__ = [
    "Database", "DerivedFact", "EncodedAbsence", "EncodedStep", "EncodedSteps", "FactRef", "Model", "ProofNode", "ProofStep", "ProofTable", "RuleProofs", "Stats",
    "TermDictionary",
    "Violation", "closure", "path_score", "Answers", "ask", "local_closure", "neighbourhood",
]
