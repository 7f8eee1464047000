"""The intuition-to-reasoning loop (DS004): the vector index proposes a compact candidate set, local
closure and the solver decide on it, and the set grows in fixed steps while the answer is unknown.

Round 0 takes the ``initial`` facts nearest to the goal's terms (its constants, and its predicate
unless that is ``rdf:type``).  Each later round re-queries with the goal's terms plus the entities
the candidate set mentions (spreading to the next hop) and adds the ``step`` nearest facts not yet
in the set.  The loop stops when the solver decides (``entailed`` / ``refuted``), when a round adds
nothing (stagnation), after ``max_rounds`` rounds, or at the deadline.  With strategy ``none`` the
candidate set is every visible fact (one round): the baseline.

Intuition never proves anything, and a subset must never prove what the whole KB would not:
entailment and refutation are monotone in the facts for positive rules, explicit negative facts,
functional predicates and constraints, so a decision on a subset stands for the whole KB.  The
exceptions are predicates read under negation as failure or inside aggregates, and SHACL minimum
counts; every visible fact of such a predicate is always in the candidate set, and minimum counts
are left to ``kb.prove`` over the whole neighbourhood (only maximum counts and datatypes are used).
"""
from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field, replace
from typing import Literal as _Lit, Sequence

from .analysis import Atom, Const, Program, check_program
from .analysis.program import Aggregate, Negation
from .core import AsOf, IRI, InvalidValueError, Limits, RDF_TYPE, Term
from .engine import Database, ProofNode, closure
from .ledger import FactView, Ledger
from .checking import ground
from .closed_world import closed_relations, with_snapshot
from .reasoning import add_program_facts
from .solver import ActiveSet, Cardinality, EntailmentResult, SolverLimits, entails
from .solver.active_set import relation_key
from .vectors import DEFAULT_VECTORS, VectorCache
from .vsa import VSAConfig, VectorSpace

_ALL = Limits(max_results=None)
#: Hits read per query term beyond what the round needs (see nearest_facts).
_TERM_DEPTH = 512


class Strategy(enum.Enum):
    """Which index proposes the candidate set: none (every visible fact), HRR or binary HDC."""

    NONE = "none"
    HRR = "hrr"
    HDC = "hdc"

    @staticmethod
    def parse(text: str) -> "Strategy":
        try:
            return Strategy(text.strip().lower())
        except ValueError:
            raise InvalidValueError(f"unknown intuition strategy {text!r}; expected none, hrr or hdc") from None


class LoopStop(enum.Enum):
    """Why the loop stopped."""

    DECIDED = "decided"          # the solver said entailed or refuted
    WHOLE_KB = "whole_kb"        # the candidate set was every visible fact (strategy none, or it grew to that)
    STAGNATION = "stagnation"    # a round found no new fact
    MAX_ROUNDS = "max_rounds"
    TIMEOUT = "timeout"


@dataclass(frozen=True, slots=True)
class LoopSettings:
    """Strategy, solver and the loop's budget: candidate set size, fixed step, rounds, deadline."""

    strategy: Strategy = Strategy.HDC
    solver: str = "z3"
    initial: int = 32
    step: int = 32
    max_rounds: int = 5
    dim: int | None = None
    seed: int = 0
    timeout_s: float = 30.0
    solver_limits: SolverLimits = field(default_factory=lambda: SolverLimits(timeout_ms=10_000))

    def __post_init__(self) -> None:
        if self.initial < 1 or self.step < 1 or self.max_rounds < 1:
            raise InvalidValueError("initial, step and max_rounds must be at least 1")
        if self.solver not in ("z3", "cvc5"):
            raise InvalidValueError(f"unknown solver {self.solver!r}; expected z3 or cvc5")
        if not self.timeout_s > 0:
            raise InvalidValueError("timeout_s must be positive")

    def vsa_config(self) -> VSAConfig:
        return VSAConfig.default(self.strategy.value, dim=self.dim, seed=self.seed)


@dataclass(frozen=True, slots=True)
class RoundReport:
    """One round: candidate-set size, the solver's status, whether local closure derived the goal."""

    round: int
    candidates: int
    status: str
    closure_holds: bool


