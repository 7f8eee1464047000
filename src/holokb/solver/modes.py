"""The three reasoning modes over an active set: consistency, entailment, model finding.

Each runs under :class:`SolverLimits` (timeout, max active atoms, max expansion rounds) and an
optional caller-supplied ``expand(active_set, round) -> ActiveSet | None``: when a round ends
``unknown`` (solver unknown, or a budget hit) the loop expands the set and retries.  The loop
stops at a decisive answer, at ``max_rounds``, on ``timeout``, or on stagnation (``expand``
returned None or no new facts).  Results name the limit that ended the loop.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable, Literal as _Lit

from ..analysis.program import Atom, Negation, Rule, Var
from ..core.limits import Deadline, Limits
from ..core.terms import Term, term_sort_key
from .active_set import Absence, ActiveSet, GroundFact, relation_key
from .backend import Backend, get_backend
from .encode import Encoding, encode
from .ground import BudgetHit, Grounder, _plan
from .limits import Limit, SolverLimit

Expand = Callable[[ActiveSet, int], "ActiveSet | None"]




@dataclass(frozen=True, slots=True)
class SolverLimits:
    """Budgets for one reasoning call.  ``None`` means unbounded (except the per-check timeout)."""

    timeout_ms: int = 10_000
    max_atoms: int | None = 200_000
    max_rounds: int = 3
    max_core_checks: int = 64

    @staticmethod
    def of(limits: "SolverLimits | Limits | None") -> "SolverLimits":
        """Accept the KB-wide :class:`Limits` (its ``timeout_s``) or SolverLimits or None."""
        if limits is None:
            return SolverLimits()
        if isinstance(limits, SolverLimits):
            return limits
        return SolverLimits(timeout_ms=10_000 if limits.timeout_s is None else int(limits.timeout_s * 1000))


@dataclass(frozen=True, slots=True)
class ConsistencyResult:
    """``consistent`` | ``inconsistent`` | ``unknown``; for inconsistent, the minimised conflict:
    the facts (sorted by key), the rule/constraint labels (sorted), the negated premises the
    conflict relies on (``absent``), and the instant it holds at."""

    status: _Lit["consistent", "inconsistent", "unknown"]
    facts: tuple[GroundFact, ...] = ()
    constraints: tuple[str, ...] = ()
    at: int | None = None
    reason: str | None = None
    limit_hit: Limit | None = None
    rounds: int = 1
    absent: tuple[Absence, ...] = ()

    @property
    def truncated(self) -> bool:
        return self.limit_hit is not None


@dataclass(frozen=True, slots=True)
class EntailmentResult:
    """``entailed`` | ``refuted`` | ``unknown``, with the supporting facts/rules (core), the negated
    premises it relies on (``absent``), or the reason."""

    status: _Lit["entailed", "refuted", "unknown"]
    facts: tuple[GroundFact, ...] = ()
    constraints: tuple[str, ...] = ()
    reason: str | None = None
    limit_hit: Limit | None = None
    rounds: int = 1
    absent: tuple[Absence, ...] = ()

    @property
    def truncated(self) -> bool:
        return self.limit_hit is not None


@dataclass(frozen=True, slots=True)
class ModelResult:
    """``found`` | ``none`` | ``unknown``; ``bindings`` are (variable, core Term) in query order.

    Candidates are tried in order of their bindings' term sort keys, so the first model is stable.
    """

    status: _Lit["found", "none", "unknown"]
    bindings: tuple[tuple[str, Term], ...] = ()
    reason: str | None = None
    limit_hit: Limit | None = None
    rounds: int = 1

    @property
    def truncated(self) -> bool:
        return self.limit_hit is not None


@dataclass
class _Budget:
    limits: SolverLimits
    deadline: Deadline = field(init=False)
    start: float = field(init=False)

    def __post_init__(self) -> None:
        self.deadline = Deadline(self.limits.timeout_ms / 1000)
        self.start = time.monotonic()

    def remaining_ms(self) -> int:
        """What is left of the call's timeout, at least 1 ms (monotonic clock; budgets only)."""
        return max(1, int(self.limits.timeout_ms - (time.monotonic() - self.start) * 1000))


def _core_parts(enc: Encoding, core: tuple[str, ...]
                ) -> tuple[tuple[GroundFact, ...], tuple[str, ...], tuple[Absence, ...]]:
    """A core's facts (sorted by key), rule/constraint labels (sorted) and absences (pattern order)."""
    facts = sorted((enc.active.facts[int(n[2:])] for n in core if n.startswith("f_")),
                   key=lambda f: (f.key, f.predicate))
    labels = sorted(enc.label(n) for n in core if not n.startswith(("f_", "n_")))
    absent = [enc.absence(n) for n in sorted((n for n in core if n.startswith("n_")), key=lambda n: int(n[2:]))]
    return tuple(facts), tuple(labels), tuple(absent)


