"""The ASGI application: routes, authentication, and turning worker replies into responses.

Built on FastAPI (Starlette underneath, served by uvicorn): FastAPI derives the OpenAPI document
(``/openapi.json``) from the same typed parameters that validate requests, so the document cannot
drift from the code.  Its browsable docs pages load scripts from a CDN, so they are switched off
(the package serves everything it shows itself).

>>> # app = create_app(ServerConfig(db="kb.db")); uvicorn.run(app) — or ``holokb serve``
"""
from __future__ import annotations

import asyncio
import contextlib
import hmac
import time
from pathlib import Path
from typing import Annotated, Any, Optional

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from .asgi import NOTE, Guard, problem_response_parts
from .config import ServerConfig
from .errors import BadRequest, HttpProblem, Problem
from .lanes import Lane, lane_of
from .jobs import (
    AnswerQuestion, AskQuery, ExplainFact, FactsRead, HistoryRead, IngestText, Job, LoadFiles, Reply, SparqlQuery,
    SparqlUpdate, StatsRead,
)
from .negotiation import choose
from .params import as_of_of, single
from .pool import WorkerPool
from .protocol import read_operation
from .worker import WorkerSpec

STATIC = Path(__file__).parent / "static"
AsOfParam = Annotated[Optional[str], Query(alias="as-of", description="System time (and valid time unless "
                                           "'valid' is given): 2026-01-01, 2026-01-01T10:00Z, unix ms or latest.")]
ValidParam = Annotated[Optional[str], Query(description="Valid time, when it differs from as-of.")]
LimitParam = Annotated[int, Query(ge=1, le=100_000, description="Most results.")]


def _now_ms() -> int:
    return time.time_ns() // 1_000_000  # the clock, read at the API edge only (design.md §3)