@dataclass(frozen=True, slots=True)
class IntuitionResult:
    """The loop's outcome.  ``status`` is the solver's verdict on the last candidate set; ``score`` and
    ``proof`` come from local closure over it (ThinkingDB path score) when it derived the goal."""

    status: _Lit["entailed", "refuted", "unknown"]
    strategy: Strategy
    solver: str
    rounds: tuple[RoundReport, ...]
    candidates: int
    kb_facts: int
    stop: LoopStop
    solver_result: EntailmentResult
    score: float | None = None
    proof: ProofNode | None = None
    candidate_ids: tuple[str, ...] = ()

    @property
    def truncated(self) -> bool:
        """The loop gave up undecided because a budget ran out (rounds or time)."""
        return self.status == "unknown" and self.stop in (LoopStop.MAX_ROUNDS, LoopStop.TIMEOUT)


class IntuitionLoop:
    """Proves ground goals over one ledger with an intuition strategy (reuse it across questions:
    the visible facts and vector spaces are cached per ledger state and AsOf)."""

    def __init__(self, ledger: Ledger, program: Program, *, cardinalities: Sequence[Cardinality] = (),
                 vectors: VectorCache | None = None):
        self.ledger = ledger
        self.program = program
        # Minimum counts are not monotone in the facts (see the module doc); maximum counts are.
        self.cards = tuple(replace(c, min_count=0) for c in cardinalities if c.max_count is not None or c.datatype)
        self.vectors = vectors or DEFAULT_VECTORS
        self._views: tuple[tuple, AsOf, dict[str, FactView]] | None = None
        self._closed = closed_relations(program.rules + program.constraints)
        self._cones: dict[tuple, Program] = {}
        self._index: tuple[dict, dict] | None = None

    def visible(self, as_of: AsOf) -> dict[str, FactView]:
        """Visible facts by fact id (cached while the ledger is unchanged)."""
        marker = (self.ledger.change_marker(), self.ledger.content_marker())
        if self._views is not None and self._views[0] == marker and self._views[1] == as_of:
            return self._views[2]
        views: dict[str, FactView] = {}
        for v in self.ledger.facts(as_of, limits=_ALL):
            if not v.fact.qualifiers:
                views.setdefault(v.fact_id, v)
        self._views = (marker, as_of, views)
        return views

    def prove(self, goal: Atom, *, as_of: AsOf, settings: LoopSettings = LoopSettings()) -> IntuitionResult:
        """Entailed / refuted / unknown for a ground goal, deciding on a candidate set the index proposes."""
        deadline = time.monotonic() + settings.timeout_s
        views = self.visible(as_of)
        if settings.strategy is Strategy.NONE:
            res, holds, score, proof = self._decide(goal, sorted(views), views, settings, deadline, as_of)
            return IntuitionResult(res.status, settings.strategy, settings.solver,
                                   (RoundReport(0, len(views), res.status, holds),), len(views), len(views),
                                   LoopStop.WHOLE_KB, res, score, proof, tuple(sorted(views)))
        space, _ = self.vectors.space(self.ledger, settings.vsa_config(), as_of)
        base = self.closed_facts(views)
        goal_terms = _goal_terms(goal)
        chosen: list[str] = []
        in_set: set[str] = set(base)
        rounds: list[RoundReport] = []
        terms = list(goal_terms)
        stop = LoopStop.MAX_ROUNDS
        res = EntailmentResult("unknown", reason="no round ran")
        holds, score, proof = False, None, None
        for rnd in range(settings.max_rounds):
            want = settings.initial if rnd == 0 else settings.step
            added = nearest_facts(space, terms, want, in_set, views)
            if rnd > 0 and not added:
                stop = LoopStop.STAGNATION
                break
            chosen.extend(added)
            in_set.update(added)
            ids = sorted(in_set)
            res, holds, score, proof = self._decide(goal, ids, views, settings, deadline, as_of)
            rounds.append(RoundReport(rnd, len(ids), res.status, holds))
            if res.status != "unknown":
                stop = LoopStop.DECIDED
                if len(in_set) < len(views) and self.opposite_holds(goal, as_of, res.status):
                    # The decision rests on a subset and the other polarity follows from the whole KB:
                    # a clash, which the whole KB reports as unknown (inconsistent premises).
                    res = EntailmentResult("unknown", reason="inconsistent premises: the goal and its negation "
                                                             "both follow from the facts visible at this time")
                    holds, score, proof = False, None, None
                break
            if len(in_set) >= len(views):
                stop = LoopStop.WHOLE_KB
                break
            if time.monotonic() >= deadline:
                stop = LoopStop.TIMEOUT
                break
            terms = list(goal_terms) + entities_of(chosen, views, exclude=set(goal_terms))
        ids = tuple(sorted(in_set))
        return IntuitionResult(res.status, settings.strategy, settings.solver, tuple(rounds), len(ids), len(views),
                               stop, res, score, proof, ids)

    def opposite_holds(self, goal: Atom, as_of: AsOf, status: str) -> bool:
        """Whether the polarity opposite to a decision follows by the rules from every visible fact of
        the relations its derivation can read (read whole from the cached snapshot, not the candidates).

        ``entailed`` is undone by a derivable negation of the goal, ``refuted`` by the goal itself:
        either way the KB holds both (DS005's polarity conflict)."""
        pos, neg = self.polarities(goal, as_of)
        derives_goal = neg if goal.negated else pos
        derives_negation = pos if goal.negated else neg
        return derives_goal if status == "refuted" else derives_negation

    def polarities(self, goal: Atom, as_of: AsOf) -> tuple[bool, bool]:
        """(the goal's atom holds, its negation holds) by the engine over every visible fact of the
        relations the goal's dependency cone reads."""
        program = self._cone(goal)
        plain = replace(goal, negated=False)
        reads = {_key(plain), _key(replace(plain, negated=True))} | {
            _key(a) for r in program.rules for a in _body_atoms(r)}
        index = self._relation_index(as_of)
        ids = sorted({i for k in reads for i in index.get(k, ())}
                     | {i for k in reads if k[1] is None for i in index.get((k[0], "*", k[2]), ())})
        views = self.visible(as_of)
        db = _database([views[i] for i in ids], program)
        model = closure(program, db, limits=Limits(max_results=None), record_proofs=False, valid_at=as_of.valid)
        args = tuple(a.term for a in goal.args if isinstance(a, Const))
        return model.contains(goal.predicate, args), model.contains(goal.predicate, args, negated=True)

    def _relation_index(self, as_of: AsOf) -> dict[tuple, list[str]]:
        """Visible fact ids by (predicate, class or None, negated); rdf:type facts also under class "*"."""
        views = self.visible(as_of)
        if self._index is not None and self._index[0] is views:
            return self._index[1]
        out: dict[tuple, list[str]] = {}
        for fid, v in views.items():
            f = v.fact
            neg = f.polarity == "negate"
            if f.predicate.value == RDF_TYPE and isinstance(f.object, IRI):
                out.setdefault((RDF_TYPE, f.object.value, neg), []).append(fid)
                out.setdefault((RDF_TYPE, "*", neg), []).append(fid)
            else:
                out.setdefault((f.predicate.value, None, neg), []).append(fid)
        self._index = (views, out)
        return out

    def _cone(self, goal: Atom) -> Program:
        """The rules that can derive the goal in either polarity (class-aware for ``rdf:type``), and
        all constraints: fewer rules decide less, never differently, so this only saves work."""
        key = _key(goal)
        hit = self._cones.get(key)
        if hit is None:
            p = self.program
            keep = _cone(p, {key, (key[0], key[1], not key[2])})
            hit = self._cones[key] = check_program(tuple(p.rules[i] for i in keep), constraints=p.constraints,
                                                   vocabulary=p.vocabulary, prefixes=p.prefixes, facts=p.facts)
        return hit

    def closed_facts(self, views: dict[str, FactView]) -> list[str]:
        """Every visible fact of a relation read under ``not`` or in an aggregate, or one they depend
        on: the candidate set always holds them whole, so negation reads the KB's complete extension."""
        if not self._closed:
            return []
        out = []
        for fid, v in views.items():
            f = v.fact
            key = relation_key(f.predicate.value, (f.subject, f.object), f.polarity == "negate")
            if key in self._closed or (f.predicate.value == RDF_TYPE and (RDF_TYPE, key[1]) in self._closed):
                out.append(fid)
        return sorted(out)

    def _decide(self, goal: Atom, ids: Sequence[str], views: dict[str, FactView], settings: LoopSettings,
                deadline: float, as_of: AsOf):
        facts = [views[i] for i in ids]
        program = self._cone(goal)
        db = _database(facts, program)
        remaining = max(0.001, deadline - time.monotonic())
        model = closure(program, db, limits=Limits(max_results=None, timeout_s=remaining), record_proofs=True,
                        valid_at=as_of.valid)
        args = tuple(a.term for a in goal.args if isinstance(a, Const))
        holds = model.contains(goal.predicate, args, negated=goal.negated)
        score = model.score(goal.predicate, args, negated=goal.negated) if holds else None
        proof = model.explain(goal.predicate, args, negated=goal.negated) if holds else None
        active = ActiveSet.from_program(program, [ground(v) for v in facts], self.cards)
        # `not`, aggregates and per-rule depths reach the solver as the engine computes them over the
        # candidates (complete for the closed relations, see closed_facts).
        cw = with_snapshot(active, db, limits=Limits(max_results=None, timeout_s=remaining), valid_at=as_of.valid)
        if cw.limit_hit is not None:
            return EntailmentResult("unknown", reason=f"budget: {cw.limit_hit}", limit_hit=cw.limit_hit), holds, \
                score, proof
        lim = replace(settings.solver_limits,
                      timeout_ms=max(1, min(settings.solver_limits.timeout_ms, int(remaining * 1000))), max_rounds=1)
        return entails(cw.active, goal, backend=settings.solver, limits=lim), holds, score, proof


