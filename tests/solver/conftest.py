"""Solver fixtures: every contract test runs once per installed backend."""
from __future__ import annotations

import pytest

from holokb.solver import get_backend, installed_backends

def _params():
    out = []
    for name in ("z3", "cvc5"):
        marks = () if name in installed_backends() else (pytest.mark.skip(reason=f"{name} is not installed"),)
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.fixture(params=_params())
def backend_name(request) -> str:
    return request.param


@pytest.fixture
def backend(backend_name):
    return get_backend(backend_name)
