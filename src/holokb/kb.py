"""KnowledgeBase: the one façade that wires the stages (ledger, RDF face, SHACL gate, rules).

>>> # kb = KnowledgeBase.open("holokb.db", shapes=["shapes"]); kb.load(["kb"], at=parse_instant("2026-01-01"))
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from rdflib import Dataset, Graph, URIRef

from .core import (
    RDFS, AsOf, AssertedRef, DerivedRef, Evidence, Fact, HolokbError, Interval, IRI, LimitHit, Limits, Literal, Page,
    SpanRecord,
)
from .analysis import Program, analyze, render
from .sparql import QueryResult, run_query
from .syntax import parse_rules
from .engine import Answers, Model, ProofNode, ask, closure
from .ingest import chunk_paragraphs
from .checking import ActiveSetInfo, cardinalities, consistency_active_set, goal_seeds, neighbourhood
from .reasoning import database_at, parse_ground_atom, parse_query
from .solver import ActiveSet, ConsistencyResult, EntailmentResult, SolverLimits, check_consistency, entails
from .ledger import ClosureInfo, DerivedRecord, FactView, Ledger
from .rdf.export import export_ledger, export_snapshot
from .rdf.load import read_records
from .rdf.parse import NotPlain, detect_format, plain_chunks, read_source
from .rdf.terms import to_rdflib
from .resources import data_dir
from .shapes import GateReport, ShapesGate
from .shapes.ledger_context import LedgerContext

RDF_SUFFIXES = (".ttl", ".trig", ".nt", ".nq", ".owl", ".rdf")
TEXT_SUFFIXES = (".txt", ".md")


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What one ``load`` wrote: files read, facts (spans) stored, documents and chunks, gate work."""

    files: tuple[str, ...]
    facts: int
    documents: int
    chunks: int
    shapes_run: int
    at: int


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
            raise HolokbError(f"{p}: no such file or folder")
    return out


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


@dataclass(frozen=True, slots=True)
class DerivedRead:
    """Derived facts as (predicate, args, valid, rule, score) and where they came from:
    ``stored`` (a fresh stored closure), ``computed`` (none stored), ``stale`` (stored one out of date)."""

    facts: tuple
    source: str
    closure: "ClosureInfo | None"
    truncated: bool = False