def _database(views: Sequence[FactView], program: Program) -> Database:
    """The engine's input: the facts (key = fact id, confidence = best evidence) and the program's own facts."""
    db = Database()
    for v in views:
        f = v.fact
        db.add(f.predicate.value, (f.subject, f.object), valid=v.valid, key=v.fact_id,
               confidence=max((e.confidence for e in v.evidence), default=1.0), negated=f.polarity == "negate")
    add_program_facts(db, program)
    return db


def _body_atoms(r) -> list[Atom]:
    out: list[Atom] = []
    for b in r.body:
        out.extend([b] if isinstance(b, Atom) else [b.atom] if isinstance(b, Negation) else
                   list(b.body) if isinstance(b, Aggregate) else [])
    return out


def _key(a: Atom) -> tuple[str, str | None, bool]:
    """A relation key that tells classes apart: (predicate, class for rdf:type with a constant class, negated)."""
    cls = None
    if a.predicate == RDF_TYPE and len(a.args) == 2 and isinstance(a.args[1], Const):
        cls = getattr(a.args[1].term, "value", None)
    return (a.predicate, cls, a.negated)


def _cone(program: Program, start: set) -> list[int]:
    """Indices of the rules the relation keys depend on, transitively (a class-less key, e.g. a
    variable class, matches every class of its predicate)."""
    heads: dict[tuple[str, bool], list[tuple[str | None, int]]] = {}
    for i, r in enumerate(program.rules):
        if r.head is not None:
            k = _key(r.head)
            heads.setdefault((k[0], k[2]), []).append((k[1], i))
    seen, todo, keep = set(start), list(start), set()
    while todo:
        pred, cls, neg = todo.pop()
        for hcls, i in heads.get((pred, neg), ()):
            if i in keep or not (cls is None or hcls is None or cls == hcls):
                continue
            keep.add(i)
            for b in program.rules[i].body:
                atoms = [b] if isinstance(b, Atom) else [b.atom] if isinstance(b, Negation) else \
                    list(b.body) if isinstance(b, Aggregate) else []
                for a in atoms:
                    k = _key(a)
                    if k not in seen:
                        seen.add(k)
                        todo.append(k)
    return sorted(keep)


