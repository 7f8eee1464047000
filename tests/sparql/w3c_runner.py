"""The W3C SPARQL 1.1 query evaluation tests, run as data through holokb's run_query path.

Each test's ``qt:data`` files are loaded into a fresh ledger/KB (default graph) and its
``qt:graphData`` files as facts with the ``graph`` qualifier named by the file's IRI (so they are
named graphs of the snapshot), all at one fixed system time; the query runs on the latest
snapshot.  Files are named by their W3C URL (``BASE``), so relative IRIs, ``FROM <data.ttl>`` and
expected results agree.  Results compare as multisets with blank-node isomorphism (sequences when
the query has an outer ORDER BY); graphs compare by RDFC-1.0 canonical form.
"""
from __future__ import annotations

import itertools
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
from rdflib import Graph, Namespace, RDF, URIRef
from rdflib.collection import Collection

from holokb.core import AsOf, DataSyntaxError, Fact, HolokbError, Limits, SpanRecord
from holokb.core.terms import IRI
from holokb.kb import KnowledgeBase
from holokb.rdf.load import read_records
from holokb.sparql import SnapshotCache, SparqlSyntaxError, check_syntax, run_query
from holokb.sparql.results import RDFTerm

BASE = "https://w3c.github.io/rdf-tests/sparql/sparql11/"
MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
QT = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-query#")
AT = 1_600_000_000_000

#: Folders of manifest-sparql11-query.ttl (the query language), plus the result-format folders.
FOLDERS = ("aggregates", "bind", "bindings", "cast", "construct", "exists", "functions", "grouping", "negation",
           "project-expression", "property-path", "subquery", "syntax-query", "json-res", "csv-tsv-res")

#: Tests not run, with the reason (by test name as in the manifest).  Besides these, a test is
#: skipped when its manifest type is not a query test (update, protocol, service description),
#: when it needs ``qt:serviceData`` (SERVICE), or when its expected result is an RDF result-set
#: graph (``.ttl``) for a SELECT.  The folders chosen leave out service, entailment and update.
SKIP: dict[str, str] = {}

_VALUE_IDENTITY = ("the ledger identifies literals by value (design §3): a float and a double (or a "
                   "negativeInteger and an integer) of equal value are one term, stored with the first form")
_ENGINE = "pyoxigraph 0.5.13 deviates (reproduced on a bare pyoxigraph Store): "
#: Known failures with their reason; the conformance test fails if any other test fails, or if one
#: of these starts passing (so the list stays exact).
KNOWN_FAILURES: dict[str, str] = {
    "xsd:boolean cast": _VALUE_IDENTITY,
    "xsd:integer cast": _VALUE_IDENTITY,
    "xsd:float cast": _VALUE_IDENTITY,
    "xsd:double cast": _VALUE_IDENTITY,
    "xsd:decimal cast": _VALUE_IDENTITY,
    "xsd:string cast": _VALUE_IDENTITY,
    "tsv03 - TSV Result Format": _VALUE_IDENTITY,
    "csv03 - CSV Result Format": _ENGINE + "doubles come back in canonical form (1.0E6 as 1000000)",
    "GROUP_CONCAT with same language tag": _ENGINE + "GROUP_CONCAT keeps the language tag",
    "GROUP_CONCAT with one element": _ENGINE + "GROUP_CONCAT keeps the language tag",
    "BNODE(str)": _ENGINE + "BNODE(str) returns the same blank node across solutions",
    "outer GRAPH operator does not affect MINUS disjointness": _ENGINE + "MINUS inside GRAPH",
    "* with start being a constant on the empty dataset": _ENGINE + "zero-length path to a term not in the data",
    "* with end being a constant on the empty dataset": _ENGINE + "zero-length path to a term not in the data",
    "? with start being a constant on the empty dataset": _ENGINE + "zero-length path to a term not in the data",
    "? with end being a constant on the empty dataset": _ENGINE + "zero-length path to a term not in the data",
}


@dataclass(frozen=True)
class Case:
    folder: str
    name: str
    kind: str  # eval | syntax+ | syntax-
    query: Path
    data: tuple[Path, ...] = ()
    graph_data: tuple[Path, ...] = ()
    result: Path | None = None

    def url(self, p: Path) -> str:
        return BASE + p.parent.name + "/" + p.name


