"""Running SPARQL 1.1 queries over as-of snapshots or the reified ledger view (pyoxigraph adapter).

>>> # run_query(kb, "SELECT ?c WHERE { ex:AchillesIDE ex:hasCapability ?c }", as_of=AsOf.latest(),
>>> #           rules_program=load_program(["rules"])).serialize("table")
"""
from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..core.errors import Diagnostic, DiagnosticError, HolokbError, Location
from ..core.limits import LimitHit, Limits
from ..core.time import AsOf
from .cache import DEFAULT_CACHE, Snapshot, SnapshotCache
from .results import QueryResult, RDFTerm, canonical_rows, canonical_triples

if TYPE_CHECKING:  # the program is only passed through here: analysis loads with the rules
    from ..analysis import Program


class SparqlSyntaxError(DiagnosticError, SyntaxError):
    """A SPARQL query does not parse; the diagnostic points at the line and column."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = ()):
        DiagnosticError.__init__(self, message, diagnostics)
        first = diagnostics[0] if diagnostics else None
        self.msg = message
        self.args = (message,)
        loc = first.location if first else None
        self.filename = loc.file if loc else None
        self.lineno = loc.line if loc else None
        self.offset = loc.column if loc else None
        self.text = first.source_line if first else None

    def __str__(self) -> str:
        return self.render()


# Strings, IRIs and comments blanked out (positions kept) so keywords and braces can be scanned.
_LEXEMES = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''
                      r'|<[^<>"{}|^`\\\s]*>|#[^\n]*')
# Keywords, not parts of prefixed names (``select:x``, ``ex:ask``) or variables (``?order``).
_FORM = re.compile(r"(?<![\w:?$.-])(SELECT|ASK|CONSTRUCT|DESCRIBE)(?![\w:.-])", re.I)
_ORDER_BY = re.compile(r"(?<![\w:?$.-])ORDER\s+BY(?![\w:.-])", re.I)
_UPDATE = re.compile(r"(?<![\w:?$.-])(INSERT|DELETE|LOAD|CLEAR|DROP|CREATE|ADD|MOVE|COPY)(?![\w:.-])", re.I)
_POSITION = re.compile(r"error at (\d+):(\d+):?\s*")


def _blank(text: str) -> str:
    return _LEXEMES.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def query_form(text: str) -> str:
    """SELECT, ASK, CONSTRUCT or DESCRIBE: the first form keyword outside strings, IRIs and comments."""
    m = _FORM.search(_blank(text))
    if m is None:
        raise HolokbError("not a SPARQL query (no SELECT, ASK, CONSTRUCT or DESCRIBE)")
    return m.group(1).upper()


def has_outer_order_by(text: str) -> bool:
    """True when ``ORDER BY`` appears at brace depth 0 (the outermost query, not a subquery)."""
    plain = _blank(text)
    depth, marks = 0, []
    for i, ch in enumerate(plain):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and ch in "oO":
            marks.append(i)
    return any(_ORDER_BY.match(plain, i) for i in marks)


def _rdflib_position(text: str) -> tuple[int, int, str] | None:
    """Where rdflib's parser stops: oxigraph reports the furthest point its PEG parser reached
    (often the end of the query), rdflib the token it could not use.  Error path only."""
    try:
        from pyparsing import ParseException
        from rdflib.plugins.sparql.parser import parseQuery
    except ImportError:  # pragma: no cover - rdflib is a dependency
        return None
    try:
        parseQuery(text)
    except ParseException as e:
        found = re.search(r"found (.*?)\s+\(at char", str(e))
        return e.lineno, e.col, (f"unexpected {found.group(1)}" if found else "")
    except Exception:  # rdflib fails in other ways on some inputs; then oxigraph's position stands
        return None
    return None


_SELECT_STAR = re.compile(r"(?<![\w:?$.-])SELECT\s+(?:(?:DISTINCT|REDUCED)\s+)?\*", re.I)


@functools.cache
def _var() -> re.Pattern[str]:
    # Compiled on first use: its character range makes it the costliest pattern here (~2-4 ms,
    # a tenth of a warm ``holokb query`` command's own work), and only ``SELECT *`` needs it.
    return re.compile(r"[?$]([A-Za-z0-9_\u00B7\u00C0-\uFFFF]+)")


def star_order(text: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """For an outer ``SELECT *``: the variables in order of first appearance in the query (the
    convention people expect; pyoxigraph lists them alphabetically).  Other queries: unchanged."""
    plain = _blank(text)
    m = _SELECT_STAR.search(plain)
    if m is None or plain[:m.start()].count("{") != plain[:m.start()].count("}"):
        return names
    first: dict[str, int] = {}
    for v in _var().finditer(plain, m.end()):
        first.setdefault(v.group(1), v.start())
    return tuple(sorted(names, key=lambda n: (first.get(n, len(plain)), n)))


def _syntax_error(text: str, e: SyntaxError, name: str) -> SparqlSyntaxError:
    msg = str(e)
    m = _POSITION.search(msg)
    line, col = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
    message = _POSITION.sub("", msg) or "syntax error"
    better = _rdflib_position(text)
    if better is not None:
        line, col = better[0], better[1]
        if better[2]:
            message = f"{better[2]}; {message}"
    lines = text.split("\n")
    src = lines[line - 1] if 0 < line <= len(lines) else None
    hint = None if m else "the SPARQL parser reported no position"
    if _UPDATE.search(_blank(text)) and not _FORM.search(_blank(text)):
        hint = "SPARQL Update is not accepted: snapshots are read-only (write through the ledger)"
    diag = Diagnostic("HK500", message, Location(name, line, col), source_line=src, hint=hint)
    return SparqlSyntaxError(f"{name}:{line}:{col}: {message}", (diag,))


#: Result terms already made, shared by every query of the process: a term's conversion depends on
#: its value alone, and a warm query meets the same terms again (LUBM q08: 15.6k of them per run).
#: Cleared past _TERMS_MAX entries, so it stays bounded.
_IRIS: dict[str, RDFTerm] = {}
_LITERALS: dict[tuple, RDFTerm] = {}
_TERMS_MAX = 1_000_000


def _term_converter() -> Callable[[Any], RDFTerm]:
    import pyoxigraph as ox  # optional heavy dependency, imported only in the adapter

    if len(_IRIS) + len(_LITERALS) > _TERMS_MAX:
        _IRIS.clear()
        _LITERALS.clear()
    iris, literals = _IRIS, _LITERALS
    NamedNode, BlankNode, OxLiteral = ox.NamedNode, ox.BlankNode, ox.Literal

    def convert(t: Any) -> RDFTerm:
        k = type(t)
        if k is NamedNode:
            v = t.value
            r = iris.get(v)
            if r is None:
                r = iris[v] = RDFTerm("iri", v)
            return r
        if k is OxLiteral:
            key = (t.value, t.datatype.value, t.language)
            r = literals.get(key)
            if r is None:
                r = literals[key] = RDFTerm.literal(*key)
            return r
        if k is BlankNode:
            return RDFTerm("bnode", t.value)
        raise HolokbError(f"RDF 1.2 triple terms are not supported in results: {t}")

    return convert


def check_syntax(text: str, *, name: str = "<query>", base_iri: str | None = None,
                 prefixes: Mapping[str, str] | None = None) -> str:
    """Parse ``text`` (raising :class:`SparqlSyntaxError` with line/column); returns its form.
    ``prefixes`` are declared for the query unless it declares them itself."""
    import pyoxigraph as ox

    try:
        ox.Store().query(text, base_iri=base_iri, prefixes=dict(prefixes) if prefixes else None)
    except SyntaxError as e:
        raise _syntax_error(text, e, name) from None
    except (RuntimeError, ValueError, OSError) as e:  # parsed, but the engine cannot run it
        raise HolokbError(f"{name}: the SPARQL engine cannot run this query: {e}") from None
    return query_form(text)


def _dataset(default_graph: tuple[str, ...] | None, named_graphs: tuple[str, ...] | None) -> dict:
    """pyoxigraph keywords for a protocol-given dataset (SPARQL 1.1 Protocol §2.1.4): when either list
    is given, it replaces the query's FROM / FROM NAMED and the other list defaults to empty."""
    if default_graph is None and named_graphs is None:
        return {}
    import pyoxigraph as ox

    return {"default_graph": [ox.NamedNode(g) for g in default_graph or ()],
            "named_graphs": [ox.NamedNode(g) for g in named_graphs or ()]}


