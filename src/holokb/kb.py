"""KnowledgeBase: the one façade that wires the stages (ledger, RDF face, SHACL gate, rules).

>>> # kb = KnowledgeBase.open("holokb.db", shapes=["shapes"]); kb.load(["kb"], at=parse_instant("2026-01-01"))
"""
from __future__ import annotations

import re
import time
import threading
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from .core.inputs import not_found, read_text
from .core import (
    RDFS, AsOf, AssertedRef, Deadline, DerivedRef, Evidence, EvidenceError, Fact, Interval, IRI, LimitHit, Limits,
    Literal, Page, SpanRecord,
)
from .ledger import ClosureInfo, DerivedRecord, FactView, Ledger

# The stages below import rdflib, pyshacl, numpy, lark, z3 and pyoxigraph: each method imports what it
# uses, so that opening a KB for a count or a lookup (holokb stats, facts) starts in a blink.
if TYPE_CHECKING:
    from rdflib import Graph

    from .analysis import Program
    from .checking import ActiveSetInfo
    from .engine import Answers, Model, ProofNode
    from .shapes import GateReport, ShapesGate
    from .solver import ConsistencyResult, EntailmentResult, SolverLimits
    from .sparql import QueryResult

if TYPE_CHECKING:
    from .answer import Answer, Planner, QueryPlan
    from .answer.answering import AnswerOptions
    from .answer.retrieve import Retriever
    from .ingest import Extractor, IngestionReport
    from .ingest.pipeline import IngestBudget

if TYPE_CHECKING:
    from .intuition import IntuitionResult, LoopSettings
    from .intuitive_answer import IntuitiveAnswer
    from .ledger_search import Similar
    from .retrieval import RetrievalProfile, SearchResult
    from .vsa import VSAConfig