def _goal_terms(goal: Atom) -> list[Term]:
    out: list[Term] = [a.term for a in goal.args if isinstance(a, Const)]
    if goal.predicate != RDF_TYPE:
        out.append(IRI(goal.predicate))
    return list(dict.fromkeys(out))


def entities_of(ids: Sequence[str], views: dict[str, FactView], *, exclude: set) -> list[Term]:
    seen: dict[Term, None] = {}
    for i in ids:
        f = views[i].fact
        for t in (f.subject, f.object):
            if isinstance(t, IRI) and t not in exclude:
                seen.setdefault(t, None)
    return sorted(seen, key=lambda t: t.value)


def nearest_facts(space: VectorSpace, terms: Sequence[Term], want: int, taken: set[str],
             views: dict[str, FactView]) -> list[str]:
    """The ``want`` facts nearest to ``terms`` that are not taken yet and are visible unqualified facts.

    Each term is its own query (a bundle of many terms would sink single matches below the noise
    floor); a fact scores the sum, over the terms, of its similarity above chance, so facts naming
    more of the terms come first.  Order: score desc, fact id.  Fewer than ``want`` when fewer facts
    are related above the noise floor."""
    floor = space.encoder.noise_floor()
    chance = 0.5 if space.encoder.hdc else 0.0
    scores: dict[str, float] = {}
    for t in terms:
        # A generous depth per term: a fact naming several terms must get credit from each of them,
        # also when one of the terms names many facts (ties beyond the depth are cut by fact id).
        for h in space.similar_facts(space.term_query([t]), want + len(taken) + _TERM_DEPTH, above=floor):
            if h.score <= floor:
                break
            if h.key not in taken and h.key in views:
                scores[h.key] = scores.get(h.key, 0.0) + (h.score - chance)
    ranked = sorted(scores, key=lambda k: (-round(scores[k], 9), k))
    return ranked[:want]
