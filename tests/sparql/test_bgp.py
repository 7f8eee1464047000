"""SELECTs over one basic graph pattern answered from the snapshot's id table (sparql/bgp.py) give
exactly what pyoxigraph gives on the same snapshot: the same variables and rows in the same order,
so the same bytes in every output format — on random small graphs (IRIs, stable blank nodes, plain,
language-tagged, xsd:string and other typed literals, some in non-canonical forms pyoxigraph
normalises) and random patterns (repeated variables, constants, ``a``, blank nodes, variable
predicates), with both join engines; and anything the module does not fully understand goes to
pyoxigraph unchanged."""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.core import AsOf, Limits
from holokb.sparql import bgp
from holokb.sparql.cache import Snapshot, SnapshotCache
from holokb.sparql.idtable import IdTable, TableRef, build
from holokb.sparql.nquads import encode_columns
from holokb.sparql.query import execute
from holokb.sparql.snapshot import SnapshotKey

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
PRE = f"PREFIX ex: <{EX}>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\nPREFIX xsd: <{XSD}>\n"
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
KEY = SnapshotKey("snapshot", AsOf.latest(), (0,), "")

# Term texts as the ledger writes them (nquads.row_text): the snapshot's input.
NODES = [f"<{EX}n{i}>" for i in range(5)] + ["_:b" + "0a" * 16, "_:b" + "1b" * 16]
PREDS = [f"<{EX}p{i}>" for i in range(3)] + [RDF_TYPE]
CLASSES = [f"<{EX}C{i}>" for i in range(2)]
LITERALS = ['"a"', '"b"', '"a"@en', '"a"@EN-us', '"say \\"hi\\"\ttab"', f'"a"^^<{XSD}string>',
            f'"1"^^<{XSD}integer>', f'"01"^^<{XSD}integer>', f'"1.0"^^<{XSD}decimal>', f'"true"^^<{XSD}boolean>',
            f'"x"^^<{EX}dt>', f'"a"^^<{EX}dt>']
# Pattern terms as a query writes them.
Q_NODES = [f"ex:n{i}" for i in range(5)] + [f"<{EX}n0>", "ex:missing"]
Q_PREDS = [f"ex:p{i}" for i in range(3)] + ["rdf:type", "a", f"<{EX}p1>"]
Q_LITERALS = ['"a"', '"b"', '"a"@en', '"a"@EN-US', "'b'", '"a"^^xsd:string', f'"a"^^<{XSD}string>', '"zz"',
              '"1"^^xsd:integer', "1", f'"x"^^<{EX}dt>']
VARS = ["?a", "?b", "?c", "$a"]
BNODES = ["_:x", "_:y"]


@st.composite
def graphs(draw):
    """(term texts, triples as id rows) — ids index the texts; repeats allowed."""
    texts = NODES + PREDS + CLASSES + LITERALS
    index = {t: i for i, t in enumerate(texts)}
    rows = []
    for _ in range(draw(st.integers(0, 30))):
        p = draw(st.sampled_from(PREDS))
        s = draw(st.sampled_from(NODES))
        o = draw(st.sampled_from(CLASSES + NODES[:2] if p == RDF_TYPE else NODES + LITERALS + CLASSES))
        rows.append((index[s], index[p], index[o]))
    return texts, rows


@st.composite
def queries(draw):
    pats = []
    for _ in range(draw(st.integers(1, 4))):
        s = draw(st.sampled_from(VARS + Q_NODES + BNODES))
        p = draw(st.sampled_from(Q_PREDS + ["?p", "?a"]))
        o = draw(st.sampled_from(VARS + Q_NODES + BNODES + Q_LITERALS + ["ex:C0", "ex:C1", "?p"]))
        pats.append(f"{s} {p} {o}")
    sep = draw(st.sampled_from([" . ", " .\n", ". "]))
    body = sep.join(pats) + draw(st.sampled_from(["", " .", sep]))
    named = sorted({v.lstrip("?$") for pat in pats for v in pat.split() if v[0] in "?$"})
    head = draw(st.sampled_from(["SELECT *", "SELECT DISTINCT *", "SELECT", "SELECT DISTINCT", "select"]))
    if "*" not in head:
        chosen = draw(st.lists(st.sampled_from(named or ["a"]), min_size=1, max_size=3, unique=True))
        head += " " + " ".join("?" + v for v in chosen)
    where = draw(st.sampled_from(["WHERE ", "where ", ""]))
    return PRE + f"{head} {where}{{ {body} }}"


