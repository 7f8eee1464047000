"""Proof steps as term ids: :meth:`Model.proof_steps` without decoding a single term.

A caller that keeps its own term ids (the ledger seeds the engine's dictionary with them, so an
input term's engine id is its ledger id) stores a closure from these steps directly; only the ids
the closure minted itself (computed values, rule constants the input never had) need decoding
and interning on the caller's side (:attr:`EncodedSteps.minted`).

Order and content are those of :meth:`Model.proof_steps`: ``decode(encoded_steps(m), m.terms)``
equals ``m.proof_steps()`` (held by a property test over random programs with time and negation).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.limits import Deadline
from ..core.premises import DerivedRef, PremiseRef
from ..core.time import Interval
from .dictionary import TermDictionary
from .model import Absence, _interval
from .proofs import path_score
from .steps import Columns, RuleLayout

if TYPE_CHECKING:
    from .model import Model, ProofStep

#: :class:`~.model.Absence` with term ids (None where the negated atom has ``?_``).
EncodedAbsence = Absence[int]


@dataclass(frozen=True, slots=True)
class EncodedStep:
    """One derived fact and its first derivation, as :class:`~.model.ProofStep` with term ids:
    args, bindings (sorted by name) and absent premises' args are ids of the model's dictionary."""

    predicate: str
    args: tuple[int, ...]
    valid: Interval
    rule: str
    depth: int
    score: float | None
    negated: bool
    premises: tuple[PremiseRef | None, ...]
    bindings: tuple[tuple[str, int], ...]
    absent: tuple[EncodedAbsence, ...] = ()


@dataclass(frozen=True, slots=True)
class EncodedSteps:
    """The steps (a prefix of :meth:`Model.derived` order when a deadline cut them) and, sorted, the
    ids they use that the dictionary minted itself rather than took from a caller (``seed``)."""

    steps: tuple[EncodedStep, ...]
    minted: tuple[int, ...]


def encoded_steps(model: "Model", *, deadline: Deadline | None = None) -> EncodedSteps:
    """Every derived fact of ``model`` with its proof step as ids (see the module doc);
    ``deadline``: stop when it expires (then a prefix)."""
    names = [r.name for r in model.program.rules]
    proofs = model.proofs
    cols = Columns(model.relations)
    layouts: dict[int, tuple] = {}
    order = model._derived_order()
    refs = PremiseRefs(model, cols) if proofs is not None else None
    used: set[int] = set()
    intervals: dict[tuple[int, int], Interval] = {}
    out: list[EncodedStep] = []
    for rk, ft, _ in order:
        rel = model.relations[rk]
        first = ft.first.tolist()
        rule, depth = rel.meta("rule")[ft.first].tolist(), rel.meta("depth")[ft.first].tolist()
        score = [None] * len(first) if proofs is None else [
            path_score(p, k) for p, k in zip(rel.meta("prod")[ft.first].tolist(), rel.meta("plen")[ft.first].tolist())]
        ids, vf, vt = ft.ids.tolist(), ft.valid_from.tolist(), ft.valid_to.tolist()
        if proofs is not None:
            m_depth, m_rule, m_proof, m_vf, m_vt = (cols.meta(rk, n) for n in
                                                     ("depth", "rule", "proof", "valid_from", "valid_to"))
        pred, neg = rk
        for k, r in enumerate(first):
            if deadline is not None and len(out) % 256 == 0 and deadline.expired():
                return EncodedSteps(tuple(out), _minted(model.terms, used))
            args = tuple(ids[k])
            used.update(args)
            span = (vf[k], vt[k])
            valid = intervals.get(span)
            if valid is None:  # most facts share a few intervals (often "always"): build each once
                valid = intervals[span] = _interval(*span)
            if proofs is None or m_depth[r] < 0:  # no proofs, or a row of the transitive plan
                out.append(EncodedStep(pred, args, valid, names[rule[k]], depth[k], score[k], neg, (), ()))
                continue
            ri, step = m_rule[r], m_proof[r]
            lay = layouts.get(ri)
            if lay is None:
                table = proofs.rules[ri]
                layout = RuleLayout.of(model.program, ri, tuple(n for n, _ in table.values))
                slots = [(name, label, cols.col(layout.atoms[label], pos)) for name, label, pos in layout.slots]
                lay = layouts[ri] = (layout, [p.tolist() for p in table.premise_rows],
                                     {n: v.tolist() for n, v in table.values}, slots)
            layout, prows, values, slots = lay
            rows = [p[step] for p in prows]
            vals = {name: col[rows[label]] for name, label, col in slots}
            for name in layout.values:
                vals[name] = values[name][step]
            premises = refs.of(layout.atoms, rows)
            used.update(vals.values())
            absent = ()
            if layout.negations:
                during = _interval(m_vf[r], m_vt[r])  # this derivation's
                absent = tuple(Absence(a.predicate, _negated_ids(model.terms, a, vals), a.negated, during)
                               for a in layout.negations)
                used.update(i for e in absent for i in e.args if i is not None)
            out.append(EncodedStep(pred, args, valid, names[ri], depth[k], score[k], neg, premises,
                                   tuple(sorted(vals.items())), absent))
    return EncodedSteps(tuple(out), _minted(model.terms, used))


class PremiseRefs:
    """The premises of proof steps as typed references: an input row's key, or the
    :class:`~holokb.core.DerivedRef` of the derived fact (position in :meth:`Model.derived`) whose
    interval holds a derived row."""

    def __init__(self, model: "Model", cols: Columns) -> None:
        order = model._derived_order()
        self.base = {rk: n for rk, _, n in order}
        self.fact_of = {rk: ft.row_fact.tolist() for rk, ft, _ in order}
        self.input_keys = model.input_keys
        self.cols = cols
        self.rules: dict = {}

    def of(self, atoms, rows: list[int]) -> tuple[PremiseRef | None, ...]:
        """The references of rows ``rows`` of the relations ``atoms`` (one per positive body atom)."""
        out: list[PremiseRef | None] = []
        for prk, prow in zip(atoms, rows):
            prule = self.rules.get(prk)
            if prule is None:
                prule = self.rules[prk] = self.cols.meta(prk, "rule")
            if prule[prow] < 0:
                out.append(self.input_keys[prk][prow])
            else:
                out.append(DerivedRef(self.base[prk] + self.fact_of[prk][prow]))
        return tuple(out)


def _negated_ids(terms: TermDictionary, atom, vals: dict) -> tuple[int | None, ...]:
    """A negated atom's argument ids under a step's bindings (constants interned; None for ``?_``)."""
    from ..analysis.program import Const

    return tuple(terms.intern_const(t.term) if isinstance(t, Const) else vals.get(t.name) for t in atom.args)


def _minted(terms: TermDictionary, used: set[int]) -> tuple[int, ...]:
    return tuple(sorted(i for i in used if not terms.is_seeded(i)))


def decode(encoded: EncodedSteps, terms: TermDictionary) -> tuple["ProofStep", ...]:
    """The steps with terms (what :meth:`Model.proof_steps` returns)."""
    from .model import DerivedFact, ProofStep

    term = terms.term
    out = []
    for s in encoded.steps:
        fact = DerivedFact(s.predicate, tuple(term(i) for i in s.args), s.valid, s.rule, s.depth, s.score, s.negated)
        absent = tuple(Absence(a.predicate, tuple(None if i is None else term(i) for i in a.args), a.negated, a.valid)
                       for a in s.absent)
        out.append(ProofStep(fact, s.premises, tuple((n, term(i)) for n, i in s.bindings), absent))
    return tuple(out)


__all__ = ["EncodedAbsence", "PremiseRefs", "EncodedStep", "EncodedSteps", "decode", "encoded_steps"]
