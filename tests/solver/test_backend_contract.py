"""The Backend contract, run against every installed backend."""
from __future__ import annotations

import pytest

from holokb.core.errors import SolverError
from holokb.solver import get_backend
from holokb.solver.backend import Backend, SolverContext

UNSAT_TEXT = """(declare-const x Int)
(assert (! (> x 2) :named big))
(assert (! (< x 1) :named small))
(assert (! (> x (- 5)) :named loose))
"""


def test_backends_satisfy_protocol(backend):
    assert isinstance(backend, Backend)
    assert isinstance(backend.context(timeout_ms=1000), SolverContext)


def test_unsat_core_names_only_the_conflicting_assertions(backend):
    r = backend.check_smtlib(UNSAT_TEXT, timeout_ms=2000)
    assert r.status == "unsat"
    assert set(r.core) >= {"big", "small"} and set(r.core) <= {"big", "small", "loose"}


def test_sat_model_values_satisfy_the_assertions(backend):
    r = backend.check_smtlib("(declare-const x Int)(declare-const y Int)(assert (! (= (+ x y) 7) :named s))"
                             "(assert (> x 5))(assert (> y 0))", timeout_ms=2000)
    assert r.status == "sat"
    assert int(r.value("x")) + int(r.value("y")) == 7
    assert int(r.value("x")) == 6


def test_model_for_restricts_the_model(backend):
    r = backend.check_smtlib("(declare-const x Int)(declare-const b Bool)(assert (= x 4))(assert b)",
                             timeout_ms=2000, model_for=["x"])
    assert r.model == (("x", "4"),)


def test_push_pop_restores_satisfiability(backend):
    c = backend.context(timeout_ms=2000)
    c.load("(declare-const x Int)")
    c.add("pos", "(> x 0)")
    c.push()
    c.add("neg", "(< x 0)")
    r = c.check()
    assert r.status == "unsat" and r.core == ("neg", "pos")
    c.pop()
    assert c.check().status == "sat"


def test_assumptions_select_assertions(backend):
    c = backend.context(timeout_ms=2000)
    c.load("(declare-const p Bool)(declare-const q Bool)(declare-const s1 Bool)(declare-const s2 Bool)"
           "(assert (=> s1 p))(assert (=> s2 (not p)))")
    assert c.check(["s1"]).status == "sat"
    r = c.check(["s1", "s2"])
    assert r.status == "unsat" and r.core == ("s1", "s2")


def test_pop_without_push_is_an_error(backend):
    with pytest.raises(SolverError):
        backend.context(timeout_ms=1000).pop()


def test_bad_text_is_a_solver_error(backend):
    with pytest.raises(SolverError):
        backend.check_smtlib("(assert (undeclared_symbol 1))", timeout_ms=1000)


def test_bad_assumption_name_is_refused(backend):
    c = backend.context(timeout_ms=1000)
    with pytest.raises(SolverError):
        c.add("(exit)", "true")


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(SolverError, match="unknown solver backend"):
        get_backend("yices")


def test_missing_cvc5_gives_install_hint(monkeypatch):
    import builtins
    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "cvc5":
            raise ImportError("no cvc5")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(SolverError, match="cvc5 is not installed: pip install cvc5"):
        get_backend("cvc5")


def test_quantified_timeout_is_unknown_not_a_hang(backend):
    # An undecidable-looking quantified problem with a tiny budget answers, never hangs.
    text = ("(declare-fun f (Int) Int)(assert (forall ((x Int)) (> (f x) (f (+ x 1)))))"
            "(assert (forall ((x Int)) (>= (f x) 0)))")
    r = backend.check_smtlib(text, timeout_ms=200)
    assert r.status in ("unknown", "unsat")
