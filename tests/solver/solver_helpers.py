"""Helpers shared by the solver tests (imported by name: tests folders are not packages)."""
from __future__ import annotations

from holokb.analysis.program import Atom, Const, Var
from holokb.core.terms import IRI

EX = "http://ex.org/"


def iri(local: str) -> IRI:
    return IRI(EX + local)


def atom(pred: str, *args, negated: bool = False) -> Atom:
    """``atom("p", "?x", "a")``: strings starting with ? are variables, others ex: IRIs, else terms."""
    out = []
    for a in args:
        if isinstance(a, str) and a.startswith("?"):
            out.append(Var(a[1:]))
        elif isinstance(a, str):
            out.append(Const(iri(a)))
        else:
            out.append(Const(a))
    return Atom(EX + pred, tuple(out), negated)