def _minimise(ctx, core: tuple[str, ...], extra: tuple[str, ...], limits: SolverLimits) -> tuple[str, ...]:
    """Deletion-based minimisation of the fact part of a core (trackers stay on)."""
    trackers = tuple(n for n in core if not n.startswith("f_"))
    facts = sorted((n for n in core if n.startswith("f_")), key=lambda n: int(n[2:]))
    all_trackers = tuple(n for n in extra if not n.startswith("f_"))
    checks = 0
    i = 0
    while i < len(facts) and checks < limits.max_core_checks:
        trial = facts[:i] + facts[i + 1:]
        checks += 1
        r = ctx.check(tuple(trial) + all_trackers, model_for=())
        if r.status == "unsat":
            keep = set(r.core)
            facts = [n for n in trial if n in keep]
        else:
            i += 1
    r = ctx.check(tuple(facts) + all_trackers, model_for=())
    used = tuple(n for n in r.core if not n.startswith("f_")) if r.status == "unsat" else trackers
    return tuple(facts) + used


def _loop(active: ActiveSet, attempt, expand: Expand | None, limits: SolverLimits, budget: _Budget):
    """Run ``attempt`` and expand on unknown until decisive or a stop condition; returns (result, rounds, limit)."""
    rounds = 0
    while True:
        rounds += 1
        result, limit = attempt(active)
        if result.status != "unknown":
            return result, rounds, None
        if budget.deadline.expired():
            return result, rounds, SolverLimit.TIMEOUT
        if expand is None:
            return result, rounds, limit
        if rounds >= limits.max_rounds:
            return result, rounds, SolverLimit.MAX_ROUNDS
        nxt = expand(active, rounds)
        if nxt is None or nxt.fact_keys() == active.fact_keys():
            return result, rounds, SolverLimit.STAGNATION
        active = nxt


def _timeout(reason: object) -> SolverLimit | None:
    """A solver's 'unknown' because its time ran out is the timeout limit; other unknowns are no limit."""
    return SolverLimit.TIMEOUT if reason is not None and "timeout" in str(reason) else None


def _encode(active: ActiveSet, limits: SolverLimits, budget: _Budget, seeds=()):
    try:
        return encode(active, seeds=seeds, max_atoms=limits.max_atoms, deadline=budget.deadline), None
    except BudgetHit as e:
        return None, e.limit


def check_consistency(active: ActiveSet, *, backend: Backend | str = "z3",
                      limits: SolverLimits | Limits | None = None,
                      expand: Expand | None = None, at: int | None = None) -> ConsistencyResult:
    """Is there a world where every fact, rule and constraint of ``active`` holds at each instant
    (only at instant ``at`` when given)?

    Checks all facts at once first (consistent then, by monotonicity; the absences of every
    instant are assumed together, which only adds constraints); otherwise checks each elementary
    time segment in order and reports the first conflict, minimised.
    """
    lim = SolverLimits.of(limits)
    be = get_backend(backend) if isinstance(backend, str) else backend
    budget = _Budget(lim)

    def attempt(a: ActiveSet):
        enc, hit = _encode(a, lim, budget)
        if enc is None:
            return ConsistencyResult("unknown", reason=f"budget: {hit}"), hit
        ctx = be.context(timeout_ms=budget.remaining_ms())
        ctx.load(enc.text)
        return check_encoded(ctx, enc, lim, budget.deadline, at=at)

    result, rounds, limit = _loop(active, attempt, expand, lim, budget)
    return replace(result, limit_hit=limit, rounds=rounds)


def check_encoded(ctx, enc: Encoding, lim: SolverLimits, deadline: Deadline,
                  skip: frozenset[str] = frozenset(), at: int | None = None) -> tuple[ConsistencyResult, str | None]:
    """Consistency of an encoding already loaded in ``ctx`` (facts named in ``skip`` are not assumed;
    only instant ``at`` when given)."""
    def assumptions(t: int | None) -> tuple[str, ...]:
        names = enc.assumptions_at(t)
        return tuple(n for n in names if n not in skip) if skip else names

    if at is None:
        # Fast path: a few group literals instead of one assumption per fact.
        r = ctx.check(enc.fast_assumptions(skip, every_instant=True), model_for=())
        if r.status == "sat":
            return ConsistencyResult("consistent"), None
        if r.status == "unknown":
            return ConsistencyResult("unknown", reason=r.reason), _timeout(r.reason)
    for t in (enc.time_points() if at is None else (at,)):
        if deadline.expired():
            return ConsistencyResult("unknown", reason="budget: timeout"), SolverLimit.TIMEOUT
        names = assumptions(t)
        r = ctx.check(names, model_for=())
        if r.status == "unsat":
            facts, labels, absent = _core_parts(enc, _minimise(ctx, r.core, names, lim))
            return ConsistencyResult("inconsistent", facts, labels, at=t, absent=absent), None
        if r.status == "unknown":
            return ConsistencyResult("unknown", reason=r.reason), _timeout(r.reason)
    return ConsistencyResult("consistent"), None