def _evaluate(snapshot: Snapshot, run: str, text: str, base_iri: str | None, prefixes: Mapping[str, str] | None,
              default_graph: tuple[str, ...] | None, named_graphs: tuple[str, ...] | None) -> Any:
    """pyoxigraph's result for ``run`` (``text`` reordered); ``text`` itself should the reordered
    text not parse — the reader's mistake would cost speed, never the query."""
    kw = dict(base_iri=base_iri, prefixes=dict(prefixes) if prefixes else None, **_dataset(default_graph, named_graphs))
    if run is not text:
        try:
            return snapshot.store.query(run, **kw)
        except SyntaxError:
            pass
    return snapshot.store.query(text, **kw)


def execute(snapshot: Snapshot, text: str, *, form: str, as_of: AsOf, view: str, limits: Limits,
            name: str = "<query>", base_iri: str | None = None,
            prefixes: Mapping[str, str] | None = None, default_graph: tuple[str, ...] | None = None,
            named_graphs: tuple[str, ...] | None = None, stream: bool = False) -> QueryResult:
    """Run ``text`` on one snapshot store; rows capped by ``limits`` (never raises on a budget).
    ``default_graph``/``named_graphs`` (graph IRIs) give the dataset instead of the query's FROM clauses.
    A SELECT is read as one TSV table (.tsv_results); ``stream`` reads it solution by solution
    instead (the reference read the tests hold it equal to; also used for zero-variable SELECTs)."""
    deadline = limits.deadline()
    cap = limits.max_results
    if form in ("SELECT", "ASK") and snapshot.table is not None and default_graph is None and named_graphs is None:
        fast = _from_table(snapshot, text, form, as_of, view, prefixes, cap, deadline)
        if fast is not None:
            return fast
    run = text
    if snapshot.stats:  # triple patterns in the order the snapshot's counts say joins best (.joinorder)
        from .joinorder import reorder

        run = reorder(text, snapshot.stats, form, prefixes)
    try:
        raw = _evaluate(snapshot, run, text, base_iri, prefixes, default_graph, named_graphs)
    except SyntaxError as e:
        raise _syntax_error(text, e, name) from None
    except (OSError, ValueError, RuntimeError) as e:
        raise HolokbError(f"SPARQL evaluation failed: {e}") from None
    truncated, hit = snapshot.truncated, snapshot.limit_hit
    base = dict(as_of=as_of, view=view, snapshot_built=snapshot.built)
    if form == "ASK":
        return QueryResult("ASK", boolean=bool(raw), truncated=truncated, limit_hit=hit, **base)
    ordered = has_outer_order_by(text)
    items: list = []
    try:
        if form == "SELECT":
            names = tuple(v.value for v in raw.variables)
            shown = star_order(text, names)
            pos = [names.index(v) for v in shown]
            if names and not stream:
                # The whole table read at once, stopped between chunks by the budgets (see .tsv_results).
                from .tsv_results import read_select

                rows, done, minted, cut = read_select(raw, len(names), pos, ordered, cap=cap, deadline=deadline)
                if cut is not None:
                    truncated, hit = True, cut
                if minted or not (done or ordered):  # relabel minted blank nodes / term sort
                    rows = canonical_rows(rows, ordered or done)
                return QueryResult("SELECT", shown, tuple(rows), ordered=ordered, truncated=truncated,
                                   limit_hit=hit, **base)
            conv = _term_converter()
            for n, sol in enumerate(raw):
                if cap is not None and n >= cap:
                    truncated, hit = True, LimitHit.MAX_RESULTS
                    break
                if n % 1024 == 1023 and deadline.expired():
                    truncated, hit = True, LimitHit.TIMEOUT
                    break
                items.append(tuple(None if (t := sol[k]) is None else conv(t) for k in pos))
            return QueryResult("SELECT", shown, canonical_rows(items, ordered), ordered=ordered,
                               truncated=truncated, limit_hit=hit, **base)
        conv = _term_converter()
        for n, tr in enumerate(raw):
            if cap is not None and n >= cap:
                truncated, hit = True, LimitHit.MAX_RESULTS
                break
            if n % 1024 == 1023 and deadline.expired():
                truncated, hit = True, LimitHit.TIMEOUT
                break
            items.append((conv(tr.subject), conv(tr.predicate), conv(tr.object)))
    except (OSError, RuntimeError) as e:
        raise HolokbError(f"SPARQL evaluation failed: {e}") from None
    return QueryResult(form, triples=canonical_triples(items), truncated=truncated, limit_hit=hit,  # type: ignore[arg-type]
                       **base)