class Server:
    """The running state behind the routes: the config and the worker pool."""

    def __init__(self, config: ServerConfig):
        self.config = config
        self.pool = WorkerPool(WorkerSpec(config.db, config.rules, config.shapes, nice=config.nice),
                               size=config.workers, max_pending=config.max_pending)
        # Point lookups get workers of their own (server/lanes.py): never queued behind heavy work.
        self.fast = WorkerPool(WorkerSpec(config.db, config.rules, config.shapes, warm=True), size=config.fast_workers,
                               max_pending=config.max_pending) if config.fast_workers else None
        # Writes: one worker of their own (never queued behind heavy reads; one writer at a time).
        self.writer = WorkerPool(WorkerSpec(config.db, config.rules, config.shapes), size=1,
                                 max_pending=config.max_pending) if config.write_token else None
        self._last_write = 0

    def write_time(self) -> int:
        """The clock for a write, strictly after this server's previous write (two writes in one
        millisecond would otherwise retract at their own start time)."""
        self._last_write = max(_now_ms(), self._last_write + 1)
        return self._last_write

    def _pools(self) -> list[WorkerPool]:
        return [p for p in (self.pool, self.fast, self.writer) if p is not None]

    async def start(self) -> None:
        pools = self._pools()
        results = await asyncio.gather(*(p.start() for p in pools), return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            await self.close()
            raise errors[0]

    async def close(self) -> None:
        for p in self._pools():
            await p.close()

    async def run(self, request: Request, job: Job) -> Response:
        # A lane's own pool while it has a worker (a replacement may be starting), else the general one.
        lane = {Lane.FAST: self.fast, Lane.WRITE: self.writer}.get(lane_of(job))
        pool = lane if lane is not None and lane.pids else self.pool
        out = await pool.run(job, timeout_s=self.config.timeout_s)
        if isinstance(out, Problem):
            raise HttpProblem(out)
        assert isinstance(out, Reply)
        if out.note:
            request.scope[NOTE] = out.note
        return Response(out.body, status_code=out.status, media_type=out.media_type, headers=dict(out.headers))

    def authorize_write(self, request: Request) -> None:
        """401 without a bearer token, 403 with a wrong one or when writes are off."""
        token = self.config.write_token
        if not token:
            raise HttpProblem(Problem(403, "writes-disabled", "this server was started without a write token, so "
                                      "it refuses every write", hint="start it with --write-token (or "
                                      "HOLOKB_WRITE_TOKEN) to accept writes"))
        header = request.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise HttpProblem(Problem(401, "unauthorized", "writes need 'Authorization: Bearer <token>'",
                                      headers=(("WWW-Authenticate", 'Bearer realm="holokb"'),)))
        if not hmac.compare_digest(given.strip().encode("utf-8"), token.encode("utf-8")):
            raise HttpProblem(Problem(403, "forbidden", "the write token is not the one this server was given"))


def create_app(config: ServerConfig) -> Any:
    """The whole application (an ASGI callable) for ``config``; workers start with the lifespan."""
    server = Server(config)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI):
        await server.start()
        try:
            yield
        finally:
            await server.close()

    app = FastAPI(title="holokb", version="0.1.0", lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="A bitemporal knowledge base with provenance: SPARQL 1.1 Protocol at /sparql, "
                              "the reified ledger at /sparql/ledger, and a JSON API. Writes need "
                              "'Authorization: Bearer <token>'.")
    app.state.server = server

    @app.exception_handler(HttpProblem)
    async def _problem(request: Request, exc: HttpProblem) -> Response:
        status, headers, body = problem_response_parts(exc.problem, request.url.path)
        request.scope[NOTE] = exc.problem.code
        return Response(body, status_code=status, headers={k.decode(): v.decode() for k, v in headers
                                                           if k != b"content-length"})

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        parts = []
        for e in exc.errors():
            where = ".".join(str(x) for x in e.get("loc", ()) if x not in ("query", "body"))
            parts.append(f"{where}: {e.get('msg')}")
        return await _problem(request, BadRequest("; ".join(parts) or "invalid request", code="bad-parameter"))

    # -- SPARQL 1.1 Protocol ------------------------------------------------------------------------

    async def sparql(request: Request, ledger_view: bool) -> Response:
        body = await request.body() if request.method == "POST" else b""
        op = read_operation(request.method, request.scope.get("query_string", b""),
                            request.headers.get("content-type"), body)
        base = str(request.url.replace(query="", fragment=""))
        if op.kind == "update":
            if ledger_view:
                raise HttpProblem(Problem(405, "read-only-view", "the ledger view is read-only; send updates to "
                                          "/sparql", headers=(("Allow", "GET, POST"),)))
            if not config.allow_update:
                raise HttpProblem(Problem(403, "updates-disabled", "SPARQL Update is off on this server",
                                          hint="start it with --allow-update and --write-token"))
            server.authorize_write(request)
            return await server.run(request, SparqlUpdate(op.text, server.write_time(), op.graphs("using-graph-uri") or (),
                                                          op.graphs("using-named-graph-uri") or (), base))
        as_of_text, valid = single(op.params, "as-of"), single(op.params, "valid")
        if ledger_view and (as_of_text or valid):
            raise BadRequest("the ledger view holds every time at once; filter on hk:systemFrom / hk:validFrom "
                             "in the query instead of as-of/valid", code="as-of-on-ledger")
        from ..sparql import query_form

        try:
            form = query_form(op.text)
        except Exception:
            form = "SELECT"  # not recognisably a query: the worker's parser says where it fails
        fmt = choose(request.headers.get("accept"), form, format=single(op.params, "format"))
        job = SparqlQuery(op.text, as_of_of(as_of_text, valid), fmt.key, fmt.media_type, ledger_view,
                          op.graphs("default-graph-uri"), op.graphs("named-graph-uri"), base, config.max_rows)
        return await server.run(request, job)

    for path, view in (("/sparql", False), ("/sparql/", False), ("/sparql/ledger", True)):
        what = " over the reified ledger" if view else " over the as-of snapshot"
        for method in ("GET", "POST"):
            app.add_api_route(path, _endpoint(sparql, view), methods=[method], include_in_schema=path != "/sparql/",
                              summary="SPARQL 1.1 Protocol" + what, description=_SPARQL_DOC,
                              operation_id=f"sparql{'_ledger' if view else ''}_{method.lower()}")
        # other methods reach the handler too, so they get the protocol's 405 with a readable body
        app.add_api_route(path, _endpoint(sparql, view), methods=["PUT", "DELETE", "PATCH"], include_in_schema=False)

    # -- JSON API -----------------------------------------------------------------------------------

    @app.get("/facts", summary="Asserted (or derived) facts visible at an AsOf, with their evidence")
    async def facts(request: Request, about: Optional[str] = None, predicate: Optional[str] = None,
                    as_of: AsOfParam = None, valid: ValidParam = None, limit: LimitParam = 100,
                    derived: bool = False) -> Response:
        return await server.run(request, FactsRead(about, predicate, as_of_of(as_of, valid), limit, derived))

    @app.get("/history", summary="Every span recorded for (subject, predicate), on both time axes")
    async def history(request: Request, subject: str, predicate: str, limit: LimitParam = 1000) -> Response:
        return await server.run(request, HistoryRead(subject, predicate, limit))

    @app.get("/ask", summary="Goal-directed answers to a rule query (?- body.)")
    async def ask(request: Request, query: str, as_of: AsOfParam = None, valid: ValidParam = None) -> Response:
        return await server.run(request, AskQuery(query, as_of_of(as_of, valid)))

    @app.get("/explain", summary="The proof DAG of a fact down to source text, with the chunks it quotes")
    async def explain(request: Request, fact: str, as_of: AsOfParam = None, valid: ValidParam = None,
                      max_depth: Annotated[Optional[int], Query(alias="max-depth", ge=0)] = None) -> Response:
        return await server.run(request, ExplainFact(fact, as_of_of(as_of, valid), max_depth))

    @app.get("/stats", summary="Counts of facts, spans, evidence, entities, documents, chunks and terms")
    async def stats(request: Request) -> Response:
        return await server.run(request, StatsRead())

    @app.post("/load", summary="Load RDF files (and text documents) as one gated, all-or-nothing batch",
              description="Needs 'Authorization: Bearer <token>'. The body is one RDF document (Content-Type "
                          "text/turtle, application/trig, application/n-triples, application/n-quads or "
                          "application/rdf+xml), or multipart/form-data with several files (RDF and .txt/.md "
                          "documents, named by their file names). 'at' is the system time (default: now).")
    async def load(request: Request, at: Optional[str] = None, name: Optional[str] = None) -> Response:
        server.authorize_write(request)
        from .uploads import read_upload

        files = await read_upload(request, name)
        when = as_of_of(at, None).system if at else server.write_time()
        return await server.run(request, LoadFiles(files, when))

    @app.get("/answer", summary="A verdict with its evidence chain (the DS005 answer contract)",
             description="'question' in English, or 'plan' (a QueryPlan as JSON). The reply is the answer contract "
                         "(text, verdict, chunksUsed, factChain, supportScores, conflicts, reason, …) plus "
                         "'chunks' (the text of each chunk used) and 'prefixes'.")
    async def answer(request: Request, question: Optional[str] = None, plan: Optional[str] = None,
                     as_of: AsOfParam = None, valid: ValidParam = None) -> Response:
        if (question is None) == (plan is None):
            raise BadRequest("give exactly one of 'question' and 'plan'", code="missing-parameter")
        return await server.run(request, AnswerQuestion(question, plan, as_of_of(as_of, valid)))

    @app.post("/ingest", summary="Read one text document into facts with evidence (one all-or-nothing batch)",
              description="Needs 'Authorization: Bearer <token>'. The body is the document (text/plain or "
                          "text/markdown, UTF-8); 'doc-id' names it (evidence refers to it), 'at' is the system "
                          "time (default now), 'version' is copied into facts' version qualifier. The reply is the "
                          "ingestion report.")
    async def ingest(request: Request, doc_id: Annotated[str, Query(alias="doc-id", min_length=1, max_length=200)],
                     at: Optional[str] = None, version: Optional[str] = None) -> Response:
        server.authorize_write(request)
        media = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
        if media not in ("text/plain", "text/markdown"):
            raise HttpProblem(Problem(415, "unsupported-media-type", "send the document as text/plain or text/markdown"))
        text = await request.body()
        when = as_of_of(at, None).system if at else server.write_time()
        return await server.run(request, IngestText(text, doc_id, when, version))

    @app.get("/healthz", summary="Liveness: 200 with the worker count while the server can take requests")
    async def healthz() -> JSONResponse:
        fast = server.fast
        return JSONResponse({"ok": True, "workers": len(server.pool.pids), "pending": server.pool.pending,
                             "fastWorkers": len(fast.pids) if fast else 0, "fastPending": fast.pending if fast else 0})

    # -- the proof browser --------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return Guard(app, max_body=config.max_body)


def _endpoint(handler: Any, ledger_view: bool) -> Any:
    async def endpoint(request: Request) -> Response:
        return await handler(request, ledger_view)

    return endpoint


_SPARQL_DOC = """SPARQL 1.1 Protocol. Query by GET (?query=) or POST (application/x-www-form-urlencoded with
query=, or application/sparql-query). Parameters: default-graph-uri, named-graph-uri (a protocol dataset, replacing
FROM / FROM NAMED), as-of and valid (the snapshot's AsOf; default latest), format (json, xml, csv, tsv, turtle,
ntriples, jsonld, rdfxml; overrides Accept). Results by Accept: application/sparql-results+json, +xml, text/csv,
text/tab-separated-values; graphs as text/turtle, application/n-triples, application/ld+json, application/rdf+xml.
Updates (POST application/sparql-update or update=) only with --allow-update and the write token."""