def _probe(ctx, enc: Encoding, extra: tuple[str, ...]):
    """Check under the group literals; only an unsat answer is re-checked per fact, for its core."""
    r = ctx.check(enc.fast_assumptions() + extra, model_for=())
    if r.status == "unsat":
        r = ctx.check(enc.assumptions_at(None) + extra, model_for=())
    return r


Goal = Atom | tuple[Atom, ...]


def _goal_atoms(goal: Goal) -> tuple[Atom, ...]:
    atoms = (goal,) if isinstance(goal, Atom) else tuple(goal)
    for a in atoms:
        if any(isinstance(x, Var) for x in a.args):
            from ..core.errors import SolverError
            raise SolverError("an entailment goal must be ground; use find_model for variables")
    return atoms


def entails(active: ActiveSet, goal: Goal, *, backend: Backend | str = "z3",
            limits: SolverLimits | Limits | None = None, expand: Expand | None = None) -> EntailmentResult:
    """Does ``active`` entail the ground goal (a conjunction of atoms; ``negated`` atoms are negative facts)?

    All facts are assumed together (one snapshot: pass the facts visible at one AsOf).  Entailed
    when facts ∧ ¬goal is unsat (the core is the support, with the absences it relies on); refuted
    when a conjunct of a closed relation (``ActiveSet.closed``) does not follow (negation as
    failure), or when facts ∧ goal is unsat; unknown otherwise (the reason says whether the
    premises are inconsistent, nothing decides an open-world goal, or a budget ran out).
    """
    lim = SolverLimits.of(limits)
    be = get_backend(backend) if isinstance(backend, str) else backend
    budget = _Budget(lim)
    atoms = _goal_atoms(goal)
    seeds = tuple((a.predicate, tuple(x.term for x in a.args), a.negated) for a in atoms)

    def attempt(a: ActiveSet):
        enc, hit = _encode(a, lim, budget, seeds)
        if enc is None:
            return EntailmentResult("unknown", reason=f"budget: {hit}"), hit
        lits = [enc.literal(p, args, neg) for p, args, neg in seeds]
        goal_text = _conj_text(lits)
        ctx = be.context(timeout_ms=budget.remaining_ms())
        ctx.load(enc.text + f"(declare-const goal_ Bool)\n(assert (= goal_ {goal_text}))\n"
                 "(declare-const neg_goal_ Bool)\n(assert (= neg_goal_ (not goal_)))\n"
                 + "".join(f"(declare-const neg_{k}_ Bool)\n(assert (= neg_{k}_ (not {lit})))\n"
                           for k, lit in enumerate(lits)))
        base = enc.assumptions_at(None)
        r = _probe(ctx, enc, ())
        if r.status == "unsat":
            facts, labels, absent = _core_parts(enc, _minimise(ctx, r.core, base, lim))
            return EntailmentResult("unknown", facts, labels, reason="inconsistent premises", absent=absent), None
        r = _probe(ctx, enc, ("neg_goal_",))
        if r.status == "unsat":
            core = _minimise(ctx, tuple(n for n in r.core if n != "neg_goal_"), base + ("neg_goal_",), lim)
            facts, labels, absent = _core_parts(enc, tuple(n for n in core if n != "neg_goal_"))
            return EntailmentResult("entailed", facts, labels, reason="core", absent=absent), None
        unknown = r.status == "unknown"
        for k, (p, args, neg) in enumerate(seeds):
            if relation_key(p, args, neg) not in a.closed:
                continue
            rk = _probe(ctx, enc, (f"neg_{k}_",))
            if rk.status == "sat":
                # Closed world: what the facts and rules do not derive does not hold.
                return EntailmentResult("refuted", reason="closed world: not derived (negation as failure)",
                                        absent=(Absence(p, args, neg),)), None
            unknown |= rk.status == "unknown"
        r2 = _probe(ctx, enc, ("goal_",))
        if r2.status == "unsat":
            core = _minimise(ctx, tuple(n for n in r2.core if n != "goal_"), base + ("goal_",), lim)
            facts, labels, absent = _core_parts(enc, tuple(n for n in core if n != "goal_"))
            return EntailmentResult("refuted", facts, labels, reason="core", absent=absent), None
        if unknown or r2.status == "unknown":
            return EntailmentResult("unknown", reason="solver: " + str(r.reason or r2.reason)), (
                _timeout(r.reason or r2.reason))
        return EntailmentResult("unknown", reason="neither goal nor its negation follows"), None

    result, rounds, limit = _loop(active, attempt, expand, lim, budget)
    return replace(result, limit_hit=limit, rounds=rounds)