@dataclass(frozen=True)
class Outcome:
    case: Case
    status: str  # pass | fail | skip
    detail: str = ""


def cases(root: Path) -> list[Case]:
    """Every test of the selected folders, in manifest order."""
    out: list[Case] = []
    for folder in FOLDERS:
        mpath = root / folder / "manifest.ttl"
        if not mpath.exists():
            continue
        g = Graph()
        g.parse(mpath, format="turtle", publicID=BASE + folder + "/manifest.ttl")
        local = lambda u: root / folder / str(u).rsplit("/", 1)[-1]  # noqa: E731
        for m in g.subjects(RDF.type, MF.Manifest):
            for lst in g.objects(m, MF.entries):
                for e in Collection(g, lst):
                    t = g.value(e, RDF.type)
                    name = str(g.value(e, MF.name) or e)
                    action = g.value(e, MF.action)
                    if t == MF.CSVResultFormatTest:
                        out.append(Case(folder, name, "csv", local(g.value(action, QT.query)),
                                        tuple(local(d) for d in g.objects(action, QT.data)), (),
                                        local(g.value(e, MF.result))))
                    elif t in (MF.PositiveSyntaxTest11, MF.NegativeSyntaxTest11):
                        out.append(Case(folder, name, "syntax+" if t == MF.PositiveSyntaxTest11 else "syntax-",
                                        local(action)))
                    elif t == MF.QueryEvaluationTest:
                        if (action, QT.serviceData, None) in g:
                            out.append(Case(folder, name, "skip:service", local(g.value(action, QT.query))))
                            continue
                        res = g.value(e, MF.result)
                        out.append(Case(folder, name, "eval", local(g.value(action, QT.query)),
                                        tuple(local(d) for d in g.objects(action, QT.data)),
                                        tuple(local(d) for d in g.objects(action, QT.graphData)),
                                        local(res) if res is not None else None))
                    else:
                        out.append(Case(folder, name, "skip:" + str(t).rsplit("#", 1)[-1], local(action)
                                        if isinstance(action, URIRef) else mpath))
    return out


# ------------------------------------------------------------------ loading


_KBS: dict[tuple, KnowledgeBase] = {}


def _kb_for(case: Case, tmp: Path) -> KnowledgeBase:
    key = (case.data, case.graph_data)
    kb = _KBS.get(key)
    if kb is not None:
        return kb
    kb = KnowledgeBase.open(tmp / f"kb{len(_KBS)}.db")
    records: list[SpanRecord] = []
    for d in sorted(case.data):
        records.extend(read_records(d, at=AT, base_iri=case.url(d), source_id=case.url(d)))
    for d in sorted(case.graph_data):
        g = IRI(case.url(d))
        for r in read_records(d, at=AT, base_iri=case.url(d), source_id=case.url(d)):
            f = r.fact
            records.append(SpanRecord(Fact(f.subject, f.predicate, f.object, (("graph", g),), f.polarity),
                                      r.valid, r.system, r.evidence))
    from holokb.rdf.load import store_records

    store_records(kb.ledger, records, at=AT)
    _KBS[key] = kb
    return kb


def close_all() -> None:
    for kb in _KBS.values():
        kb.close()
    _KBS.clear()


# ------------------------------------------------------------------ comparing


def _term(t) -> RDFTerm | None:
    if t is None:
        return None
    if isinstance(t, ox.NamedNode):
        return RDFTerm.iri(t.value)
    if isinstance(t, ox.BlankNode):
        return RDFTerm.bnode(t.value)
    return RDFTerm.literal(t.value, t.datatype.value, t.language.lower() if t.language else None)


_XSD = "http://www.w3.org/2001/XMLSchema#"
_NUMERIC = {_XSD + n for n in ("integer", "decimal", "double", "float", "int", "long", "short", "byte",
                               "nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger",
                               "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte")}


