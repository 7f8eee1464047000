"""Full materialisation: ``closure(program, db, *, limits, record_proofs, all_valid)``."""
from __future__ import annotations

from ..analysis.program import Program
from ..core.limits import Limits
from .database import Database
from .evaluator import Evaluation
from .model import Model, violations_of


def closure(program: Program, db: Database, *, limits: Limits | None = None,
            record_proofs: bool = False, all_valid: bool = False) -> Model:
    """Evaluate every stratum of ``program`` over ``db`` to a fixpoint (or a budget) → :class:`Model`.

    Budgets never raise: a hit one sets ``model.truncated`` and ``model.limit_hit``
    (``"max_depth"``, ``"max_derived"``, ``"timeout_s"``; ``"max_edges"`` when one join step would
    produce more rows than ``limits.max_edges``, ``"max_intermediate"`` past the engine's own
    safety cap :data:`~holokb.engine.evaluator.MAX_INTERMEDIATE_ROWS`, ``"memory"`` on a
    MemoryError).  Constraints are checked on what was derived, also when truncated.
    """
    ev = Evaluation(program, db, limits or Limits.unbounded(), record_proofs, all_valid)
    ev.run()
    return Model(ev, violations_of(ev))