def derived_records(model: Model) -> list[DerivedRecord]:
    """The model's derived facts with their proof steps, as the ledger stores them.

    Premises that are ground facts written in rule files (not ledger facts) are left out of the stored
    step; they are named in the rule files themselves.
    """
    out = []
    for step in model.proof_steps():
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

    # -- lifecycle --------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path = "holokb.db", *, shapes: Sequence[str | Path] | None = None,
             timeout_s: float = 5.0) -> "KnowledgeBase":
        """Open (or create) the ledger at ``path``; ``shapes`` are SHACL files or folders gating writes."""
        files = [p for p in expand_paths(shapes or ()) if p.suffix == ".ttl"]
        files = [p for p in files if p.name != "holokb.ttl"]  # annotation shapes check exports, not batches
        gate = ShapesGate.load(files) if files else None
        return cls(Ledger.open(path, timeout_s=timeout_s), gate=gate, shape_paths=files)

    def close(self) -> None:
        self.ledger.close()

    def __enter__(self) -> "KnowledgeBase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes -----------------------------------------------------------------------------------

    def load(self, paths: Iterable[str | Path], *, at: int) -> LoadReport:
        """Parse every file, gate the batch, then store it in one transaction (all or nothing).

        RDF files become facts (system time ``[at, open)``); ``.txt``/``.md`` files become documents
        with paragraph chunks, stored first so evidence spans can be checked against them.
        """
        files = expand_paths(paths)
        if self.gate is None and files and all(_is_rdf(f) for f in files):
            n = self._load_plain(files, at)
            if n is not None:
                return LoadReport(tuple(str(f) for f in files), n, 0, 0, (), at)
        records: list[SpanRecord] = []
        texts: list[tuple[str, str]] = []
        rdf_files: list[Path] = []
        for f in files:
            if _is_rdf(f):
                detect_format(f)
                records.extend(read_records(f, at=at, source_id=str(f)))
                rdf_files.append(f)
            else:
                texts.append((_doc_id(f, files), f.read_text(encoding="utf-8")))
        report = self._gate(records, rdf_files)
        chunks = 0
        with self.ledger.batch(at=at) as b:
            for doc_id, text in texts:
                cs = chunk_paragraphs(text)
                chunks += len(cs)
                b.add_document(doc_id, text, chunks=[(c.chunk_id, c.start, c.end) for c in cs])
            plain = [r for r in records if r.span_id is None and r.system == Interval(at, None)]
            b.bulk(plain)
            for r in records:
                if not (r.span_id is None and r.system == Interval(at, None)):
                    b.add_span(r)
            for iri, aliases in _entities(records).items():
                b.add_entity(iri, aliases=aliases)
        return LoadReport(tuple(str(f) for f in files), len(records), len(texts), chunks,
                          report.shapes_run if report else 0, at)

    def _load_plain(self, files: Sequence[Path], at: int) -> int | None:
        """Plain-triple files with no shapes to gate: one columnar transaction for all of them
        (no per-triple objects); None when some file is not plain (named graphs, hk: annotations)."""
        def chunks():
            offset = 0  # chunk indices count terms from the start of their own file
            for f in files:
                seen = 0
                for c in plain_chunks(read_source(f, name=str(f))):
                    yield c.terms, [i + offset for i in c.spo] if offset else c.spo
                    seen += len(c.terms)
                offset += seen

        try:
            return self.ledger.bulk_assert_plain(chunks(), at=at)
        except NotPlain:
            return None

    def assert_fact(self, fact: Fact, *, at: int, valid: Interval = Interval.always(),
                    evidence: Sequence[Evidence] = ()) -> str:
        """Assert one fact (gated by the shapes); returns its span id."""
        self._gate([SpanRecord(fact, valid, Interval(at, None), tuple(evidence))], [])
        with self.ledger.batch(at=at) as b:
            return b.assert_fact(fact, valid=valid, evidence=evidence)

    def retract(self, fact: Fact, *, at: int) -> int:
        """Close the fact's open spans at ``at`` (idempotent); returns how many were closed."""
        with self.ledger.batch(at=at) as b:
            return b.retract(fact, at=at)

    def _gate(self, records: Sequence[SpanRecord], files: Sequence[Path]) -> GateReport | None:
        if self.gate is None or not records:
            return None
        batch = Graph()
        for r in records:
            f = r.fact
            if f.polarity == "affirm":
                batch.add((to_rdflib(f.subject), to_rdflib(f.predicate), to_rdflib(f.object)))
        context = LedgerContext(self.ledger, AsOf.latest())
        report = self.gate.check(batch, context)
        if not report.conforms:
            sources = _sources_for(report, batch, files)
            if sources:
                report = self.gate.check(batch, context, sources=sources)
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
        if as_of is None:
            return export_ledger(self.ledger)
        return export_snapshot(self.ledger, as_of)

    def validate(self, *, as_of: AsOf = AsOf.latest()) -> tuple[GateReport | None, GateReport]:
        """Full validation: the snapshot at ``as_of`` against the domain shapes, and the reified
        export against the annotation shapes (``shapes/holokb.ttl``)."""
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
               record_proofs: bool = True) -> Model:
        """Close the facts visible at ``as_of`` under ``program`` (budgeted; never raises on a budget)."""
        return closure(program, database_at(self.ledger, as_of, program), limits=limits or Limits.unbounded(),
                       record_proofs=record_proofs)

    def derive_and_store(self, program: Program, *, as_of: AsOf, computed_at: int,
                         limits: Limits | None = None) -> tuple[Model, ClosureInfo]:
        """Derive with proofs and store the closure in the ledger, marked derived, with the rule-set hash
        and the AsOf.  A write landing meanwhile makes the stored closure stale at once."""
        marker = self.ledger.change_marker()
        self.ledger.store_rule_set(program.rule_set_hash, render(program, queries=False))
        model = self.derive(program, as_of=as_of, limits=limits, record_proofs=True)
        info = self.ledger.store_closure(rule_set_hash=program.rule_set_hash, as_of=as_of, computed_at=computed_at,
                                         derived=derived_records(model), truncated=model.truncated,
                                         limit_hit=model.limit_hit, change_marker=marker)
        return model, info

    def loaded_rules(self) -> Program | None:
        """The rule set of the most recently stored closure (what ``holokb derive`` last used), or None."""
        infos = sorted(self.ledger.closures(), key=lambda c: c.id)
        if not infos:
            return None
        text = self.ledger.rule_set(infos[-1].rule_set_hash)
        return None if text is None else analyze(parse_rules(text, file="<stored rule set>"))

    def query(self, text: str, *, as_of: AsOf, rules: Program | None = None, ledger_view: bool = False,
              limits: Limits | None = None, name: str = "<query>") -> QueryResult:
        """SPARQL 1.1 over the as-of snapshot (visible triples + the closure under ``rules`` at the same
        AsOf), or over the reified ledger with ``ledger_view``."""
        return run_query(self, text, as_of=as_of, rules_program=rules, ledger_view=ledger_view,
                         limits=limits, name=name)

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
        q = parse_query(query, program)
        return ask(program, database_at(self.ledger, as_of, program), q, limits=limits or Limits.unbounded())

    def explain(self, program: Program, fact: str, *, as_of: AsOf, max_depth: int | None = None,
                limits: Limits | None = None) -> "Explanation":
        """The proof of a (derived or asserted) fact at ``as_of``, down to asserted facts and their evidence."""
        atom = parse_ground_atom(fact, program)
        args = tuple(a.term for a in atom.args)  # type: ignore[union-attr]
        model = self.derive(program, as_of=as_of, limits=limits)
        if not model.contains(atom.predicate, args, negated=atom.negated):
            return Explanation(atom.predicate, args, None, {}, model.truncated, model.limit_hit)
        proof = model.explain(atom.predicate, args, negated=atom.negated, max_depth=max_depth)
        evidence: dict[str, FactView] = {}
        for n in proof.inputs():
            view = self._input_view(n, as_of)
            if view is not None:
                evidence[n.id] = view
        return Explanation(atom.predicate, args, proof, evidence, model.truncated, model.limit_hit)

    def _input_view(self, node: ProofNode, as_of: AsOf) -> FactView | None:
        """The ledger span (with evidence) behind an input fact of a proof, if it came from the ledger."""
        if len(node.args) != 2 or not isinstance(node.key, AssertedRef) or not isinstance(node.args[0], IRI):
            return None
        page = self.ledger.facts(as_of, about=node.args[0], predicate=IRI(node.predicate), obj=node.args[1],
                                 limits=Limits(max_results=None))
        for v in page:
            if v.fact_id == node.key.fact_id:
                return v
        return None

    # -- consistency and entailment -------------------------------------------------------------

    def check_consistency(self, program: Program, *, as_of: AsOf, limits: SolverLimits | None = None,
                          backend: str = "z3") -> tuple[ConsistencyResult, ActiveSetInfo]:
        """Can the facts at ``as_of``, the rules, constraints, functional predicates and the shapes'
        cardinalities all hold at once?  An inconsistency comes with its minimal core of facts."""
        lim = limits or SolverLimits()
        cards = cardinalities(self.gate.shapes_graph if self.gate else None)
        active, info = consistency_active_set(self.ledger, program, as_of, cards, max_facts=lim.max_atoms)
        return check_consistency(active, backend=backend, limits=lim), info

    def prove(self, program: Program, goal: str, *, as_of: AsOf, limits: SolverLimits | None = None,
              backend: str = "z3", hops: int = 1) -> EntailmentResult:
        """``entailed`` / ``refuted`` / ``unknown`` for a ground goal, over the goal's neighbourhood
        (grown one hop per round until the solver answers, a budget ends it, or nothing new is found)."""
        lim = limits or SolverLimits()
        atom = parse_ground_atom(goal, program)
        seeds = goal_seeds([atom])
        start = neighbourhood(self.ledger, as_of, seeds, hops, lim.max_atoms)
        cards = cardinalities(self.gate.shapes_graph if self.gate else None)
        active = ActiveSet.from_program(program, start, cards)

        def expand(a: ActiveSet, round_no: int) -> ActiveSet | None:
            more = neighbourhood(self.ledger, as_of, seeds, hops + round_no, lim.max_atoms)
            grown = a.with_facts(more)
            return None if len(grown.facts) == len(a.facts) else grown

        return entails(active, atom, backend=backend, limits=lim, expand=expand)

    def stats(self) -> dict[str, int]:
        """Counts of facts, spans, evidence, entities, documents, chunks and terms."""
        return self.ledger.stats()


_LABELS = frozenset({RDFS + "label", "http://www.w3.org/2004/02/skos/core#prefLabel",
                     "http://www.w3.org/2004/02/skos/core#altLabel", "http://example.org/name"})


def _entities(records: Sequence[SpanRecord]) -> dict[IRI, tuple[str, ...]]:
    """Subjects that carry a label become entities, their labels aliases (for alias lookup)."""
    out: dict[IRI, list[str]] = {}
    for r in records:
        f = r.fact
        if f.predicate.value in _LABELS and isinstance(f.object, Literal) and f.object.lexical.strip():
            out.setdefault(f.subject, []).append(f.object.lexical)
    return {k: tuple(dict.fromkeys(v)) for k, v in sorted(out.items(), key=lambda kv: kv[0].value)}


def _doc_id(f: Path, files: Sequence[Path]) -> str:
    """Documents are named by file name (``day-log.txt``), as evidence in kb/*.trig refers to them."""
    return f.name


def _sources_for(report: GateReport, batch: Graph, files: Sequence[Path]) -> dict:
    """(file, line) of the first statement about each violating focus node, found in the files."""
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
