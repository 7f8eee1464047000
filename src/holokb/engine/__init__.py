"""holokb.engine: semi-naive Datalog over integer-encoded columns, with budgets and proofs.

Physical layer (no rules): :mod:`.dictionary`, :mod:`.relation`, :mod:`.keyset`, :mod:`.joins`,
:mod:`.builtins`.
Logical layer: :mod:`.planning`, :mod:`.evaluator`, :mod:`.aggregates`, :mod:`.transitive`, and
the modes :func:`closure`, :func:`local_closure`, :func:`ask`.  Output: :class:`Model`.
Reference backend for differential tests: :mod:`.pydatalog_backend` (pyDatalog in a child process).
"""
from .closure import closure
from .database import Database
from .dictionary import TermDictionary
from .modes import Answers, ask, local_closure, neighbourhood
from .model import DerivedFact, FactRef, Model, Stats, Violation
from .proofs import ProofNode, path_score

__all__ = [
    "Database", "DerivedFact", "FactRef", "Model", "ProofNode", "Stats", "TermDictionary",
    "Violation", "closure", "path_score", "Answers", "ask", "local_closure", "neighbourhood",
]