RDF_SUFFIXES = (".ttl", ".trig", ".nt", ".nq", ".owl", ".rdf")
TEXT_SUFFIXES = (".txt", ".md")


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What one ``load`` did: files read, statements read (``facts``), documents and chunks, gate work,
    and spans: opened, closed (new evidence, supersession) and ``unchanged`` (asserted again with
    nothing new, so nothing was written)."""

    files: tuple[str, ...]
    facts: int
    documents: int
    chunks: int
    shapes_run: tuple[str, ...]  # the shapes the gate ran (empty: no gate, or none targeted)
    at: int
    spans_new: int = 0
    spans_closed: int = 0
    spans_unchanged: int = 0


def _is_rdf(p: Path) -> bool:
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    return name.endswith(RDF_SUFFIXES)


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files named, and the RDF/text files under folders named, in sorted order."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and (_is_rdf(f) or f.suffix in TEXT_SUFFIXES)))
        elif p.exists():
            out.append(p)
        else:
            raise not_found(p)
    return out


class ProofSource(StrEnum):
    """Where an explanation's proof was read."""

    STORED = "stored"      # a fresh stored closure's proof rows
    COMPUTED = "computed"  # a closure computed for the question (goal-directed)


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a fact holds at an AsOf: its proof DAG (None when it does not hold) and, per input node
    id, the ledger span with its evidence."""

    predicate: str
    args: tuple
    proof: ProofNode | None
    evidence: dict
    truncated: bool = False
    limit_hit: LimitHit | None = None
    #: The maximal interval around the AsOf's valid time over which the fact holds (None: it does not).
    valid: Interval | None = None
    #: Where the proof was read: a fresh stored closure's proof rows, or a closure computed now.
    source: ProofSource = ProofSource.COMPUTED


@dataclass(frozen=True, slots=True)
class DerivedRead:
    """Derived facts as (predicate, args, valid, rule, score) and where they came from:
    ``stored`` (a fresh stored closure), ``computed`` (none stored), ``stale`` (stored one out of date)."""

    facts: tuple
    source: str
    closure: "ClosureInfo | None"
    truncated: bool = False


class _Reserve:
    """A deadline that expires early by ``share`` × the time spent since it was made (the work done
    so far has a follow-up of proportional cost that must fit before the real deadline)."""

    def __init__(self, deadline: Deadline, share: float):
        self.deadline, self.share, self.start = deadline, share, time.monotonic()

    def expired(self) -> bool:
        left = self.deadline.remaining()
        return left is not None and left <= self.share * (time.monotonic() - self.start)


#: Storing a closure's proof-step columns as blocks costs about half of computing them (LUBM: 0.11 s vs
#: 0.2 s CPU, 0.3 s vs 0.5 s wall with the commit), so computing stops early enough that storing what it
#: did still fits the deadline (2x margin).
_STORE_SHARE = 1.0


def derived_records(model: Model, deadline: Deadline | _Reserve | None = None) -> list[DerivedRecord]:
    """The model's derived facts with their proof steps, as the ledger stores them (a prefix of
    them when ``deadline`` expires first: compare the length with ``model.derived_count()``).

    Premises that are ground facts written in rule files (not ledger facts) are left out of the stored
    step; they are named in the rule files themselves.
    """
    out = []
    for step in model.proof_steps(deadline=deadline):
        fact = step.fact
        refs = tuple(p for p in step.premises if isinstance(p, (AssertedRef, DerivedRef)))
        out.append(DerivedRecord(IRI(fact.predicate), fact.args, fact.valid, fact.rule, fact.depth,
                                 fact.score, fact.negated, refs, step.bindings))
    return out


class KnowledgeBase:
    """A holokb knowledge base in one ledger file, with its SHACL shapes gating every write."""

    def __init__(self, ledger: Ledger, *, gate: ShapesGate | None = None, shape_paths: Sequence[Path] = ()):
        self.ledger = ledger
        self.gate = gate
        self.shape_paths = tuple(shape_paths)
        self._lock = threading.Lock()

    # -- lifecycle --------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path = "holokb.db", *, shapes: Sequence[str | Path] | None = None,
             timeout_s: float = 5.0) -> "KnowledgeBase":
        """Open (or create) the ledger at ``path``; ``shapes`` are SHACL files or folders gating writes."""
        files = [p for p in expand_paths(shapes or ()) if p.suffix == ".ttl"]
        files = [p for p in files if p.name != "holokb.ttl"]  # annotation shapes check exports, not batches
        gate = None
        if files:
            from .shapes import ShapesGate

            gate = ShapesGate.load(files)
        return cls(Ledger.open(path, timeout_s=timeout_s), gate=gate, shape_paths=files)

    def close(self) -> None:
        self.ledger.close()

    def __enter__(self) -> "KnowledgeBase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes -----------------------------------------------------------------------------------

    def load(self, paths: Iterable[str | Path], *, at: int, documents: Iterable[str | Path] = ()) -> LoadReport:
        """Parse every file, gate the batch, then store it in one transaction (all or nothing).

        RDF files become facts (system time ``[at, open)``); ``.txt``/``.md`` files, and the files
        named in ``documents`` whatever their extension, become documents with paragraph chunks,
        stored first so evidence spans can be checked against them.
        """
        files = expand_paths(paths)
        as_text = {Path(d) for d in documents}
        if files and not as_text and all(_is_rdf(f) for f in files):
            done = self._load_plain(files, at)
            if done is not None:
                return done
        from .ingest import chunk_paragraphs
        from .rdf.load import apply_changes, read_changes
        from .rdf.mapping import Changes
        from .rdf.parse import detect_format

        changes = Changes([], [], [])
        records = changes.records
        texts: list[tuple[str, str]] = []
        rdf_files: list[Path] = []
        for f in files:
            if _is_rdf(f) and f not in as_text:
                detect_format(f)
                # Plain records with the default system interval are *asserted* at ``at`` (so an
                # unchanged reload writes nothing); records carrying history are restored as they are.
                got = read_changes(f, at=at, source_id=str(f), system=Interval.always())
                records.extend(got.records)
                changes.supersede.extend(got.supersede)
                changes.retract.extend(got.retract)
                changes.closures.extend(got.closures)
                rdf_files.append(f)
            else:
                texts.append((_doc_id(f, files), read_text(f, what="document")))
        report = self._gate(records, rdf_files, changes.supersede)
        chunks = 0
        try:
            with self.ledger.batch(at=at) as b:
                b.check_time()
                for doc_id, text in texts:
                    cs = chunk_paragraphs(text)
                    chunks += len(cs)
                    b.add_document(doc_id, text, chunks=[(c.chunk_id, c.start, c.end) for c in cs])
                apply_changes(b, changes)
                for iri, aliases in _entities(records + changes.supersede).items():
                    b.add_entity(iri, aliases=aliases)
        except EvidenceError as e:
            raise _located(e, rdf_files) from None
        c = self.ledger.last_counts
        return LoadReport(tuple(str(f) for f in files), len(records), len(texts), chunks,
                          report.shapes_run if report else (), at, c.new, c.closed, c.unchanged)

    def _load_plain(self, files: Sequence[Path], at: int) -> LoadReport | None:
        """Plain-triple files: parsed and staged columnar without the write lock (no per-triple
        objects), gated on the batch view, then written in one transaction with the entities their
        labels name.  None when some file is not plain (named graphs, hk: annotations) or the
        ledger needs the record path (it holds facts); nothing is written then."""
        from .ledger.plain import discard_staged, stage_plain
        from .rdf.parse import NotPlain, plain_chunks, read_source

        def chunks():
            offset = 0  # chunk indices count terms from the start of their own file
            for f in files:
                seen = 0
                for c in plain_chunks(read_source(f, name=str(f))):
                    yield c.terms, [i + offset for i in c.spo] if offset else c.spo
                    seen += len(c.terms)
                offset += seen

        from .ledger.pipeline import forked_chunks, worth_forking

        # A large input is read by a forked worker while this process stages and hashes (same rows).
        fork = worth_forking(sum(f.stat().st_size for f in files))
        try:
            # Terms are made only for a gate: the entities need the few their labels name.
            staged = stage_plain(self.ledger, forked_chunks(chunks, hashes=False) if fork else chunks(), at=at,
                                 terms=self.gate is not None)
        except NotPlain:
            return None
        if staged is None:
            return None
        try:
            report = self._gate_plain(staged, files) if self.gate is not None else None
        except BaseException:
            discard_staged(self.ledger)
            raise
        self.ledger.write_staged(staged, entities=_plain_entities(staged.raw_terms, staged.spo).items())
        c = self.ledger.last_counts
        return LoadReport(tuple(str(f) for f in files), len(staged.spo) // 3, 0, 0,
                          report.shapes_run if report else (), at, c.new, c.closed, c.unchanged)

    def _gate_plain(self, staged, files: Sequence[Path]) -> GateReport:
        from .rdf.batch import PlainBatch
        from .shapes.ledger_context import LedgerContext

        batch = PlainBatch(staged.terms, staged.spo, distinct=staged.unique_rows)
        return self._check_batch(batch, LedgerContext(self.ledger, AsOf.latest()),
                                 files)

    def assert_fact(self, fact: Fact, *, at: int, valid: Interval = Interval.always(),
                    evidence: Sequence[Evidence] = ()) -> str:
        """Assert one fact (gated by the shapes); returns its span id."""
        self._gate([SpanRecord(fact, valid, Interval(at, None), tuple(evidence))], [])
        with self.ledger.batch(at=at) as b:
            return b.assert_fact(fact, valid=valid, evidence=evidence)

    def declare_predicate(self, iri: IRI, *, at: int, arity: int = 2, functional: bool = False,
                          world: str | None = None) -> None:
        """Declare a predicate's properties in an open vocabulary: ``functional`` (one value per
        subject at a time) and ``world`` ("closed": what the KB does not say of it is false, so
        counts and lists over it are complete; "open": never a "No" by absence).  The world is
        stored as the fact ``<iri> hk:world "closed"``, valid always."""
        if world not in (None, "open", "closed"):
            raise ValueError(f"world must be 'open' or 'closed', not {world!r}")
        from .answer.program import WORLD

        with self.ledger.batch(at=at) as b:
            b.declare_predicate(iri, arity=arity, functional=functional)
            if world is not None:
                b.assert_fact(Fact(iri, WORLD, Literal.of(world), (), "affirm"))

    def apply_changes(self, *, asserts: Sequence[Fact] = (), retracts: Sequence[Fact] = (), at: int) -> tuple[int, int]:
        """One gated, all-or-nothing batch at ``at``: close the open spans of ``retracts``, then assert
        ``asserts`` (valid time open, no evidence).  Returns (facts asserted, spans closed)."""
        self._gate([SpanRecord(f, Interval.always(), Interval(at, None), ()) for f in asserts], [])
        with self.ledger.batch(at=at) as b:
            closed = sum(b.retract(f, at=at) for f in retracts)
            for f in asserts:
                b.assert_fact(f)
        return len(asserts), closed

    def retract(self, fact: Fact, *, at: int) -> int:
        """Close the fact's open spans at ``at`` (idempotent); returns how many were closed."""
        with self.ledger.batch(at=at) as b:
            return b.retract(fact, at=at)

    def supersede(self, fact: Fact, *, at: int, valid: Interval = Interval.always(),
                  evidence: Sequence[Evidence] = ()) -> str:
        """Assert ``fact`` at ``at`` (gated by the shapes) and close the open spans of the other values of
        its subject and predicate where the valid times overlap; returns the new fact's span id."""
        self._gate([], [], [SpanRecord(fact, valid, Interval(at, None), tuple(evidence))])
        with self.ledger.batch(at=at) as b:
            return b.supersede(fact, valid=valid, evidence=evidence)

    def _gate(self, records: Sequence[SpanRecord], files: Sequence[Path],
              superseding: Sequence[SpanRecord] = ()) -> GateReport | None:
        """Check the batch against the shapes; ``superseding`` records replace the stored values of their
        (subject, predicate), so the gate's context leaves those values out."""
        if self.gate is None or not (records or superseding):
            return None
        from rdflib import Graph

        from .rdf.terms import to_rdflib
        from .shapes.ledger_context import LedgerContext

        batch = Graph()
        valid: dict = {}  # where each triple holds: the gate checks every instant of valid time
        for r in (*records, *superseding):
            f = r.fact
            if f.polarity == "affirm" and r.system.end is None:
                triple = (to_rdflib(f.subject), to_rdflib(f.predicate), to_rdflib(f.object))
                batch.add(triple)
                valid.setdefault(triple, []).append(r.valid)
        context = LedgerContext(self.ledger, AsOf.latest())
        if superseding:
            context = _Replacing(context, {(to_rdflib(r.fact.subject), to_rdflib(r.fact.predicate))
                                           for r in superseding})
        return self._check_batch(batch, context, files, valid)

    def _check_batch(self, batch, context, files: Sequence[Path], valid: Mapping | None = None) -> GateReport:
        """Run the gate on a batch (an rdflib graph or a columnar PlainBatch; ``valid``: where its
        triples hold, absent = always); raise on violations."""
        report = self.gate.check(batch, context, valid=valid)
        if not report.conforms:
            sources = _sources_for(report, batch, files)
            if sources:
                report = self.gate.check(batch, context, sources=sources, valid=valid)
            raise report.error()
        return report

    # -- reads ------------------------------------------------------------------------------------

    def facts(self, about: IRI | None = None, predicate: IRI | None = None, *, as_of: AsOf,
              limits: Limits = Limits()) -> Page[FactView]:
        """Asserted facts visible at ``as_of`` (sort key: see :meth:`Ledger.facts`)."""
        return self.ledger.facts(as_of, about=about, predicate=predicate, limits=limits)

    def history(self, subject: IRI, predicate: IRI, *, limits: Limits = Limits()) -> Page[FactView]:
        """Every span ever recorded for (subject, predicate), on both time axes."""
        return self.ledger.history((subject, predicate), limits=limits)

    def export(self, *, as_of: AsOf | None = None) -> str:
        """TriG: the full reified ledger, or (with ``as_of``) the plain snapshot visible then."""
        from .rdf.export import export_ledger, export_snapshot

        if as_of is None:
            return export_ledger(self.ledger)
        return export_snapshot(self.ledger, as_of)

    def validate(self, *, as_of: AsOf = AsOf.latest()) -> tuple[GateReport | None, GateReport]:
        """Full validation: the snapshot at ``as_of`` against the domain shapes, and the reified
        export against the annotation shapes (``shapes/holokb.ttl``)."""
        from rdflib import Dataset, Graph

        from .rdf.terms import to_rdflib
        from .resources import data_dir
        from .shapes import ShapesGate

        domain = None
        if self.gate is not None:
            snap = Graph()
            for s, p, o in self.ledger.visible(as_of):
                snap.add((to_rdflib(s), to_rdflib(p), to_rdflib(o)))
            domain = self.gate.validate_full(snap)
        annotations = ShapesGate.load([data_dir("shapes") / "holokb.ttl"])
        reified = Dataset()
        reified.parse(data=self.export(), format="trig")
        merged = Graph()
        for s, p, o, _g in reified.quads((None, None, None, None)):
            merged.add((s, p, o))
        return domain, annotations.validate_full(merged)

    # -- rules ----------------------------------------------------------------------------------------

    def derive(self, program: Program, *, as_of: AsOf, limits: Limits | None = None,
               record_proofs: bool = True, all_valid: bool = False) -> Model:
        """Close the facts recorded at ``as_of.system`` under ``program`` (budgeted; never raises on a
        budget).  The model shows what holds at ``as_of.valid``, each fact with its maximal interval
        around it; ``all_valid`` shows the whole valid-time axis, every fact with every maximal interval."""
        from .engine import closure
        from .reasoning import database_at

        limits = limits or Limits.unbounded()
        db = database_at(self.ledger, as_of, program, deadline=limits.deadline())
        return closure(program, db, limits=limits, record_proofs=record_proofs,
                       valid_at=None if all_valid else as_of.valid)

    def derive_and_store(self, program: Program, *, as_of: AsOf, computed_at: int,
                         limits: Limits | None = None) -> tuple[Model, ClosureInfo]:
        """Derive with proofs and store the closure in the ledger, marked derived, with the rule-set hash
        and the AsOf.  A write landing meanwhile makes the stored closure stale at once.  The model's input
        premises (:class:`AssertedRef`) read their fact ids from the ledger when first decoded: decode them
        while the KB is open (after, the stored closure has them: :meth:`Ledger.stored_closure`)."""
        from .analysis import render

        limits = (limits or Limits.unbounded()).started()  # one deadline for closing, decoding and storing
        marker = self.ledger.change_marker()
        self.ledger.store_rule_set(program.rule_set_hash, render(program, queries=False))
        # The ledger's term ids seed the engine's dictionary (input_at), so proof steps go to the ledger
        # as id columns: only the terms the closure minted are decoded and interned.
        from .engine import closure
        from .engine.encoded import encoded_columns
        from .reasoning import input_at, stored_columns

        db, fact_rows = input_at(self.ledger, as_of, program, deadline=limits.deadline())
        model = closure(program, db, limits=limits, record_proofs=True, valid_at=as_of.valid)
        deadline = limits.deadline()
        columns = encoded_columns(model, deadline=_Reserve(deadline, _STORE_SHARE))  # expired: nothing
        truncated, hit = model.truncated, model.limit_hit
        if columns.count < model.derived_count():  # the deadline came while encoding: store what was done,
            truncated, hit = True, hit or LimitHit.TIMEOUT  # without premises past the prefix (partial proofs)
        info = self.ledger.store_closure(rule_set_hash=program.rule_set_hash, as_of=as_of, computed_at=computed_at,
                                         derived=stored_columns(model, columns, fact_rows), truncated=truncated,
                                         limit_hit=hit, change_marker=marker)
        return model, info

    def loaded_rules(self) -> Program | None:
        """The rule set of the most recently stored closure (what ``holokb derive`` last used), or None."""
        from .program_cache import stored_program

        infos = sorted(self.ledger.closures(), key=lambda c: c.id)
        if not infos:
            return None
        text = self.ledger.rule_set(infos[-1].rule_set_hash)
        return None if text is None else stored_program(text)

    def query(self, text: str, *, as_of: AsOf, rules: Program | None = None, ledger_view: bool = False,
              limits: Limits | None = None, name: str = "<query>",
              prefixes: Mapping[str, str] | None = None, closure_limits: Limits | None = None) -> QueryResult:
        """SPARQL 1.1 over the as-of snapshot (visible triples + the closure under ``rules`` at the same
        AsOf), or over the reified ledger with ``ledger_view``; ``prefixes`` are declared for the query.
        ``closure_limits`` budget the closure when the snapshot has to be built (default unbounded)."""
        from .sparql import run_query

        return run_query(self, text, as_of=as_of, rules_program=rules, ledger_view=ledger_view,
                         limits=limits, name=name, prefixes=prefixes, closure_limits=closure_limits)

    def derived_facts(self, program: Program, *, as_of: AsOf, about: IRI | None = None,
                      predicate: IRI | None = None, limits: Limits = Limits()) -> "DerivedRead":
        """Derived facts at ``as_of``: from a stored closure with the same rule set and AsOf when it is
        fresh; otherwise computed now, and the result says why (none stored, or stored but stale)."""
        info = self.ledger.closure_info(program.rule_set_hash, as_of)
        if info is not None and not info.stale:
            page = self.ledger.derived_facts(info, about=about, predicate=predicate, limits=limits)
            return DerivedRead(tuple((v.predicate, v.args, v.valid, v.rule, v.score) for v in page), "stored",
                               info, page.truncated)
        model = self.derive(program, as_of=as_of)
        rows = [(IRI(d.predicate), d.args, d.valid, d.rule, d.score) for d in model.derived()
                if (predicate is None or d.predicate == predicate.value)
                and (about is None or (d.args and d.args[0] == about))]
        cap = limits.max_results
        return DerivedRead(tuple(rows[:cap] if cap is not None else rows), "stale" if info else "computed", info,
                           (cap is not None and len(rows) > cap) or model.truncated)

    def ask(self, program: Program, query: str, *, as_of: AsOf, limits: Limits | None = None) -> Answers:
        """Goal-directed answers to ``?- body.`` at ``as_of`` (same answers as full closure)."""
        from .analysis.program import body_atoms
        from .bridge import bridge
        from .engine import ask
        from .reasoning import database_at, parse_query

        q = parse_query(query, program)
        program = bridge(program, reads=body_atoms(q.body)).program  # entailed triples reach the query
        return ask(program, database_at(self.ledger, as_of, program), q, limits=limits or Limits.unbounded(),
                   valid_at=as_of.valid)

    def explain(self, program: Program, fact: str, *, as_of: AsOf, max_depth: int | None = None,
                limits: Limits | None = None, model: Model | None = None) -> "Explanation":
        """The proof of a (derived or asserted) fact at ``as_of``, down to asserted facts and their evidence.

        Read from the stored closure's proof rows when one is fresh for this rule set and AsOf and its
        input holds at all valid times (``source`` "stored"; stored rows keep each fact's maximal
        interval, not one derivation's); else from a goal-directed closure of the rules the fact
        depends on ("computed"; the same proof as the full closure's).  ``model``: a closure of ``program`` at
        ``as_of`` with proofs, already computed (used as is)."""
        from .checking import goal_cone
        from .engine import closure
        from .reasoning import database_at, parse_ground_atom
        from .stored_proofs import stored_proof

        atom = parse_ground_atom(fact, program)
        args = tuple(a.term for a in atom.args)  # type: ignore[union-attr]
        if model is None:
            info = self.ledger.closure_info(program.rule_set_hash, as_of)
            if info is not None and not info.stale and not info.truncated:
                got = stored_proof(self.ledger, info, program, atom.predicate, args, atom.negated, as_of, max_depth)
                if got is not None:
                    return self._explanation(atom.predicate, args, got.proof, as_of, False, None,
                                             got.proof.valid if got.proof else None, ProofSource.STORED)
            cone = goal_cone(program, atom)
            model = closure(cone, database_at(self.ledger, as_of, cone), limits=limits or Limits.unbounded(),
                            record_proofs=True, valid_at=as_of.valid)
        if not model.contains(atom.predicate, args, negated=atom.negated):
            return self._explanation(atom.predicate, args, None, as_of, model.truncated, model.limit_hit, None,
                                     ProofSource.COMPUTED)
        proof = model.explain(atom.predicate, args, negated=atom.negated, max_depth=max_depth)
        held = model.validity(atom.predicate, args, negated=atom.negated)
        return self._explanation(atom.predicate, args, proof, as_of, model.truncated, model.limit_hit,
                                 held[0] if held else None, ProofSource.COMPUTED)

    def _explanation(self, predicate: str, args: tuple, proof: ProofNode | None, as_of: AsOf, truncated: bool,
                     limit_hit: LimitHit | None, valid: Interval | None, source: ProofSource) -> "Explanation":
        from .checking import input_view

        evidence: dict[str, FactView] = {}
        for n in (proof.inputs() if proof is not None else ()):
            view = input_view(self.ledger, n, as_of)
            if view is not None:
                evidence[n.id] = view
        return Explanation(predicate, args, proof, evidence, truncated, limit_hit, valid, source)

    # -- consistency and entailment -------------------------------------------------------------

    def check_consistency(self, program: Program, *, as_of: AsOf, limits: SolverLimits | None = None,
                          backend: str = "z3") -> tuple[ConsistencyResult, ActiveSetInfo]:
        """Can the facts at ``as_of``, the rules, constraints, functional predicates and the shapes'
        cardinalities all hold at once?  An inconsistency comes with its minimal core of facts."""
        from .checking import cardinalities, consistency
        from .solver import SolverLimits

        cards = cardinalities(self.gate.shapes_graph if self.gate else None)
        return consistency(self.ledger, program, as_of, cards, backend=backend, limits=limits or SolverLimits())

    def prove(self, program: Program, goal: str, *, as_of: AsOf, limits: SolverLimits | None = None,
              backend: str = "z3", hops: int = 1) -> EntailmentResult:
        """``entailed`` / ``refuted`` / ``unknown`` for a ground goal: entailed exactly when the closure at
        ``as_of`` derives it (see :func:`holokb.checking.prove`)."""
        from .checking import cardinalities, prove
        from .reasoning import parse_ground_atom
        from .solver import SolverLimits
        from .bridge import bridge

        atom = parse_ground_atom(goal, program)
        program = bridge(program, reads=(atom,)).program  # an entailed triple reaches the goal
        cards = cardinalities(self.gate.shapes_graph if self.gate else None)
        return prove(self.ledger, program, atom, as_of, cards, backend=backend, limits=limits or SolverLimits(),
                     hops=hops)

    # -- intuition and retrieval ------------------------------------------------------------------

    def similar(self, entity: IRI, *, as_of: AsOf, k: int = 10, facts: bool = False,
                config: "VSAConfig | None" = None) -> "Similar":
        """The ``k`` entities (or, with ``facts``, facts) whose structure is closest to ``entity``'s
        at ``as_of``, by the vector index (HDC by default); ties by key.  Proposes, never proves."""
        from .ledger_search import LedgerSource, similar
        from .vsa import VSAConfig

        cfg = config or VSAConfig.default("hdc")
        return similar(LedgerSource(self.ledger, cfg), entity, as_of=as_of, k=k, facts=facts)

    def search(self, query: str, *, as_of: AsOf, profile: "str | RetrievalProfile" = "default",
               profile_file: str | Path | None = None, max_results: int | None = None) -> "SearchResult":
        """Chunks and facts for a text query, fused from the profile's lanes (BM25, structured, VSA)
        by weighted RRF; every hit says which lanes found it and at what rank."""
        from dataclasses import replace
        from .ledger_search import LedgerSource
        from .retrieval import load_profile, search
        from .vsa import VSAConfig

        prof = profile if not isinstance(profile, str) else load_profile(profile, profile_file)
        if max_results is not None:
            prof = replace(prof, max_results=max_results)
        cfg = VSAConfig.default(prof.vsa.representation, dim=prof.vsa.dim, seed=prof.vsa.seed)
        return search(LedgerSource(self.ledger, cfg), query, as_of=as_of, profile=prof)

    def prove_with_intuition(self, program: Program, goal: str, *, as_of: AsOf,
                             settings: "LoopSettings | None" = None) -> "IntuitionResult":
        """``entailed`` / ``refuted`` / ``unknown`` for a ground goal, decided by local closure and the
        solver on a candidate set the vector index proposes (grown in fixed steps while unknown);
        the result says how many rounds it took and how large the set was."""
        from .checking import cardinalities
        from .intuition import IntuitionLoop, LoopSettings
        from .reasoning import parse_ground_atom

        loops = self.__dict__.setdefault("_intuition_loops", {})
        loop = loops.get(program.rule_set_hash)
        if loop is None:
            cards = cardinalities(self.gate.shapes_graph if self.gate else None)
            loop = loops[program.rule_set_hash] = IntuitionLoop(self.ledger, program, cardinalities=cards)
        return loop.prove(parse_ground_atom(goal, program), as_of=as_of, settings=settings or LoopSettings())

    def lint(self, program: Program, *, as_of: AsOf | None = None, query: str | None = None) -> tuple:
        """Warnings (diagnostics) for ``program`` and an optional ``?-`` query against the facts visible at
        ``as_of`` (``None``: facts at any time): undeclared predicates, predicates nothing produces,
        rules that can never fire."""
        from .analysis.lint import lint
        from .reasoning import census, parse_query

        q = parse_query(query, program) if query is not None else None
        return lint(program, census(self.ledger, as_of), query=q)

    def stats(self) -> dict[str, int]:
        """Counts of facts, spans, evidence, entities, documents, chunks and terms."""
        return self.ledger.stats()

    # -- ingestion and answers (DS005) ------------------------------------------------------------

    def ingest(self, text: "str | bytes", *, doc_id: str, at: int, extractor: "Extractor | None" = None,
               version: str | None = None, valid: Interval = Interval.always(), source: str | None = None,
               budget: "IngestBudget | None" = None, replicas: Sequence["Extractor"] = ()) -> "IngestionReport":
        """Read a text document into facts and rules with evidence (one all-or-nothing batch).

        ``extractor`` defaults to the controlled-English reader; ``version`` is copied into facts'
        ``version`` qualifier by extractors that take it from metadata; ``valid`` is the default valid
        time of what the document states.  Returns the :class:`IngestionReport`.
        """
        from .ingest.extract import DocumentMeta
        from .ingest.extractors import default_extractor
        from .ingest.pipeline import IngestBudget, ingest_document

        return ingest_document(self.ledger, text, doc_id=doc_id, extractor=extractor or default_extractor(), at=at,
                               meta=DocumentMeta(version, valid, source), budget=budget or IngestBudget(),
                               gate=lambda records: self._gate(records, []), replicas=replicas)

    def answer(self, question: "str | QueryPlan", *, as_of: AsOf, rules: Program | None = None,
               planner: "Planner | None" = None, options: "AnswerOptions | None" = None,
               retriever: "Retriever | None" = None, prefixes: dict[str, str] | None = None) -> "Answer":
        """Answer a question (planned by ``planner``, default the controlled-English one) or a
        :class:`QueryPlan` at ``as_of``: a verdict with its evidence chain (DS005 §7)."""
        from .answer.answering import AnswerOptions, Answerer
        from .answer.plan import QueryPlan
        from .ingest.extractors import plan_question

        plan = question if isinstance(question, QueryPlan) else plan_question(question, planner)
        answerer = Answerer(self.ledger, rules=rules, prefixes=prefixes, retriever=retriever,
                            options=options or AnswerOptions())
        return answerer.answer(plan, as_of)

    def answer_with_intuition(self, question: "str | QueryPlan", *, as_of: AsOf, settings: "LoopSettings",
                              rules: Program | None = None, planner: "Planner | None" = None,
                              options: "AnswerOptions | None" = None,
                              prefixes: dict[str, str] | None = None) -> "IntuitiveAnswer":
        """:meth:`answer` with the candidate facts proposed by the vector index and grown in fixed
        steps (yes/no questions about a ground goal; others use complete retrieval); the result says
        how many rounds it took and how large the candidate set was."""
        from .answer.plan import QueryPlan
        from .ingest.extractors import plan_question
        from .intuitive_answer import answer_with_intuition

        plan = question if isinstance(question, QueryPlan) else plan_question(question, planner)
        return answer_with_intuition(self.ledger, plan, as_of=as_of, settings=settings, rules=rules,
                                     prefixes=prefixes, options=options)

    async def aingest(self, text: "str | bytes", **kwargs) -> "IngestionReport":
        """:meth:`ingest` for callers that run an event loop (runs in a worker thread, one at a time)."""
        import asyncio

        return await asyncio.to_thread(self._serialised, self.ingest, text, **kwargs)

    async def aanswer(self, question: "str | QueryPlan", **kwargs) -> "Answer":
        """:meth:`answer` for callers that run an event loop (runs in a worker thread, one at a time)."""
        import asyncio

        return await asyncio.to_thread(self._serialised, self.answer, question, **kwargs)

    def _serialised(self, fn, *args, **kwargs):
        # One SQLite connection: calls from worker threads take turns.
        with self._lock:
            return fn(*args, **kwargs)


