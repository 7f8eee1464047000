"""Inside a worker process: the KB opened once, and one function per kind of job.

A worker owns its own SQLite connection, rule program and in-memory snapshot cache; the server
process never touches the KB for a request.  That is what lets the server stop any job at its
deadline by killing the process (pyoxigraph cannot interrupt a running query, and a closure may
spend long inside numpy): nothing is shared that a kill could leave half-changed, and a batch
being written rolls back with the process (SQLite's atomic commit).
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core import IRI, HolokbError, Limits
from ..core.errors import DiagnosticError, LedgerError, RetractionError, ShapeViolationError, WriterBusyError
from ..core.terms import HK, OWL, RDF, RDFS, XSD
from ..jsonviews import fact_view_json, term_json
from .errors import Problem
from .jobs import (
    AnswerQuestion, AskQuery, ExplainFact, FactsRead, HistoryRead, IngestText, Job, LoadFiles, Outcome, Reply,
    SparqlQuery, SparqlUpdate, StatsRead,
)

JSON = "application/json"


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """How a worker opens the KB: ledger file, rule files (None = the rule set of the last derive)
    and SHACL shapes gating writes."""

    db: str
    rules: tuple[str, ...] | None = None
    shapes: tuple[str, ...] = ()
    nice: int = 0  # added to the process's CPU niceness at start
    warm: bool = False  # build the latest snapshot before the first job (the fast lane's lookups)


class WorkerState:
    """The KB, rules and snapshot cache one worker process keeps between jobs."""

    def __init__(self, spec: WorkerSpec):
        from ..kb import KnowledgeBase
        from ..reasoning import load_program
        from ..sparql.live import LiveCache

        self.kb = KnowledgeBase.open(spec.db, shapes=list(spec.shapes))
        program = load_program(spec.rules) if spec.rules is not None else self.kb.loaded_rules()
        self.program = program if program is not None else load_program([])
        self.rules_given = spec.rules is not None or program is not None
        # Memory only (a disk cache shared by several workers would be pruned under a reader), and
        # kept current by each write's delta rather than rebuilt (sparql/live.py).
        self.cache = LiveCache(size=4)
        self.prefixes = {"rdf": RDF, "rdfs": RDFS, "owl": OWL, "xsd": XSD, "hk": HK, **dict(self.program.prefixes)}
        self._models: OrderedDict[tuple, Any] = OrderedDict()

    def derive(self, program: Any, *, as_of: Any, limits: Limits | None = None, record_proofs: bool = True) -> Any:
        """``kb.derive`` with a small cache: the snapshot and /explain at the same AsOf share one
        closure, and it outlives writes that cannot change it (``closure_affected``: no predicate the
        rules read was touched at a system time the AsOf sees).  Keyed by the AsOf and the program;
        budgets other than time are part of the key; a closure a budget cut short is never kept."""
        from ..sparql.live import closure_affected
        from ..sparql.snapshot import program_hash

        lim = limits or Limits.unbounded()
        key = (as_of, program_hash(program), (lim.max_depth, lim.max_derived, lim.max_edges))
        ledger = self.kb.ledger
        with ledger.read_transaction():  # the marker and the closure's input: one committed state
            marker = ledger.change_marker()
            hit = self._models.get(key)
            if hit is not None and hit[0] != marker:
                if closure_affected(ledger.changes_since(hit[0], as_of), program, as_of):
                    hit = None
                else:
                    hit = self._models[key] = (marker, hit[1])
            if hit is not None:
                self._models.move_to_end(key)
                return hit[1]
            model = self.kb.derive(program, as_of=as_of, limits=lim, record_proofs=True)
        if not model.truncated:
            self._models[key] = (marker, model)
            while len(self._models) > 4:
                self._models.popitem(last=False)
        return model

    def iri(self, text: str, what: str) -> IRI:
        """An IRI from ``<…>``, an absolute IRI, or a prefixed name the rules declare."""
        t = text.strip()
        if t.startswith("<") and t.endswith(">"):
            t = t[1:-1]
        elif not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", t):
            prefix, sep, local = t.partition(":")
            if not sep or prefix not in self.prefixes:
                raise _bad(f"cannot read {what} {text!r} as an IRI: use <http://…> or a declared prefix "
                           f"({', '.join(sorted(self.prefixes))})", "bad-iri")
            t = self.prefixes[prefix] + local
        try:
            return IRI(t)
        except (HolokbError, ValueError) as e:
            raise _bad(f"{what} {text!r} is not a valid IRI: {e}", "bad-iri") from None


class _Refused(Exception):
    def __init__(self, problem: Problem):
        self.problem = problem


def _bad(message: str, code: str, status: int = 400, **kw: Any) -> _Refused:
    return _Refused(Problem(status, code, message, **kw))


def _json(doc: object, note: str = "") -> Reply:
    return Reply(200, JSON, json.dumps(doc, ensure_ascii=False, sort_keys=True).encode("utf-8"), note=note)


def run_job(state: WorkerState, job: Job) -> Outcome:
    """Do one job; every failure a client can cause becomes a :class:`Problem` (never a traceback)."""
    try:
        match job:
            case SparqlQuery():
                return _sparql(state, job)
            case SparqlUpdate():
                return _update(state, job)
            case FactsRead():
                return _facts(state, job)
            case HistoryRead():
                page = state.kb.history(state.iri(job.subject, "subject"), state.iri(job.predicate, "predicate"),
                                        limits=Limits(max_results=job.limit))
                return _json({"spans": [fact_view_json(v) for v in page], "truncated": page.truncated})
            case AskQuery():
                return _ask(state, job)
            case ExplainFact():
                return _explain(state, job)
            case StatsRead():
                return _json(state.kb.stats())
            case LoadFiles():
                return _load(state, job)
            case AnswerQuestion():
                return _answer(state, job)
            case IngestText():
                report = state.kb.ingest(job.text, doc_id=job.doc_id, at=job.at, version=job.version)
                return _json({**report.to_json(), "version": state.kb.ledger.change_marker()}, note=f"{job.doc_id}")
    except _Refused as r:
        return r.problem
    except WriterBusyError as e:
        return Problem(503, "writer-busy", e.message, headers=(("Retry-After", "1"),))
    except ShapeViolationError as e:
        return _diagnostic_problem(422, "shapes-violation", e)
    except DiagnosticError as e:
        return _diagnostic_problem(400, "syntax", e)
    except RetractionError as e:
        return Problem(409, "retraction-conflict", e.message)
    except LedgerError as e:
        return Problem(500, "ledger-error", e.message)
    except HolokbError as e:
        return Problem(400, "rejected", e.message)
    raise AssertionError(f"unknown job {type(job).__name__}")


def _diagnostic_problem(status: int, code: str, e: DiagnosticError) -> Problem:
    first = e.diagnostics[0] if e.diagnostics else None
    loc = first.location if first else None
    hint = first.hint if first else None
    return Problem(status, code, e.render(), line=loc.line if loc else None, column=loc.column if loc else None,
                   hint=hint)


def _sparql(state: WorkerState, job: SparqlQuery) -> Outcome:
    from ..sparql import SparqlSyntaxError, query_ledger, serialize

    limits = Limits(max_results=job.max_rows, timeout_s=job.budget_s)
    try:
        result = query_ledger(state.kb.ledger, job.text, as_of=job.as_of,
                              program=None if job.ledger_view else state.program, derive=state.derive,
                              ledger_view=job.ledger_view, limits=limits, cache=state.cache, name="query",
                              base_iri=job.base_iri, default_graph=job.default_graphs, named_graphs=job.named_graphs)
    except SparqlSyntaxError as e:
        d = e.diagnostics[0] if e.diagnostics else None
        return Problem(400, "query-syntax", e.render(), line=e.lineno, column=e.offset, hint=d.hint if d else None)
    if result.truncated and result.limit_hit == "timeout":
        return Problem(503, "deadline", "the query ran past its deadline and was stopped; no partial results are "
                       "sent", hint="narrow the query, add LIMIT, or start the server with a longer --timeout")
    try:
        body = serialize(result, job.format)
    except HolokbError as e:
        return Problem(406, "not-acceptable", e.message)
    headers = snapshot_headers(state, job.as_of)
    if result.truncated:
        headers += (("X-Holokb-Truncated", str(result.limit_hit)),)
    note = f"{result.form.lower()} {len(result)}" + (f" truncated:{result.limit_hit}" if result.truncated else "")
    return Reply(200, job.media_type, body.encode("utf-8"), headers, note=note)


def snapshot_headers(state: WorkerState, as_of: Any) -> tuple[tuple[str, str], ...]:
    """What the answer reflects: the ledger version (change marker) of the snapshot it ran on, and
    its AsOf — a "latest" system time is given as the time of the newest write included."""
    from ..core import MAX_TIME

    snap = state.cache.current
    if snap is None:
        return ()
    system = as_of.system if as_of.system != MAX_TIME else snap.system_high
    valid = "latest" if as_of.valid == MAX_TIME else str(as_of.valid)
    return (("X-Holokb-Ledger-Version", str(snap.key.marker[0])),
            ("X-Holokb-As-Of", f"system={'none' if system is None else system}; valid={valid}"))


def _update(state: WorkerState, job: SparqlUpdate) -> Outcome:
    from ..core import MAX_TIME, AsOf
    from ..sparql import SparqlSyntaxError
    from ..sparql.update import UpdateDatasetConflict, update_delta

    try:
        delta = update_delta(state.kb.ledger, job.text, as_of=AsOf(MAX_TIME, job.at), base_iri=job.base_iri,
                             using=job.using_graphs, using_named=job.using_named_graphs, name="update")
    except SparqlSyntaxError as e:
        return Problem(400, "update-syntax", e.render(), line=e.lineno, column=e.offset)
    except UpdateDatasetConflict as e:
        return Problem(400, "dataset-conflict", e.message)
    added, closed = state.kb.apply_changes(asserts=delta.added, retracts=delta.removed, at=job.at)
    return _json({"asserted": added, "retracted": closed, "at": job.at, "version": state.kb.ledger.change_marker()},
                 note=f"+{added} -{closed}")


def _facts(state: WorkerState, job: FactsRead) -> Outcome:
    about = state.iri(job.about, "about") if job.about else None
    pred = state.iri(job.predicate, "predicate") if job.predicate else None
    asof = {"system": job.as_of.system, "valid": job.as_of.valid}
    if job.derived:
        read = state.kb.derived_facts(state.program, as_of=job.as_of, about=about, predicate=pred,
                                      limits=Limits(max_results=job.limit))
        return _json({"asOf": asof, "source": read.source, "truncated": read.truncated,
                      "facts": [{"predicate": p.value, "args": [term_json(a) for a in args], "valid": [v.start, v.end],
                                 "rule": r, "score": sc} for p, args, v, r, sc in read.facts]})
    page = state.kb.facts(about, pred, as_of=job.as_of, limits=Limits(max_results=job.limit))
    return _json({"asOf": asof, "facts": [fact_view_json(v) for v in page], "truncated": page.truncated,
                  "limitHit": page.limit_hit})


def _ask(state: WorkerState, job: AskQuery) -> Outcome:
    ans = state.kb.ask(state.program, job.query, as_of=job.as_of, limits=Limits(max_results=None,
                                                                                 timeout_s=job.budget_s))
    return _json({"variables": list(ans.variables),
                  "rows": [{v: term_json(t) for v, t in zip(ans.variables, row)} for row in ans.rows],
                  "truncated": ans.truncated, "limitHit": ans.limit_hit, "strategy": ans.strategy},
                 note=f"{len(ans.rows)} rows")


def _explain(state: WorkerState, job: ExplainFact) -> Outcome:
    from ..answer.proofs import to_json

    limits = Limits(max_results=None, timeout_s=job.budget_s)
    model = state.derive(state.program, as_of=job.as_of, limits=limits)
    expl = state.kb.explain(state.program, job.fact, as_of=job.as_of, max_depth=job.max_depth, model=model)
    doc = to_json(expl)
    chunks: dict[str, str] = {}
    for view in expl.evidence.values():
        for e in view.evidence:
            if e.chunk is not None:
                text = state.kb.ledger.chunk_text(e.document, e.chunk)
                if text is not None:
                    chunks[f"{e.document}#{e.chunk}"] = text
    doc["chunks"] = chunks  # the page highlights each evidence span inside its whole chunk
    doc["asOf"] = {"system": job.as_of.system, "valid": job.as_of.valid}
    doc["prefixes"] = state.prefixes  # the page writes IRIs the way the rules do
    return _json(doc, note="holds" if expl.proof is not None else "does not hold")


def _answer(state: WorkerState, job: AnswerQuestion) -> Outcome:
    question: Any = job.question
    if job.plan is not None:
        from ..answer.plan import QueryPlan

        question = QueryPlan.from_json(job.plan, source="plan")
    answer = state.kb.answer(question, as_of=job.as_of, rules=state.program if state.rules_given else None,
                             prefixes=state.prefixes)
    doc = answer.to_json()
    chunks: dict[str, str] = {}
    for ref in doc.get("chunksUsed", ()):
        document, _, chunk = ref.rpartition("#")
        text = state.kb.ledger.chunk_text(document, chunk)
        if text is not None:
            chunks[ref] = text
    doc["chunks"] = chunks  # the page highlights each evidence span inside its whole chunk
    doc["prefixes"] = state.prefixes
    return Reply(200, JSON, json.dumps(doc, ensure_ascii=False).encode("utf-8"), note=doc.get("verdict", ""))


_SUFFIXES = (".ttl", ".trig", ".nt", ".nq", ".owl", ".rdf", ".txt", ".md")


def _load(state: WorkerState, job: LoadFiles) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="holokb-load-") as tmp:
        paths = []
        for name, data in job.files:
            # Names were checked by the server; checked again here because this is where files are written.
            if os.path.basename(name) != name or name.startswith(".") or not name.endswith(_SUFFIXES):
                raise _bad(f"file name {name!r} is not a plain name ending in {', '.join(_SUFFIXES)}", "bad-file-name")
            (Path(tmp) / name).write_bytes(data)
            paths.append(Path(name))
        # Relative names, loaded from inside the folder: diagnostics show the client's file names, and
        # blank-node skolemisation (salted by the file's name) does not depend on a random folder.
        here = os.getcwd()
        os.chdir(tmp)
        try:
            report = state.kb.load(paths, at=job.at)
        finally:
            os.chdir(here)
    return _json({"files": [n for n, _ in job.files], "facts": report.facts, "documents": report.documents,
                  "chunks": report.chunks, "at": report.at, "version": state.kb.ledger.change_marker()},
                 note=f"{report.facts} facts")


def worker_main(conn: Any, spec: WorkerSpec) -> None:
    """A worker process: open the KB, say ready (or why not), then answer jobs until the pipe closes."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server stops its workers itself, in order
    if spec.nice:
        os.nice(spec.nice)
    try:
        state = WorkerState(spec)
    except HolokbError as e:
        conn.send(("failed", e.render()))
        return
    conn.send(("ready", os.getpid()))
    if spec.warm:  # jobs sent meanwhile wait in the pipe
        try:
            from ..core import AsOf

            state.cache.get(state.kb.ledger, "snapshot", AsOf.latest(), state.program, None, state.derive)
        except HolokbError:
            pass  # the first query reports it
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        broken = False
        try:
            out = run_job(state, job)
        except MemoryError:
            out, broken = Problem(503, "out-of-memory", "the job ran out of memory and was stopped"), True
        except Exception as e:  # a bug, not the client's doing: say so once, then start afresh
            out, broken = Problem(500, "internal-error", f"{type(e).__name__}: {e}"), True
        try:
            conn.send(out)
        except (OSError, ValueError):
            return
        if broken:
            return  # the pool sees the pipe close and starts a fresh worker