def _norm(t: RDFTerm | None) -> RDFTerm | None:
    """Language tags compare case-insensitively; numbers and booleans by value within their
    datatype (pyoxigraph stores them natively: ``"1.0"^^xsd:decimal`` comes back as ``"1"``)."""
    if t is None or t.kind != "literal":
        return t
    if t.lang:
        return RDFTerm.literal(t.value, lang=t.lang.lower())
    if t.datatype in _NUMERIC:
        from decimal import Decimal, InvalidOperation

        try:
            v = t.value.strip()
            num = float(v) if t.datatype in (_XSD + "double", _XSD + "float") else Decimal(v)
            return RDFTerm.literal(repr(num) if isinstance(num, float) else str(num.normalize() + 0), t.datatype)
        except (ValueError, InvalidOperation):
            return t
    if t.datatype == _XSD + "boolean" and t.value.strip() in ("1", "0"):
        return RDFTerm.literal("true" if t.value.strip() == "1" else "false", t.datatype)
    return t


def _expected_results(path: Path, base: str):
    fmt = {".srx": "XML", ".srj": "JSON", ".tsv": "TSV", ".csv": "CSV"}.get(path.suffix)
    if fmt is None:
        return None
    parsed = ox.parse_query_results(path.read_bytes(), format=getattr(ox.QueryResultsFormat, fmt))
    if isinstance(parsed, ox.QueryBoolean):
        return bool(parsed)
    names = [v.value for v in parsed.variables]
    return names, [tuple(_term(sol[v]) for v in names) for sol in parsed]


def _bnodes(rows) -> set[str]:
    return {t.value for r in rows for t in r if t is not None and t.kind == "bnode"}


def same_rows(actual: list, expected: list, ordered: bool) -> bool:
    """Multiset (or sequence) equality up to a bijection of blank-node labels."""
    if len(actual) != len(expected):
        return False
    if not _bnodes(actual) and not _bnodes(expected):
        return actual == expected if ordered else Counter(actual) == Counter(expected)
    # Backtracking search for a bijection: actual row i ↔ an unused expected row.
    order = list(range(len(actual)))
    used = [False] * len(expected)

    def unify(a, e, m, inv):
        m, inv = dict(m), dict(inv)
        for x, y in zip(a, e):
            if x is None or y is None:
                if x is not y:
                    return None
                continue
            if x.kind == "bnode" and y.kind == "bnode":
                if m.get(x.value, y.value) != y.value or inv.get(y.value, x.value) != x.value:
                    return None
                m[x.value], inv[y.value] = y.value, x.value
            elif x != y:
                return None
        return m, inv

    def go(i, m, inv, steps=[0]):  # noqa: B006 - a shared step budget
        steps[0] += 1
        if steps[0] > 200_000:
            return False
        if i == len(order):
            return True
        a = actual[order[i]]
        cands = [i] if ordered else range(len(expected))
        for j in cands:
            if used[j]:
                continue
            r = unify(a, expected[j], m, inv)
            if r is None:
                continue
            used[j] = True
            if go(i + 1, *r):
                return True
            used[j] = False
        return False

    return go(0, {}, {})


def _canon_graph(triples) -> set:
    ds = ox.Dataset()
    for s, p, o in triples:
        ds.add(ox.Quad(s, p, o))
    ds.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return {str(q) for q in ds}


def _ox(t: RDFTerm):
    if t.kind == "iri":
        return ox.NamedNode(t.value)
    if t.kind == "bnode":
        return ox.BlankNode(t.value)
    if t.lang:
        return ox.Literal(t.value, language=t.lang)
    return ox.Literal(t.value, datatype=ox.NamedNode(t.datatype))


# ------------------------------------------------------------------ running