class _Replacing:
    """A gate context without the stored values of the (subject, predicate) pairs a batch supersedes
    (at every valid time: it is a timed context when the one it wraps is)."""

    def __init__(self, inner, replaced: set):
        self._inner = inner
        self._replaced = replaced

    def types_of(self, nodes):
        return self._inner.types_of(nodes)

    def values_of(self, subject, predicate):
        return () if (subject, predicate) in self._replaced else self._inner.values_of(subject, predicate)

    def subjects_of(self, predicate, obj):
        return [s for s in self._inner.subjects_of(predicate, obj) if (s, predicate) not in self._replaced]

    def types_during(self, nodes):
        return self._inner.types_during(nodes)

    def values_during(self, subject, predicate):
        return () if (subject, predicate) in self._replaced else self._inner.values_during(subject, predicate)

    def subjects_during(self, predicate, obj):
        return [(s, v) for s, v in self._inner.subjects_during(predicate, obj) if (s, predicate) not in self._replaced]


_LABELS = frozenset({RDFS + "label", "http://www.w3.org/2004/02/skos/core#prefLabel",
                     "http://www.w3.org/2004/02/skos/core#altLabel", "http://example.org/name"})


def _entities(records: Sequence[SpanRecord]) -> dict[IRI, tuple[str, ...]]:
    """Subjects that carry a label become entities, their labels aliases (for alias lookup)."""
    return _entities_of((r.fact.subject, r.fact.predicate, r.fact.object) for r in records)