def _conj_text(lits: list[str]) -> str:
    return lits[0] if len(lits) == 1 else f"(and {' '.join(lits)})"


def find_model(active: ActiveSet, query_vars: tuple[str, ...] | list[str], constraints: tuple, *,
               backend: Backend | str = "z3", limits: SolverLimits | Limits | None = None,
               expand: Expand | None = None) -> ModelResult:
    """Find bindings of ``query_vars`` for which the query body ``constraints`` (atoms, comparisons,
    closed negations) can hold together with the whole active set; bindings are core Terms."""
    lim = SolverLimits.of(limits)
    be = get_backend(backend) if isinstance(backend, str) else backend
    budget = _Budget(lim)
    body = tuple(constraints)
    query = Rule("query_", None, body)
    plan = _plan(query)
    for v in query_vars:
        if not any(isinstance(x, Var) and x.name == v for it in body if isinstance(it, Atom) for x in it.args) \
                and not any(getattr(it, "target", None) == Var(v) for it in body):
            from ..core.errors import SolverError
            raise SolverError(f"query variable ?{v} is not bound by any query atom")

    def attempt(a: ActiveSet):
        # Pass 1 finds the query atoms nothing asserts (open world); pass 2 grounds the rules with them.
        try:
            pre = Grounder(a, max_atoms=lim.max_atoms, deadline=budget.deadline)
            pre.run()
            pre.open_query = True
            seeds = sorted({pre.atoms[i] for _b, pos in pre._solve(plan, 0, {}, ()) for i in pos
                            if i not in pre.possible},
                           key=lambda s: (s[0], s[2], [term_sort_key(t) for t in s[1]]))
        except BudgetHit as e:
            return ModelResult("unknown", reason=f"budget: {e.limit}"), e.limit
        enc, hit = _encode(a, lim, budget, tuple(seeds))
        if enc is None:
            return ModelResult("unknown", reason=f"budget: {hit}"), hit
        g: Grounder = enc.grounder
        if any(isinstance(item, Negation) for item in plan) and a.closed_world is None:
            from ..core.errors import SolverError
            raise SolverError("`not` in a query needs the closed world it reads (ActiveSet.closed_world)")
        absent = set(g.absent(None)) if a.closed_world is not None else set()
        cands = []
        for binding, pos in g._solve(plan, 0, {}, ()):
            if not set(g.naf_of(plan, binding)) <= absent:
                continue  # negation as failure: something matching the negated atom holds
            vals = tuple((v, binding[v]) for v in query_vars)
            cands.append((tuple(term_sort_key(t) for _, t in vals), vals, pos))
        cands.sort(key=lambda c: c[0])
        ctx = be.context(timeout_ms=budget.remaining_ms())
        ctx.load(enc.text)
        base = enc.fast_assumptions()
        seen = set()
        unknown = None
        derived: dict[int, str] = {}

        def follows(i: int) -> str:
            # A closed atom holds only where the facts and rules derive it.
            if i not in derived:
                ctx.load(f"(declare-const d_{i} Bool)\n(assert (= d_{i} (not a_{i})))\n")
                derived[i] = ctx.check(base + (f"d_{i}",), model_for=()).status
            return derived[i]

        for n, (key, vals, pos) in enumerate(cands):
            if key in seen:
                continue
            if budget.deadline.expired():
                return ModelResult("unknown", reason="budget: timeout"), SolverLimit.TIMEOUT
            closed = [follows(i) for i in pos if relation_key(*g.atoms[i]) in a.closed]
            if "sat" in closed:
                seen.add(key)
                continue
            lits = [f"a_{i}" for i in pos]
            ctx.load(f"(declare-const q_{n} Bool)\n(assert (= q_{n} {_conj_text(lits) if lits else 'true'}))\n")
            r = ctx.check(base + (f"q_{n}",), model_for=())
            if r.status == "sat" and "unknown" not in closed:
                return ModelResult("found", vals), None
            if r.status == "unknown" or "unknown" in closed:
                unknown = r.reason or "unknown"
            else:
                seen.add(key)
        if unknown is not None:
            return ModelResult("unknown", reason=f"solver: {unknown}"), _timeout(unknown)
        return ModelResult("none"), None

    result, rounds, limit = _loop(active, attempt, expand, lim, budget)
    return ModelResult(result.status, result.bindings, result.reason, limit, rounds)


__all__ = ["ConsistencyResult", "EntailmentResult", "Limit", "ModelResult", "SolverLimit", "SolverLimits", "check_consistency",
           "entails", "find_model"]