def _pair(texts, rows):
    """(snapshot answered by pyoxigraph only, the same snapshot with its id table)."""
    groups = [tuple(zip(*rows))] if rows else []
    store = ox.Store()
    store.bulk_extend(ox.parse(encode_columns(texts, groups), format=ox.RdfFormat.N_QUADS,
                               rename_blank_nodes=False, lenient=True))
    table = build(groups, [], texts)
    assert table is not None
    return Snapshot(KEY, store, len(rows), False), Snapshot(KEY, store, len(rows), False, table=TableRef(table))


def _run(snap, text, limits=None):
    return execute(snap, text, form="SELECT", as_of=AsOf.latest(), view="snapshot",
                   limits=limits or Limits(max_results=None))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), queries())
def test_the_table_answers_exactly_as_pyoxigraph(graph, text):
    texts, rows = graph
    plain, fast = _pair(texts, rows)
    want = _run(plain, text)
    got = _run(fast, text)
    assert got.variables == want.variables and got.rows == want.rows, text
    assert [got.serialize(f) for f in ("tsv", "json", "table")] == [want.serialize(f) for f in ("tsv", "json", "table")]
    q = bgp.parse(text, None)
    if q is not None:  # both engines, directly: the same id rows
        table = fast.table.get()
        by_python, by_numpy = bgp.solve(table, q, engine="python"), bgp.solve(table, q, engine="numpy")
        assert by_python == [tuple(r) for r in by_numpy.tolist()]
        assert bgp.decode(table, by_python) == bgp.decode(table, by_numpy)


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_generated_queries_without_typed_constants_do_take_the_table_path(graph):
    texts, rows = graph
    _, fast = _pair(texts, rows)
    text = PRE + "SELECT ?a ?b WHERE { ?a ex:p0 ?b . ?b ?p ?c . _:x a ex:C0 }"
    assert bgp.parse(text, None) is not None
    assert bgp.answer(fast.table.get(), text, None, None, None) is not None


@pytest.mark.parametrize("text", [
    "SELECT ?a WHERE { ?a ex:p0 ?b FILTER(?b != ex:n1) }",
    "SELECT ?a WHERE { ?a ex:p0 ?b OPTIONAL { ?b ex:p1 ?c } }",
    "SELECT ?a WHERE { { ?a ex:p0 ?b } UNION { ?a ex:p1 ?b } }",
    "SELECT ?a WHERE { ?a ex:p0/ex:p1 ?b }",
    "SELECT ?a WHERE { ?a ex:p0 ?b ; ex:p1 ?c }",
    "SELECT ?a WHERE { ?a ex:p0 ?b , ?c }",
    "SELECT ?a WHERE { ?a ex:p0 [ ex:p1 ?c ] }",
    "SELECT ?a WHERE { ?a ex:p0 ?b } LIMIT 1",
    "SELECT ?a WHERE { ?a ex:p0 ?b } ORDER BY ?a",
    "SELECT ?a WHERE { ?a ex:p0 1 }",
    'SELECT ?a WHERE { ?a ex:p0 "1"^^xsd:integer }',
    'SELECT ?a WHERE { ?a ex:p0 "a\\"b" }',
    "SELECT ?a WHERE { ?a <p0> ?b }",
    "BASE <http://example.org/> SELECT ?a WHERE { ?a <p0> ?b }",
    "SELECT ?z WHERE { ?a ex:p0 ?b }",
    "SELECT ?a ?a WHERE { ?a ex:p0 ?b }",
    "SELECT (COUNT(*) AS ?n) WHERE { ?a ex:p0 ?b }",
    "SELECT ?a FROM ex:g WHERE { ?a ex:p0 ?b }",
    "SELECT ?a WHERE { GRAPH ?g { ?a ex:p0 ?b } }",
    "SELECT ?a WHERE { ?a ex:p0 ?b VALUES ?a { ex:n1 } }",
    "SELECT ?a WHERE { ?a ex:p0 ?b } VALUES ?a { ex:n1 }",
    "SELECT ?a WHERE { ?a nope:p ?b }",
    "ASK { ?a ex:p0 ?b FILTER(?a != ex:n1) }",
    "ASK { ?a ex:p0 ?b } LIMIT 1",
    "CONSTRUCT { ?a ex:p0 ?b } WHERE { ?a ex:p0 ?b }",
    "SELECT ?a WHERE { ?a _:p ?b }",
    'SELECT ?a WHERE { ?a "p" ?b }',
])
def test_what_the_module_does_not_fully_understand_is_left_to_pyoxigraph(text):
    assert bgp.parse(PRE + text, None) is None


@contextmanager
def _disk_snapshot(tmp_path: Path, triples: str):
    """A ledger on disk holding ``triples`` (Turtle, the ex: prefix declared), and its latest snapshot."""
    from holokb.kb import KnowledgeBase

    data = tmp_path / "d.ttl"
    data.write_text(f"@prefix ex: <{EX}> .\n" + triples)
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        kb.load([data], at=1_700_000_000_000)
        yield kb, SnapshotCache(2).get(kb.ledger, "snapshot", AsOf.latest())