def _entities_of(triples) -> dict[IRI, tuple[str, ...]]:
    out: dict[IRI, list[str]] = {}
    for s, p, o in triples:
        if p.value in _LABELS and isinstance(o, Literal) and o.lexical.strip():
            out.setdefault(s, []).append(o.lexical)
    return {k: tuple(dict.fromkeys(v)) for k, v in sorted(out.items(), key=lambda kv: kv[0].value)}


def _plain_entities(terms: Sequence, spo: Sequence[int]) -> dict[IRI, tuple[str, ...]]:
    """:func:`_entities` of columnar plain triples (only the label rows are looked at), in file order.
    ``terms``: Terms, or packed as staging keeps them (an IRI as its string, a Literal as its
    fields: :mod:`holokb.ledger.pipeline`); only the label rows' terms are made."""
    from .ledger.pipeline import unpack_term

    labels = [i for i, t in enumerate(terms)
              if (t if t.__class__ is str else t.value if isinstance(t, IRI) else None) in _LABELS]
    if not labels:
        return {}
    import numpy as np

    a = np.asarray(spo, dtype=np.int64).reshape(-1, 3)
    rows = a[np.isin(a[:, 1], labels)].tolist()
    return _entities_of((unpack_term(terms[s]), unpack_term(terms[p]), unpack_term(terms[o])) for s, p, o in rows)