def _from_table(snapshot: Snapshot, text: str, form: str, as_of: AsOf, view: str, prefixes: Mapping[str, str] | None,
                cap: int | None, deadline: Any) -> QueryResult | None:
    """The result of a SELECT or ASK over one basic graph pattern from the snapshot's id table (.bgp), or
    None when the table is missing or the query is not one .bgp answers (pyoxigraph answers it)."""
    table = snapshot.table.get()
    if table is None:
        return None
    if form == "ASK":
        from .bgp import holds

        found = holds(table, text, prefixes, deadline)
        if found is None:
            return None
        return QueryResult("ASK", boolean=found, truncated=snapshot.truncated, limit_hit=snapshot.limit_hit,
                           as_of=as_of, view=view, snapshot_built=snapshot.built)
    from .bgp import answer

    got = answer(table, text, prefixes, cap, deadline)
    if got is None:
        return None
    names, rows, cut = got
    truncated, hit = snapshot.truncated, snapshot.limit_hit
    if cut is not None:
        truncated, hit = True, cut
    return QueryResult("SELECT", names, tuple(rows), truncated=truncated, limit_hit=hit, as_of=as_of, view=view,
                       snapshot_built=snapshot.built)


def query_ledger(ledger: Any, text: str, *, as_of: AsOf, program: Program | None = None, derive: Any = None,
                 ledger_view: bool = False, limits: Limits | None = None, closure_limits: Limits | None = None,
                 cache: SnapshotCache | None = None, name: str = "<query>",
                 base_iri: str | None = None, prefixes: Mapping[str, str] | None = None,
                 default_graph: tuple[str, ...] | None = None,
                 named_graphs: tuple[str, ...] | None = None) -> QueryResult:
    """SPARQL over a :class:`~holokb.ledger.Ledger`: the snapshot at ``as_of`` (closed under
    ``program`` by ``derive(program, as_of=, limits=)``) or, with ``ledger_view``, the reified ledger;
    ``default_graph``/``named_graphs`` give a protocol dataset (see :func:`execute`)."""
    form = check_syntax(text, name=name, base_iri=base_iri, prefixes=prefixes)
    snap = snapshot_of(ledger, as_of=as_of, program=program, derive=derive, ledger_view=ledger_view,
                       closure_limits=closure_limits, cache=cache)
    return execute(snap, text, form=form, as_of=as_of, view=snap.key.kind, limits=limits or Limits(), name=name,
                   base_iri=base_iri, prefixes=prefixes, default_graph=default_graph, named_graphs=named_graphs)