def _as_ask(text: str) -> str:
    """A generated SELECT (:func:`queries`) as the ASK of the same pattern."""
    head, _, rest = text.partition("{")
    where = " WHERE " if "WHERE" in head.upper() else " "
    return PRE + "ASK" + where + "{" + rest


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), queries())
def test_an_ask_over_the_table_answers_exactly_as_pyoxigraph(graph, select):
    texts, rows = graph
    plain, fast = _pair(texts, rows)
    text = _as_ask(select)
    run = dict(form="ASK", as_of=AsOf.latest(), view="snapshot", limits=Limits(max_results=None))
    want, got = execute(plain, text, **run), execute(fast, text, **run)
    assert got.boolean is want.boolean, text
    assert [got.serialize(f) for f in ("json", "table")] == [want.serialize(f) for f in ("json", "table")]
    if bgp.parse(text, None) is not None:  # the table answered it, both engines alike
        table = fast.table.get()
        assert bgp.holds(table, text, None, None) is want.boolean


def test_an_ask_of_constants_and_of_variables_is_answered_from_the_table_without_a_store(tmp_path):
    with _disk_snapshot(tmp_path, "ex:n0 ex:p0 ex:n1 .\nex:n1 ex:p0 ex:n2 .\n") as (kb, snap):
        run = dict(form="ASK", as_of=AsOf.latest(), view="snapshot", limits=Limits(max_results=None))
        asks = {"ASK { ex:n0 ex:p0 ex:n1 }": True, "ASK { ex:n1 ex:p0 ex:n0 }": False,
                "ASK WHERE { ?a ex:p0 ?b . ?b ex:p0 ?c }": True, "ASK { ?a ex:p0 ?b . ?b ex:p0 ?a }": False,
                "ASK { _:x ex:p0 ex:n2 }": True, "ASK { ex:n0 ex:p0 ex:missing }": False}
        for text, want in asks.items():
            assert execute(snap, PRE + text, **run).boolean is want, text
        assert not list(Path(snap.location).glob("store*"))  # none of them needed pyoxigraph


def test_prefixes_given_by_the_caller_count_unless_the_query_declares_them():
    q = bgp.parse("SELECT ?a WHERE { ?a my:p ?b }", {"my": EX})
    assert q is not None and q.patterns[0][1] == (False, f"<{EX}p>")
    q = bgp.parse(f"PREFIX my: <{EX}x/> SELECT ?a WHERE {{ ?a my:p ?b }}", {"my": EX})
    assert q is not None and q.patterns[0][1] == (False, f"<{EX}x/p>")
    assert bgp.parse("SELECT ?a WHERE { ?a my:p ?b }", None) is None


def test_a_cap_below_the_answer_size_goes_to_pyoxigraph_and_a_large_one_does_not():
    texts = NODES + PREDS
    rows = [(i, len(NODES), j) for i in range(5) for j in range(5)]
    plain, fast = _pair(texts, rows)
    text = PRE + "SELECT ?a ?b WHERE { ?a ex:p0 ?b }"
    table = fast.table.get()
    assert bgp.answer(table, text, None, 3, None) is None
    assert bgp.answer(table, text, None, 25, None) is not None
    small = _run(fast, text, Limits(max_results=3))
    assert small.rows == _run(plain, text, Limits(max_results=3)).rows and small.truncated


def test_a_join_past_the_row_budget_goes_to_pyoxigraph(monkeypatch):
    texts = NODES + PREDS
    rows = [(i, len(NODES), j) for i in range(5) for j in range(5)]
    plain, fast = _pair(texts, rows)
    text = PRE + "SELECT * WHERE { ?a ex:p0 ?b . ?c ex:p0 ?d }"
    monkeypatch.setattr(bgp, "MAX_ROWS", 100)
    for engine in ("python", "numpy"):
        assert bgp.solve(fast.table.get(), bgp.parse(text, None), engine=engine) is None
    assert _run(fast, text).rows == _run(plain, text).rows and len(_run(plain, text).rows) == 625


def test_a_large_plain_python_join_is_handed_to_numpy(monkeypatch):
    import types

    texts = NODES + PREDS
    rows = [(i, len(NODES), j) for i in range(5) for j in range(5)]
    _, fast = _pair(texts, rows)
    table, q = fast.table.get(), bgp.parse(PRE + "SELECT * WHERE { ?a ex:p0 ?b . ?c ex:p0 ?d }", None)
    monkeypatch.setattr(bgp, "sys", types.SimpleNamespace(modules={}))  # as in a process without numpy
    monkeypatch.setattr(bgp, "PYTHON_ROWS", 100)
    assert bgp.solve(table, q, engine="python") is None
    got = bgp.solve(table, q)
    assert len(got) == 625 and [tuple(r) for r in got.tolist()] == bgp._solve_python(table, q, None, 10**6)