def run_case(case: Case, tmp: Path) -> Outcome:
    """Run one test; never raises (a crash is a failure with its message)."""
    if case.kind.startswith("skip:"):
        return Outcome(case, "skip", case.kind[5:])
    if case.name in SKIP:
        return Outcome(case, "skip", SKIP[case.name])
    text = case.query.read_text(encoding="utf-8")
    if case.kind in ("syntax+", "syntax-"):
        try:
            check_syntax(text, base_iri=case.url(case.query))
            ok = case.kind == "syntax+"
        except SparqlSyntaxError:
            ok = case.kind == "syntax-"
        except HolokbError:  # parsed; the engine only lacks something (e.g. a custom function)
            ok = case.kind == "syntax+"
        return Outcome(case, "pass" if ok else "fail", "" if ok else "syntax verdict differs")
    try:
        kb = _kb_for(case, tmp)
    except (DataSyntaxError, HolokbError) as e:
        return Outcome(case, "skip", f"data rejected by the KB: {str(e).splitlines()[0][:120]}")
    try:
        res = run_query(kb, text, as_of=AsOf.latest(), base_iri=case.url(case.query),
                        limits=Limits.unbounded(), cache=_CACHE)
    except SparqlSyntaxError as e:
        return Outcome(case, "fail", f"query rejected: {e.message[:120]}")
    except HolokbError as e:
        return Outcome(case, "fail", f"error: {e.message[:120]}")
    if case.result is None:
        return Outcome(case, "fail", "no expected result")
    if case.kind == "csv":  # our CSV text against the expected file (line ends, blank labels normalised)
        ok = _csv_lines(res.serialize("csv")) == _csv_lines(case.result.read_text(encoding="utf-8"))
        return Outcome(case, "pass" if ok else "fail", "" if ok else "CSV text differs")
    if res.form in ("CONSTRUCT", "DESCRIBE"):
        g = ox.parse(path=str(case.result), base_iri=case.url(case.result))
        exp = _canon_graph((q.subject, q.predicate, q.object) for q in g)
        act = _canon_graph((_ox(s), _ox(p), _ox(o)) for s, p, o in res.triples)
        return Outcome(case, "pass" if exp == act else "fail", "" if exp == act else "graph differs")
    expected = _expected_results(case.result, case.url(case.result))
    if expected is None:
        return Outcome(case, "skip", f"expected result is an RDF result-set graph ({case.result.suffix}), not compared")
    if isinstance(expected, bool):
        ok = res.form == "ASK" and res.boolean == expected
        return Outcome(case, "pass" if ok else "fail", "" if ok else f"ASK gave {res.boolean}")
    names, rows = expected
    if res.form != "SELECT":
        return Outcome(case, "fail", f"expected a SELECT result, got {res.form}")
    idx = {v: i for i, v in enumerate(res.variables)}
    actual = [tuple(_norm(r[idx[v]]) if v in idx else None for v in names) for r in res.rows]
    rows = [tuple(_norm(t) for t in r) for r in rows]
    if case.result.suffix == ".csv":  # CSV loses types: compare the CSV text values instead
        actual = [tuple(None if t is None else _csv_val(t) for t in r) for r in actual]
        rows = [tuple(None if t is None else _csv_val(t) for t in r) for r in rows]
    ok = same_rows(actual, rows, res.ordered)
    return Outcome(case, "pass" if ok else "fail", "" if ok else f"rows differ ({len(actual)} vs {len(rows)})")


def _csv_lines(text: str) -> list[str]:
    labels: dict[str, str] = {}

    def relabel(m):
        return labels.setdefault(m.group(), f"_:x{len(labels)}")

    import re

    return [re.sub(r"_:[A-Za-z0-9_]+", relabel, line) for line in text.replace("\r\n", "\n").splitlines()]


def _csv_val(t: RDFTerm) -> RDFTerm:
    return t if t.kind == "bnode" else RDFTerm.literal(t.value)


_CACHE = SnapshotCache(size=2, disk=False)


def run_all(root: Path) -> list[Outcome]:
    """Every case under ``root`` (the sparql11 folder), in manifest order."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            return [run_case(c, Path(tmp)) for c in cases(root)]
        finally:
            close_all()
            _CACHE.clear()


def summary(outcomes: list[Outcome]) -> dict[str, tuple[int, int, int]]:
    """folder → (passed, failed, skipped)."""
    out: dict[str, list[int]] = {}
    for o in outcomes:
        c = out.setdefault(o.case.folder, [0, 0, 0])
        c[("pass", "fail", "skip").index(o.status)] += 1
    return {k: (a, b, c) for k, (a, b, c) in out.items()}


if __name__ == "__main__":
    import sys

    root = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/corpora/w3c_rdf_tests/sparql/sparql11")
    outs = run_all(root)
    for o in outs:
        if o.status != "pass":
            print(f"{o.status:4} {o.case.folder:18} {o.case.name:50} {o.detail}")
    for k, v in summary(outs).items():
        print(f"{k:20} pass {v[0]:4} fail {v[1]:4} skip {v[2]:4}")
    _ = itertools
