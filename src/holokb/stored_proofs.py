"""Explanations read from a stored closure's proof rows (no closure is computed).

A fresh stored closure (same rule set, same AsOf, not stale, not truncated) holds every derived
fact with its one proof step: rule, bindings and premises (:class:`~holokb.core.AssertedRef` to an
asserted fact, :class:`~holokb.core.DerivedRef` to another derived row).  :func:`stored_proof`
rebuilds the :class:`~holokb.engine.ProofNode` DAG the closure's ``explain`` gives — node for node,
content-hashed ids included (a differential test holds them equal) — reading only the rows the
proof uses and the asserted facts at its leaves.

It answers ``None`` (the caller computes instead) when a step cannot be read back exactly: a
premise that was a ground fact of a rule file (not stored), a rule the program no longer has, or
any input fact at the closure's system time bounded in valid time (a stored row keeps the fact's
maximal interval and names premises by fact, not the derivation's own interval and premise rows
that the engine's proof shows; a differential test over random temporal data holds this).
"""
from __future__ import annotations

from dataclasses import dataclass

from .analysis import Program
from .analysis.program import Atom, Const, Negation, Var
from .core import AsOf, AssertedRef, DerivedRef, IRI, Interval, Limits, Term
from .core.fact import encode_term
from .engine import ProofNode
from .engine.proofs import node_id, path_score
from .ledger import ClosureInfo, FactView, Ledger
from .ledger.derived import DerivedView
from .reasoning import TRIPLE

_ALL = Limits(max_results=None)


class _NotStored(Exception):
    """A step that cannot be rebuilt from the stored rows."""


@dataclass(frozen=True, slots=True)
class StoredProof:
    """The proof of a fact from a stored closure (``proof`` None: the closure does not hold the fact)."""

    proof: ProofNode | None


def _arg(t, binding: dict[str, Term]) -> Term | None:
    return t.term if isinstance(t, Const) else binding.get(t.name) if isinstance(t, Var) else None


class _Reader:
    def __init__(self, ledger: Ledger, info: ClosureInfo, program: Program, as_of: AsOf, max_depth: int | None):
        self.ledger, self.info, self.as_of, self.max_depth = ledger, info, as_of, max_depth
        self.rules = {r.name: r for r in program.rules}
        self.memo: dict = {}

    def asserted(self, predicate: str, pattern: tuple[Term | None, ...], fact_id: str | None) -> FactView | None:
        """The visible span the closure's input row came from: the fact's earliest (valid_from, valid_to)."""
        if predicate == TRIPLE and len(pattern) == 3:
            s, p, o = pattern
            if not isinstance(p, IRI):
                return None
        elif len(pattern) == 2:
            s, p, o = pattern[0], IRI(predicate), pattern[1]
        else:
            return None
        if not isinstance(s, IRI):
            return None
        spans = [v for v in self.ledger.facts(self.as_of, about=s, predicate=p, obj=o, limits=_ALL)
                 if (fact_id is None or v.fact_id == fact_id) and v.fact.polarity == "affirm"]
        return min(spans, key=lambda v: (v.valid.start, _end(v.valid), v.span_id)) if spans else None

    def input_node(self, view: FactView, predicate: str) -> ProofNode:
        key = AssertedRef(view.fact_id)
        args = ((view.fact.subject, view.fact.predicate, view.fact.object) if predicate == TRIPLE
                else (view.fact.subject, view.fact.object))
        conf = float(self.ledger.confidences([view.fact_id])[0])
        nid = node_id(predicate, args, view.valid, False, None, key, ())
        return ProofNode(nid, predicate, args, view.valid, False, None, key, conf, (), (), False, path_score(conf, 0))

    def derived_node(self, v: DerivedView, level: int) -> ProofNode:
        memo_key = (v.ref, level if self.max_depth is not None else 0)
        if memo_key in self.memo:
            return self.memo[memo_key]
        rule = self.rules.get(v.rule)
        if rule is None:
            raise _NotStored(f"rule {v.rule} is not in the program")
        pred, args = v.predicate.value, v.args
        score = v.score if v.score is not None else 1.0
        if self.max_depth is not None and level >= self.max_depth:
            nid = node_id(pred, args, v.valid, v.negated, rule.name, "partial", ())
            node = ProofNode(nid, pred, args, v.valid, v.negated, rule.name, None, 1.0, (), (), True, score)
        else:
            atoms = [a for a in rule.body if isinstance(a, Atom)]
            if len(atoms) != len(v.premises):
                raise _NotStored("a premise was a ground fact of a rule file")
            binding = dict(v.bindings)
            derived = {p: w for p, w in zip(
                [p for p in v.premises if isinstance(p, DerivedRef)],
                self.ledger.derived_by_ref(self.info, [p for p in v.premises if isinstance(p, DerivedRef)]))}
            premises = []
            for atom, ref in zip(atoms, v.premises):
                if isinstance(ref, DerivedRef):
                    premises.append(self.derived_node(derived[ref], level + 1))
                    continue
                view = self.asserted(atom.predicate, tuple(_arg(t, binding) for t in atom.args), ref.fact_id)
                if view is None or atom.negated:
                    raise _NotStored("an asserted premise is not visible at the AsOf")
                premises.append(self.input_node(view, atom.predicate))
            for b in rule.body:  # negated premises: absent over the derivation's own interval
                if isinstance(b, Negation):
                    a = b.atom
                    aargs = tuple(_arg(t, binding) for t in a.args)
                    aid = node_id(a.predicate, aargs, v.valid, a.negated, None, "absent", ())
                    premises.append(ProofNode(aid, a.predicate, aargs, v.valid, a.negated, None, None, 1.0, (), (),
                                              False, 1.0, absent=True))
            pids = tuple(n.id for n in premises)
            nid = node_id(pred, args, v.valid, v.negated, rule.name, None, pids)
            node = ProofNode(nid, pred, args, v.valid, v.negated, rule.name, None, 1.0, v.bindings, tuple(premises),
                             any(n.partial for n in premises), score)
        self.memo[memo_key] = node
        return node


def _end(valid: Interval) -> int:
    return valid.end if valid.end is not None else 2 ** 63


def stored_proof(ledger: Ledger, info: ClosureInfo, program: Program, predicate: str, args: tuple[Term, ...],
                 negated: bool, as_of: AsOf, max_depth: int | None = None) -> StoredProof | None:
    """The proof of ``predicate(args)`` read from the fresh stored closure ``info`` (None: it cannot be
    read back exactly; compute it instead)."""
    if not ledger.timeless_at(as_of.system):
        # A stored row holds a fact's maximal interval and names its premises by fact, while the
        # engine's proof is of one derivation (its own interval, the exact premise rows): with time
        # in the input they can differ, so the proof is computed instead.
        return None
    reader = _Reader(ledger, info, program, as_of, max_depth)
    if not negated and args:
        # An asserted fact is its own proof (the closure's input row; a derivation of it adds nothing).
        view = reader.asserted(predicate, args, None)
        if view is not None:
            return StoredProof(reader.input_node(view, predicate))
    first = args[0] if args and isinstance(args[0], IRI) else None
    second = args[1] if len(args) == 2 else None
    page = ledger.derived_facts(info, about=first, predicate=IRI(predicate), obj=second, limits=_ALL)
    want = tuple(encode_term(a) for a in args)
    found = [v for v in page if tuple(encode_term(a) for a in v.args) == want and v.negated == negated]
    if not found:
        return StoredProof(None)
    try:
        return StoredProof(reader.derived_node(found[0], 0))
    except _NotStored:
        return None

__all__ = ["StoredProof", "stored_proof"]