def _doc_id(f: Path, files: Sequence[Path]) -> str:
    """Documents are named by file name (``day-log.txt``), as evidence in kb/*.trig refers to them."""
    return f.name


def _located(err: EvidenceError, files: Sequence[Path]) -> EvidenceError:
    """``err`` with the file:line:col of the hk:chunk annotation that wrote the refused evidence (the
    parser finds the triple; the ledger, which checks chunks, never sees files)."""
    from .core import Location
    from .rdf.locate import locate_annotation
    from .rdf.vocab import CHUNK, DOCUMENT

    if err.chunk is None or err.document is None or not files:
        return err
    hit = locate_annotation(files, {CHUNK.value: err.chunk, DOCUMENT.value: err.document})
    if hit is None:
        return err
    path, (line, col) = hit
    diags = tuple(replace(d, location=Location(path, line, col)) if d.location is None else d
                  for d in err.diagnostics)
    return EvidenceError(f"{path}:{line}:{col}: {err.message}", diags, document=err.document, chunk=err.chunk)


def _sources_for(report: GateReport, batch: Graph, files: Sequence[Path]) -> dict:
    """(file, line) of the first statement about each violating focus node, found in the files."""
    from rdflib import URIRef

    focus = {v.focus_node for v in report.violations if isinstance(v.focus_node, URIRef)}
    where: dict = {}
    for node in sorted(focus, key=str):
        hit = None
        for f in files:
            line = _find_line(f, str(node))
            if line:
                hit = (str(f), line)
                break
        if hit:
            for t in batch.triples((node, None, None)):
                where[t] = hit
    return where


def _find_line(f: Path, iri: str) -> int | None:
    if f.name.endswith(".gz"):
        return None
    text = f.read_text(encoding="utf-8", errors="replace")
    needles = [f"<{iri}>"]
    for prefix, ns in re.findall(r"@prefix\s+([\w-]*):\s*<([^>]*)>", text, re.I):
        if iri.startswith(ns) and re.fullmatch(r"[\w-]*", iri[len(ns):]):
            needles.append(f"{prefix}:{iri[len(ns):]}")
    best = None
    for n in needles:
        m = re.search(r"(?m)^\s*" + re.escape(n) + r"(?![\w-])", text) or re.search(re.escape(n) + r"(?![\w-])", text)
        if m:
            line = text.count("\n", 0, m.start() + len(m.group(0)) - len(n)) + 1
            best = line if best is None else min(best, line)
    return best
