"""Proof DAGs and the ThinkingDB path score.

``pathScore = ∏ fact.confidence × ∏ rule.weight × 1/(1 + 0.25·len) × goalBonus × seedBonus``
where the products run over the proof *tree* (a fact used twice counts twice), ``len`` is the
number of rule applications in that tree, and both bonuses default to 1.0 (the caller sets
``goal_bonus`` when the fact answers the question's goal and ``seed_bonus`` when the proof starts
from a retrieval seed).  The engine carries the two products per row while it derives, so a
score costs nothing extra at read time.

Node ids are content hashes (SHA-256 of the fact, rule and premise ids), so a sub-proof used
twice is one node and the proof is a DAG.  A proof cut by ``max_depth`` has ``partial=True``
on the cut nodes (and on every node above them).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..core.fact import encode_term
from ..core.premises import InputRef
from ..core.terms import Term
from ..core.time import Interval


def path_score(confidence_product: float, length: int, goal_bonus: float = 1.0, seed_bonus: float = 1.0) -> float:
    """ThinkingDB's pathScore from the product of confidences × weights and the rule count."""
    return confidence_product * (1.0 / (1.0 + 0.25 * length)) * goal_bonus * seed_bonus


@dataclass(frozen=True, slots=True)
class ProofNode:
    """One fact in a proof: an input fact (``rule is None``, ``key`` set), a rule application, or
    (``absent=True``) a negated premise: no fact ``predicate(args)`` held during ``valid`` (an
    arg of ``None`` stands for any value)."""

    id: str
    predicate: str
    args: tuple[Term | None, ...]
    valid: Interval
    negated: bool
    rule: str | None
    key: InputRef | None
    confidence: float
    bindings: tuple[tuple[str, Term], ...]
    premises: tuple["ProofNode", ...]
    partial: bool
    score: float
    absent: bool = False

    def nodes(self) -> tuple["ProofNode", ...]:
        """All distinct nodes of the DAG, depth-first, premises in body order, each once."""
        seen: dict[str, ProofNode] = {}

        def walk(n: ProofNode) -> None:
            if n.id in seen:
                return
            seen[n.id] = n
            for p in n.premises:
                walk(p)

        walk(self)
        return tuple(seen.values())

    def inputs(self) -> tuple["ProofNode", ...]:
        """The input facts the proof rests on (distinct, in DAG order)."""
        return tuple(n for n in self.nodes() if n.rule is None and not n.partial and not n.absent)


def node_id(predicate: str, args, valid: Interval, negated: bool, rule: str | None, key: object,
            premise_ids: tuple[str, ...]) -> str:
    """Content hash of a proof node (premises by id, so equal sub-proofs share an id)."""
    h = hashlib.sha256()
    h.update(predicate.encode())
    h.update(b"\x00-" if negated else b"\x00+")
    for a in args:
        h.update(b"\x00?" if a is None else encode_term(a))
    h.update(f"{valid.start}:{valid.end}|{rule}|{key!r}".encode())
    for p in premise_ids:
        h.update(p.encode())
    return h.hexdigest()