def test_the_table_reads_back_from_disk_as_written(tmp_path):
    texts = NODES + PREDS + CLASSES + LITERALS
    rows = [(i % 7, 7 + i % 4, (3 * i) % len(texts)) for i in range(60)]
    table = build([tuple(zip(*rows))], [(0, 7, 1, 2)], texts)
    table.save(tmp_path)
    back = IdTable.load(tmp_path)
    assert back is not None and back.texts == table.texts
    for name in ("p", "s", "o", "o2", "s2", "quads", "rank"):
        assert getattr(back, name) == getattr(table, name), name
    (tmp_path / "p.i32").write_bytes(b"\0\0")  # a torn file: no table, pyoxigraph answers
    assert IdTable.load(tmp_path) is None


def test_a_disk_snapshot_fills_its_store_only_when_a_query_needs_it(tmp_path):
    with _disk_snapshot(tmp_path, "".join(f"ex:n{i} ex:p0 ex:n{(i + 1) % 4} .\n" for i in range(4))) as (kb, snap):
        folder = Path(snap.location)
        assert snap.table is not None and (folder / "ids" / "table.json").exists()
        assert not list(folder.glob("store*"))
        select = PRE + "SELECT ?a ?b WHERE { ?a ex:p0 ?b . ?b ex:p0 ?a }"
        assert _run(snap, select).rows == ()
        assert not list(folder.glob("store*"))  # answered from the table
        # a FILTER is pyoxigraph's: the store is filled now
        ask = execute(snap, PRE + "ASK { ?a ex:p0 ex:n0 FILTER(?a != ex:n9) }", form="ASK", as_of=AsOf.latest(), view="snapshot",
                      limits=Limits(max_results=None))
        assert ask.boolean is True and (folder / (folder / "store.done").read_text()).is_dir()
        again = SnapshotCache(2).get(kb.ledger, "snapshot", AsOf.latest())  # another process, read from disk
        assert not again.built and again.table is not None
        chain = PRE + "SELECT ?a ?c WHERE { ?a ex:p0 ?b . ?b ex:p0 ?c }"
        assert _run(again, chain).rows == _run(replace(again, table=None), chain).rows  # the published store
        assert len(_run(again, chain).rows) == 4 and len(list(folder.glob("store-*"))) == 1


def test_a_store_fill_that_never_finished_blocks_nobody(tmp_path):
    with _disk_snapshot(tmp_path, "ex:n0 ex:p0 ex:n1 .\n") as (kb, snap):
        folder = Path(snap.location)
        (folder / "store-1-1").mkdir()  # a process that died while filling: no store.done
        ask = PRE + "ASK { ex:n0 ex:p0 ex:n1 FILTER(true) }"  # a FILTER: pyoxigraph fills a store
        for _ in range(2):  # the first fills and publishes its own; the second opens that one
            again = SnapshotCache(2).get(kb.ledger, "snapshot", AsOf.latest())
            assert execute(again, ask, form="ASK", as_of=AsOf.latest(), view="snapshot",
                           limits=Limits(max_results=None)).boolean is True
        published = (folder / "store.done").read_text()
        assert published != "store-1-1" and len(list(folder.glob("store-*"))) == 2


@pytest.mark.slow
def test_lubm_from_the_stored_closure_has_the_reference_counts_and_pyoxigraphs_rows(corpora, tmp_path):
    root = corpora / "lubm"
    if not (root / "lubm_1_0_seed0.nt.gz").exists():
        pytest.skip("LUBM corpus not found")
    from holokb.kb import KnowledgeBase
    from holokb.reasoning import load_program

    lines = (root / "expected" / "counts.tsv").read_text().splitlines()[1:]
    expected = {name: int(n) for name, n in (ln.split("\t") for ln in lines if ln.strip())}
    program = load_program([Path(__file__).resolve().parents[2] / "rules" / "owl2rl.hkr"])
    with KnowledgeBase.open(tmp_path / "lubm.db") as kb:
        kb.load([root / "lubm_1_0_seed0.nt.gz", root / "univ-bench.owl"], at=1_700_000_000_000)
        kb.derive_and_store(program, as_of=AsOf.latest(), computed_at=1_700_000_000_001)
        snap = SnapshotCache(1).get(kb.ledger, "snapshot", AsOf.latest(), program)
        assert snap.table is not None and snap.table.get() is not None
        for name, want in expected.items():
            text = (root / "queries" / f"{name}.rq").read_text()
            assert bgp.parse(text, None) is not None, name
            got = _run(snap, text)
            assert len(got.rows) == want, name
            assert got.rows == _run(replace(snap, table=None), text).rows, name
