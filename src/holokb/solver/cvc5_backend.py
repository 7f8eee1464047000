"""The cvc5 adapter.  cvc5 is optional: it is imported here only, lazily."""
from __future__ import annotations

from typing import Iterable

from ..core.errors import SolverError
from .backend import OneShotMixin, SolveResult, TrackedNames, answers_from_output, check_name
from .smtlib import rewrite_named

_MISSING = "cvc5 is not installed: pip install cvc5"


def _cvc5():
    try:
        import cvc5
    except ImportError:
        raise SolverError(_MISSING) from None
    return cvc5


class Cvc5Context:
    """An incremental cvc5 solver with tracked assertions as assumption literals."""

    def __init__(self, timeout_ms: int):
        cvc5 = self._mod = _cvc5()
        self._tm = cvc5.TermManager()
        self._solver = cvc5.Solver(self._tm)
        for k, v in (("incremental", "true"), ("produce-models", "true"),
                     ("produce-unsat-assumptions", "true"), ("tlimit-per", str(int(max(1, timeout_ms))))):
            self._solver.setOption(k, v)
        self._sm = cvc5.SymbolManager(self._tm)
        self._tracked = TrackedNames()
        self._terms: dict[str, object] = {}
        self._run("(set-logic ALL)")

    def _run(self, text: str) -> str:
        cvc5 = self._mod
        parser = cvc5.InputParser(self._solver, self._sm)
        parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "holokb")
        out = []
        try:
            while True:
                cmd = parser.nextCommand()
                if cmd.isNull():
                    break
                out.append(cmd.invoke(self._solver, self._sm))
        except RuntimeError as e:
            raise SolverError(f"cvc5 rejected SMT-LIB text: {e}") from None
        return "".join(out)

    def load(self, text: str) -> None:
        """Add declarations and assertions; named assertions become tracked."""
        text, names = rewrite_named(text)
        out = self._run(text)
        if "(error" in out:
            raise SolverError(f"cvc5 rejected SMT-LIB text: {out.strip()}")
        self._tracked.names.extend(names)

    def add(self, name: str, expr: str) -> None:
        """Add the tracked assertion ``expr`` under ``name``."""
        check_name(name)
        self.load(f"(declare-const {name} Bool)\n(assert (=> {name} {expr}))")
        self._tracked.names.append(name)

    def push(self) -> None:
        self._solver.push()
        self._tracked.push()

    def pop(self) -> None:
        self._tracked.pop()
        self._solver.pop()
        self._terms = {}  # cvc5 scopes declarations: popped symbols are gone

    def _term(self, name: str):
        t = self._terms.get(name)
        if t is None:
            cvc5 = self._mod
            parser = cvc5.InputParser(self._solver, self._sm)
            parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, check_name(name), "holokb")
            try:
                t = parser.nextTerm()
            except RuntimeError:
                raise SolverError(f"unknown assumption {name!r}") from None
            self._terms[name] = t
        return t

    def check(self, assumptions: Iterable[str] = (), *, model_for: Iterable[str] | None = None) -> SolveResult:
        """Check under tracked assertions plus ``assumptions``."""
        names = list(dict.fromkeys([*self._tracked.names, *assumptions]))
        lits = [self._term(n) for n in names]
        try:
            r = self._solver.checkSatAssuming(*lits) if lits else self._solver.checkSat()
        except RuntimeError as e:
            return SolveResult("unknown", reason=str(e))
        if r.isUnsat():
            core = tuple(sorted(str(t) for t in self._solver.getUnsatAssumptions()))
            return SolveResult("unsat", core=core)
        if r.isSat():
            wanted = None if model_for is None else set(model_for)
            model = []
            if wanted is None or wanted:
                declared = {str(t): t for t in self._sm.getDeclaredTerms()}
                for n, t in declared.items():
                    if t.getSort().isFunction() or (wanted is not None and n not in wanted):
                        continue
                    model.append((n, str(self._solver.getValue(t))))
            return SolveResult("sat", model=tuple(sorted(model)))
        expl = str(r.getUnknownExplanation())
        return SolveResult("unknown", reason="timeout" if "TIMEOUT" in expl else expl.lower())


class Cvc5Backend(OneShotMixin):
    """cvc5 through its SMT-LIB parser."""

    name = "cvc5"

    def __init__(self) -> None:
        _cvc5()

    def context(self, *, timeout_ms: int = 10_000) -> Cvc5Context:
        """A fresh incremental context."""
        return Cvc5Context(timeout_ms)

    def run_smtlib_file(self, path: str, *, timeout_ms: int = 2_000) -> tuple[str, ...]:
        """Conformance only: run a trusted script with cvc5's own command loop."""
        cvc5 = _cvc5()
        tm = cvc5.TermManager()
        solver = cvc5.Solver(tm)
        solver.setOption("tlimit-per", str(int(timeout_ms)))
        sm = cvc5.SymbolManager(tm)
        parser = cvc5.InputParser(solver, sm)
        parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, path)
        out = []
        try:
            while True:
                cmd = parser.nextCommand()
                if cmd.isNull():
                    break
                out.append(cmd.invoke(solver, sm))
        except RuntimeError as e:
            out.append(f"(error {e})")
        text = "".join(out)
        return ("error",) if "(error" in text else answers_from_output(text)
