"""The deadline of the evaluation running in this context, for loops below the step level.

:class:`~.evaluator.Evaluation` checks its deadline after every body step; a step that computes a
built-in function once per distinct argument tuple (:func:`.builtins.call`) can itself run for
seconds over a large join, so it checks here every few hundred values and stops the run with
:class:`~.relation.DeadlinePassed`.  The deadline lives in a context variable: concurrent
evaluations (threads of a server) each see their own; the variant threads of one evaluation are
started in copies of its context (:mod:`.variants`).
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from ..core.limits import Deadline
from .relation import DeadlinePassed

_current: ContextVar[Deadline | None] = ContextVar("holokb_engine_deadline", default=None)


@contextmanager
def running(deadline: Deadline) -> Iterator[None]:
    """``deadline`` is the one :func:`check` reads while the block runs (in this context)."""
    token = _current.set(deadline)
    try:
        yield
    finally:
        _current.reset(token)


def check() -> None:
    """Raise :class:`DeadlinePassed` when the running evaluation's deadline has passed."""
    d = _current.get()
    if d is not None and d.expired():
        raise DeadlinePassed
