"""One solver contract: SMT-LIB 2 text in, :class:`SolveResult` out, plus an incremental context.

Backends only ever see SMT-LIB text that holokb emitted itself (from an active set or from a
gated :class:`~holokb.solver.proposal.FormalProposal`).  ``run_smtlib_file`` is the one exception,
for the conformance runner over a trusted corpus.

>>> b = get_backend("z3")
>>> b.check_smtlib("(declare-const x Int)(assert (! (> x 2) :named big))(assert (! (< x 1) :named small))",
...                timeout_ms=1000).status
'unsat'
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Literal as _Lit, Protocol, runtime_checkable

from ..core.errors import SolverError

Status = _Lit["sat", "unsat", "unknown"]
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class SolveResult:
    """A verdict: status, model (name → SMT-LIB value text, sorted by name), unsat core (names, sorted).

    ``reason`` says why the answer is ``unknown`` (``timeout``, ``incomplete``, ...).
    """

    status: Status
    model: tuple[tuple[str, str], ...] = ()
    core: tuple[str, ...] = ()
    reason: str | None = None

    def value(self, name: str) -> str | None:
        """The model's value text for ``name``, or None."""
        for k, v in self.model:
            if k == name:
                return v
        return None


@runtime_checkable
class SolverContext(Protocol):
    """An incremental solver: load text, add named (tracked) assertions, push/pop, check."""

    def load(self, text: str) -> None:
        """Add declarations and assertions; ``(! e :named n)`` assertions become tracked."""

    def add(self, name: str, expr: str) -> None:
        """Add the tracked assertion ``expr`` under ``name`` (reported in unsat cores)."""

    def push(self) -> None:
        """Open a scope."""

    def pop(self) -> None:
        """Drop everything added since the matching push."""

    def check(self, assumptions: Iterable[str] = (), *, model_for: Iterable[str] | None = None) -> SolveResult:
        """Check under the tracked assertions plus ``assumptions`` (Boolean constant names)."""


@runtime_checkable
class Backend(Protocol):
    """A solver backend (z3, cvc5)."""

    name: str

    def check_smtlib(self, text: str, *, timeout_ms: int = 10_000,
                     model_for: Iterable[str] | None = None) -> SolveResult:
        """Check our own SMT-LIB text (no check-sat inside) and report status, model and core."""

    def context(self, *, timeout_ms: int = 10_000) -> SolverContext:
        """A fresh incremental context."""

    def run_smtlib_file(self, path: str, *, timeout_ms: int = 2_000) -> tuple[str, ...]:
        """Conformance only: run a trusted SMT-LIB script, return each check-sat answer in order
        (``("error",)`` when the backend rejected part of the script)."""


class OneShotMixin:
    """``check_smtlib`` for backends whose incremental context already does the work: load, check."""

    def check_smtlib(self, text: str, *, timeout_ms: int = 10_000,
                     model_for: Iterable[str] | None = None) -> SolveResult:
        """Check our own SMT-LIB text once."""
        c = self.context(timeout_ms=timeout_ms)  # type: ignore[attr-defined]
        c.load(text)
        return c.check(model_for=model_for)


def check_name(name: str) -> str:
    """Refuse a tracked-assertion or assumption name that is not a plain identifier."""
    if not _IDENT.match(name):
        raise SolverError(f"not a valid assertion name: {name!r}")
    return name


class TrackedNames:
    """Names of tracked assertions, scoped by push/pop (shared by the adapters)."""

    __slots__ = ("names", "_marks")

    def __init__(self) -> None:
        self.names: list[str] = []
        self._marks: list[int] = []

    def push(self) -> None:
        self._marks.append(len(self.names))

    def pop(self) -> None:
        if not self._marks:
            raise SolverError("pop without push")
        del self.names[self._marks.pop():]


def installed_backends() -> tuple[str, ...]:
    """Names of the backends that can run here, default first."""
    # find_spec locates cvc5 without importing it: the adapter module is the only importer.
    from importlib.util import find_spec
    return ("z3", "cvc5") if find_spec("cvc5") is not None else ("z3",)


def get_backend(name: str = "z3") -> Backend:
    """The backend called ``name`` (``z3`` default, ``cvc5``); SolverError if unknown or not installed."""
    if name == "z3":
        from .z3_backend import Z3Backend
        return Z3Backend()
    if name == "cvc5":
        from .cvc5_backend import Cvc5Backend
        return Cvc5Backend()
    raise SolverError(f"unknown solver backend {name!r}: choose z3 or cvc5")


def answers_from_output(output: str) -> tuple[str, ...]:
    """The check-sat answers in a solver's textual output, in order."""
    return tuple(line.strip() for line in output.splitlines() if line.strip() in ("sat", "unsat", "unknown"))
