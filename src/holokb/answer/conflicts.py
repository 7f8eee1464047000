"""Conflict detection (DS005 §4.4), confirmed and minimised by the solver.

Conflict key: (subject, predicate, qualifiers other than ``version``) — a ``condition`` qualifier
keeps "30 minutes for admins" and "15 minutes for guests" apart, the version is handled by the
rules below.  Over the candidate facts the question rests on:

1. with a version, only that version's facts (and version-less ones) take part; two facts with the
   same key and different objects conflict when the predicate is declared functional —
   ``differentValue``;
2. without a version, facts of different versions that give different values conflict when the
   predicate is functional or the question needs one value (a value answer, a check) —
   ``versionsDisagree`` (no silent choice between versions);
3. the same key and object with opposite polarities always conflict — ``polarity``.

A candidate pair is only reported when the solver finds the facts unsatisfiable together (over
their valid times; the predicate made functional for rules 1–2), and the pair reported is the
solver's minimised unsat core.  Pairs are taken smallest first (version, object, fact id).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from ..analysis.program import Rule
from ..core.terms import IRI, Term, term_sort_key
from ..ledger import FactView
from ..solver import ActiveSet, check_consistency
from ..solver.active_set import GroundFact
from ..solver.modes import SolverLimits
from .chain import Quoter, premise_entry
from .contract import ChainEntry, ChainRole, Conflict, ConflictReason, SolverCheck
from .retrieve import version_of


@dataclass(frozen=True, slots=True)
class ConflictCheck:
    """The outcome: confirmed conflicts, and whether the solver could not decide some candidate."""

    conflicts: tuple[Conflict, ...]
    undecided: bool = False


def conflict_key(v: FactView) -> tuple:
    f = v.fact
    quals = tuple((k, term_sort_key(t)) for k, t in f.qualifiers if k != "version")
    return (term_sort_key(f.subject), f.predicate.value, quals)


def _key_text(v: FactView) -> tuple[str, ...]:
    f = v.fact
    return (f.subject.value if isinstance(f.subject, IRI) else str(f.subject), f.predicate.value,
            *(f"{k}={t.value if isinstance(t, IRI) else t.lexical}" for k, t in f.qualifiers if k != "version"))


def _order(v: FactView) -> tuple:
    return (version_of(v) or "", term_sort_key(v.fact.object), v.fact.polarity, v.fact_id, v.span_id)


def _candidates(group: list[FactView], functional: bool, one_value: bool, version: str | None, objects: frozenset):
    """(reason, views that clash, as functional) per kind of clash in one key group, smallest first;
    polarity clashes only about the ``objects`` the answer rests on."""
    group = sorted(group, key=_order)
    out = []
    by_object: dict = {}
    for v in group:
        by_object.setdefault(term_sort_key(v.fact.object), []).append(v)
    for obj, views in by_object.items():
        if obj not in objects:
            continue  # "b is red" and "b is not red" say nothing about whether b is round
        pos = [v for v in views if v.fact.polarity == "affirm"]
        neg = [v for v in views if v.fact.polarity == "negate"]
        if pos and neg:
            out.append((ConflictReason.POLARITY, (pos[0], neg[0]), False))
    affirmed = [v for v in group if v.fact.polarity == "affirm"]
    if len({term_sort_key(v.fact.object) for v in affirmed}) < 2:
        return out
    if functional:
        first = affirmed[0]
        other = next(v for v in affirmed if term_sort_key(v.fact.object) != term_sort_key(first.fact.object))
        differs = version is None and version_of(first) != version_of(other)
        out.append((ConflictReason.VERSIONS_DISAGREE if differs else ConflictReason.DIFFERENT_VALUE,
                    tuple(affirmed), True))
    elif one_value and version is None:
        # The question wants one value: versions that give different answers may not be chosen between.
        by_version: dict = {}
        for v in affirmed:
            by_version.setdefault(version_of(v), set()).add(term_sort_key(v.fact.object))
        if len({frozenset(objs) for objs in by_version.values()}) > 1:
            first = affirmed[0]
            other = next(v for v in affirmed if version_of(v) != version_of(first)
                         and term_sort_key(v.fact.object) not in by_version[version_of(first)])
            out.append((ConflictReason.VERSIONS_DISAGREE, (first, other), True))
    return out


def _ground(v: FactView) -> GroundFact:
    f = v.fact
    return GroundFact(f.predicate.value, (f.subject, f.object), f.polarity, v.fact_id, (), v.valid)


def detect_conflicts(views: Iterable[FactView], *, focus: Iterable[tuple[Term, IRI, Term | None]] | None = None,
                     functional: frozenset[str] | None = None, one_value: frozenset[str] = frozenset(),
                     version: str | None, quoter: Quoter, backend: str = "z3",
                     limits: SolverLimits = SolverLimits(timeout_ms=5_000), max_groups: int = 64,
                     single_valued: frozenset[str] | None = None) -> ConflictCheck:
    """Confirmed conflicts among ``views`` about the statements in ``focus`` — (subject, predicate,
    object or None for any) the answer rests on (:func:`answer_focus`); None means every statement
    of ``views``.  ``functional``: predicates declared single-valued (``single_valued`` is its older
    name); ``one_value``: predicates the question needs one value of (versions must then agree)."""
    views = list(views)
    functional = functional if functional is not None else (single_valued or frozenset())
    if focus is None:
        focus = [(v.fact.subject, v.fact.predicate, v.fact.object) for v in views]
    wanted: dict[tuple, set] = {}
    for s, p, o in focus:
        wanted.setdefault((term_sort_key(s), p.value), set()).add(None if o is None else term_sort_key(o))
    groups: dict[tuple, list[FactView]] = {}
    seen: set[str] = set()
    for v in views:
        want = wanted.get((term_sort_key(v.fact.subject), v.fact.predicate.value))
        if want is not None and v.span_id not in seen:
            seen.add(v.span_id)
            groups.setdefault(conflict_key(v), []).append(v)
    conflicts: list[Conflict] = []
    undecided = False
    for key in sorted(groups)[:max_groups]:
        group = groups[key]
        if len(group) < 2:
            continue
        pred = group[0].fact.predicate.value
        want = wanted[(term_sort_key(group[0].fact.subject), pred)]
        objects = frozenset(term_sort_key(v.fact.object) for v in group) if None in want else frozenset(want)
        for reason, clash, as_functional in _candidates(group, pred in functional, pred in one_value, version, objects):
            c, unknown = _confirm(clash, reason, as_functional, backend, limits, quoter)
            undecided |= unknown
            if c is not None:
                conflicts.append(c)
    if len(groups) > max_groups:
        undecided = True
    return ConflictCheck(tuple(conflicts), undecided)


def _confirm(clash: Sequence[FactView], reason: ConflictReason, functional: bool, backend: str,
             limits: SolverLimits, quoter: Quoter) -> tuple[Conflict | None, bool]:
    by_id = {v.fact_id: v for v in clash}
    active = ActiveSet(tuple(_ground(v) for v in clash), functional=(clash[0].fact.predicate.value,) if functional else ())
    result = check_consistency(active, backend=backend, limits=limits)
    if result.status == "consistent":
        return None, False
    if result.status != "inconsistent":
        return None, True
    core = tuple(sorted({f.key for f in result.facts if f.key in by_id}))
    pair = sorted((by_id[k] for k in core), key=_order)
    if len(pair) < 2:
        pair = sorted(clash, key=_order)[:2]
    a, b = pair[0], pair[1]
    if reason is ConflictReason.VERSIONS_DISAGREE and version_of(a) == version_of(b):
        reason = ConflictReason.DIFFERENT_VALUE
    msg = _message(reason, a, b)
    return Conflict(premise_entry(a, quoter), premise_entry(b, quoter), reason, _key_text(a), msg,
                    SolverCheck(backend, core)), False


def _show(t: Term) -> str:
    return t.value if isinstance(t, IRI) else t.lexical


def _message(reason: ConflictReason, a: FactView, b: FactView) -> str:
    p = a.fact.predicate.value
    if reason is ConflictReason.POLARITY:
        return f"{_show(a.fact.subject)} {p} {_show(a.fact.object)} is both affirmed and negated"
    if reason is ConflictReason.VERSIONS_DISAGREE:
        return (f"versions disagree on {_show(a.fact.subject)} {p}: {version_of(a) or 'unversioned'} says "
                f"{_show(a.fact.object)}, {version_of(b) or 'unversioned'} says {_show(b.fact.object)}")
    return f"{_show(a.fact.subject)} {p} has two values: {_show(a.fact.object)} and {_show(b.fact.object)}"


def derived_conflict(pos: list[ChainEntry], neg: list[ChainEntry], rules: tuple[Rule, ...],
                     views: dict[str, FactView], backend: str = "z3",
                     limits: SolverLimits = SolverLimits(timeout_ms=5_000)) -> Conflict | None:
    """A goal proved both ways: the solver, given the input facts of both proofs and the rules,
    must find them unsatisfiable; the core names the input facts that clash."""
    inputs = sorted({e.fact_id for e in pos + neg if e.role is ChainRole.PREMISE and e.fact_id in views})
    active = ActiveSet(tuple(_ground(views[i]) for i in inputs), tuple(rules))
    result = check_consistency(active, backend=backend, limits=limits)
    if result.status != "inconsistent":
        return None
    core = tuple(sorted({f.key for f in result.facts if f.key}))
    a, b = pos[-1], neg[-1]
    s = a.fact.subject
    key = (s.value if isinstance(s, IRI) else s.lexical, a.fact.predicate.value)
    what = f"{key[0]} {key[1]} {_show(a.fact.object) if a.fact.object is not None else ''}".strip()
    return Conflict(a, b, ConflictReason.POLARITY, key, f"{what} is both derived and refuted", SolverCheck(backend, core))


def answer_focus(chain: Iterable[ChainEntry], goal_subject: Term | None = None, goal_predicate: IRI | None = None,
                 goal_object: Term | None = None) -> list[tuple[Term, IRI, Term | None]]:
    """The statements an answer rests on: its chain's premises, and the goal (object None = any value)."""
    out: list[tuple[Term, IRI, Term | None]] = [(e.fact.subject, e.fact.predicate, e.fact.object)
                                                 for e in chain if e.role is ChainRole.PREMISE]
    if goal_subject is not None and goal_predicate is not None:
        out.append((goal_subject, goal_predicate, goal_object))
    return out
