"""Typed references to the premises of a derived fact (what a proof step rests on).

A premise is an asserted fact of the ledger (:class:`AssertedRef`, by its fact id), a ground fact
written in a rule file (:class:`RuleFileRef`, by where it was written), or another derived fact
of the same closure (:class:`DerivedRef`, by its position in the closure's derived facts).
Callers match on the type (``match ref: case AssertedRef(fact_id): ...``), never on a prefix.

>>> ref = DerivedRef(3); isinstance(ref, DerivedRef), ref.seq
(True, 3)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .errors import Location


@dataclass(frozen=True, slots=True, order=True)
class AssertedRef:
    """An asserted fact, named by its id (``Fact.id``: 64 hex digits in the ledger)."""

    fact_id: str


@dataclass(frozen=True, slots=True)
class RuleFileRef:
    """A ground fact stated in a rule file, at ``origin`` (None when the text had no file)."""

    origin: Location | None = None


@dataclass(frozen=True, slots=True, order=True)
class DerivedRef:
    """The derived fact at position ``seq`` (0-based) of the same closure."""

    seq: int


#: What the engine's input facts are keyed by (returned in proofs).
InputRef = Union[AssertedRef, RuleFileRef]
#: A premise of a proof step.
PremiseRef = Union[AssertedRef, RuleFileRef, DerivedRef]

__all__ = ["AssertedRef", "DerivedRef", "InputRef", "PremiseRef", "RuleFileRef"]