def snapshot_of(ledger: Any, *, as_of: AsOf, program: Program | None = None, derive: Any = None,
                ledger_view: bool = False, closure_limits: Limits | None = None,
                cache: SnapshotCache | None = None) -> Snapshot:
    """The store :func:`query_ledger` runs a query on (several queries can then share it through
    :func:`execute`, as ``holokb query -f a.rq -f b.rq`` does)."""
    kind = "ledger" if ledger_view else "snapshot"
    return (cache or DEFAULT_CACHE).get(ledger, kind, as_of, program if not ledger_view else None,
                                        closure_limits, derive)


def run_query(kb: Any, query_text: str, *, as_of: AsOf, rules_program: Program | None = None,
              ledger_view: bool = False, limits: Limits | None = None, closure_limits: Limits | None = None,
              cache: SnapshotCache | None = None, name: str = "<query>",
              base_iri: str | None = None, prefixes: Mapping[str, str] | None = None) -> QueryResult:
    """SPARQL 1.1 over a KnowledgeBase at ``as_of`` (plain triples + the rules' closure), or over the
    reified ledger with ``ledger_view=True``.  ``limits`` caps result rows (default 1000) and time;
    ``closure_limits`` budgets the closure (default unbounded).  ``base_iri`` resolves relative
    IRIs in the query; ``name`` is the file name diagnostics show; ``prefixes`` (name → namespace)
    are declared for the query unless it declares them itself.  Never raises on a budget.
    """
    return query_ledger(kb.ledger, query_text, as_of=as_of, program=rules_program, derive=kb.derive,
                        ledger_view=ledger_view, limits=limits, closure_limits=closure_limits, cache=cache,
                        name=name, base_iri=base_iri, prefixes=prefixes)
