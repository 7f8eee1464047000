"""Full materialisation: ``closure(program, db, *, limits, record_proofs, valid_at)``."""
from __future__ import annotations

from ..analysis.program import Program
from ..core.limits import Limits
from .database import Database
from .evaluator import Evaluation
from .model import Model


def require_checked(program: Program) -> None:
    """The engine's precondition: a program checked and stratified by :mod:`holokb.analysis`."""
    if not isinstance(program, Program) or not program.checked:
        raise TypeError("the engine evaluates checked programs only: build them with holokb.analysis.analyze() "
                        "(rule text) or holokb.analysis.check_program() (IR built in code)")


def closure(program: Program, db: Database, *, limits: Limits | None = None,
            record_proofs: bool = False, valid_at: int | None = None) -> Model:
    """Evaluate every stratum of ``program`` over ``db`` to a fixpoint (or a budget) → a frozen :class:`Model`.

    Time is the whole valid-time axis of ``db``'s facts (pointwise semantics, :mod:`.temporal`);
    ``valid_at=t`` makes the model show the facts that hold at ``t`` with their maximal interval
    around it, ``None`` every fact with every maximal interval.

    Budgets never raise: a hit one sets ``model.truncated`` and ``model.limit_hit``, a
    :class:`~holokb.core.LimitHit` (``MAX_DEPTH``, ``MAX_DERIVED``, ``TIMEOUT``; ``MAX_EDGES`` when
    one join step would produce more rows than ``limits.max_edges``, ``MAX_INTERMEDIATE`` past the
    engine's own safety cap :data:`~holokb.engine.body.MAX_INTERMEDIATE_ROWS`, ``MEMORY`` on a
    MemoryError).  Constraints are checked on what was derived, also when truncated (once the
    deadline has passed, the constraints not yet checked are not: the run says ``TIMEOUT``).
    """
    require_checked(program)
    ev = Evaluation(program, db, limits or Limits.unbounded(), record_proofs, valid_at)
    ev.run()
    return ev.result()
