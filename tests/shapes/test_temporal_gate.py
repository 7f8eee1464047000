"""The gate holds per valid-time segment: a property may have one value at a time (issue 8, item 5)."""
from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from rdflib import RDF, Graph, Literal, Namespace

from holokb.core import Interval, ShapeViolationError, parse_instant
from holokb.kb import KnowledgeBase
from holokb.resources import data_dir
from holokb.shapes import EmptyContext, InMemoryContext, ShapesGate
from holokb.shapes.timed import InMemoryTimedContext

EX = Namespace("http://example.org/")
XSD = Namespace("http://www.w3.org/2001/XMLSchema#")
SHAPES = """@prefix ex: <http://example.org/> . @prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:PolicyShape a sh:NodeShape ; sh:targetClass ex:Policy ;
  sh:property [ sh:path ex:timeout ; sh:maxCount 1 ; sh:datatype xsd:integer ] ;
  sh:property [ sh:path ex:owner ; sh:minCount 1 ; sh:class ex:Team ] .
ex:FixedShape a sh:NodeShape ; sh:targetNode ex:q ; sh:property [ sh:path ex:timeout ; sh:minCount 1 ] .
"""


@pytest.fixture(scope="module")
def gate() -> ShapesGate:
    return ShapesGate.from_graph(Graph().parse(data=SHAPES, format="turtle"))


def policy(*triples) -> Graph:
    g = Graph()
    g.add((EX.p, RDF.type, EX.Policy))
    g.add((EX.p, EX.owner, EX.t))
    g.add((EX.t, RDF.type, EX.Team))
    for t in triples:
        g.add(t)
    return g


def test_two_values_one_after_the_other_conform(gate):
    a, b = (EX.p, EX.timeout, Literal(30)), (EX.p, EX.timeout, Literal(15))
    batch = policy(a, b)
    assert not gate.check(batch, EmptyContext()).conforms  # untimed: two values at once
    report = gate.check(batch, EmptyContext(), valid={a: Interval(0, 100), b: Interval(100, None)})
    assert report.conforms, report.violations


def test_overlapping_values_violate_over_the_overlap(gate):
    a, b = (EX.p, EX.timeout, Literal(30)), (EX.p, EX.timeout, Literal(15))
    report = gate.check(policy(a, b), EmptyContext(), valid={a: Interval(0, 120), b: Interval(100, None)})
    assert not report.conforms
    [v] = report.violations
    assert v.component == "sh:MaxCountConstraintComponent" and v.valid == Interval(100, 120)
    assert "during valid time" in v.diagnostic().message


def test_a_stored_value_counts_only_where_it_holds(gate):
    stored = [(EX.p, RDF.type, EX.Policy, Interval.always()), (EX.p, EX.owner, EX.t, Interval.always()),
              (EX.t, RDF.type, EX.Team, Interval.always()), (EX.p, EX.timeout, Literal(30), Interval(0, 100))]
    ctx = InMemoryTimedContext(stored)
    new = (EX.p, EX.timeout, Literal(15))
    later = Graph()
    later.add(new)
    assert gate.check(later, ctx, valid={new: Interval(100, None)}).conforms
    r = gate.check(later, ctx, valid={new: Interval(50, None)})
    assert [v.valid for v in r.violations] == [Interval(50, 100)]
    # an untimed context only knows values as of now: the same batch is accepted there
    assert gate.check(later, InMemoryContext([t[:3] for t in stored if t[3].contains(200)]),
                      valid={new: Interval(50, None)}).conforms


def test_min_count_and_class_hold_at_every_instant(gate):
    g = Graph()
    g.add((EX.p, RDF.type, EX.Policy))
    owner, team = (EX.p, EX.owner, EX.t), (EX.t, RDF.type, EX.Team)
    g.add(owner)
    g.add(team)
    r = gate.check(g, EmptyContext(), valid={owner: Interval(10, None)})
    assert [(v.component, v.valid) for v in r.violations] == [
        ("sh:MinCountConstraintComponent", Interval(Interval.always().start, 10))]
    r = gate.check(g, EmptyContext(), valid={team: Interval(10, 20)})
    assert sorted(str(v.valid) for v in r.violations) == sorted(
        [str(Interval(Interval.always().start, 10)), str(Interval(20, None))])
    # a type that holds only part of the time targets the node only then
    typed = (EX.p, RDF.type, EX.Policy)
    r = gate.check(g, EmptyContext(), valid={typed: Interval(10, 20), owner: Interval(10, 20)})
    assert r.conforms, r.violations


def test_restored_session_timeout_cardinality(tmp_path):
    text = (data_dir("shapes") / "domain.ttl").read_text()
    assert "sh:path ex:sessionTimeout ;\n        sh:maxCount 1" in text
    with KnowledgeBase.open(tmp_path / "kb.db", shapes=[data_dir("shapes")]) as kb:
        kb.load([data_dir("kb")], at=parse_instant("2026-01-01"))  # v1 until 03-01, v2 after: conforms
        clash = tmp_path / "clash.trig"
        clash.write_text(
            "@prefix ex: <http://example.org/> .\n@prefix hk: <https://w3id.org/holokb/> .\n"
            "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
            'ex:g { ex:sessionPolicy ex:sessionTimeout "PT5M"^^xsd:duration . }\n'
            'ex:g hk:document "memo.txt" ; hk:validFrom "2026-02-01T00:00:00Z"^^xsd:dateTime ;\n'
            '  hk:validTo "2026-02-15T00:00:00Z"^^xsd:dateTime .\n')
        before = kb.stats()
        with pytest.raises(ShapeViolationError) as e:
            kb.load([clash], at=parse_instant("2026-01-02"))
        assert "during valid time [2026-02-01T00:00:00Z, 2026-02-15T00:00:00Z)" in str(e.value.diagnostics[0])
        assert kb.stats() == before


# -- the gate per segment agrees with full validation at every instant ----------------------------
TIMES = (0, 10, 20, 30)
intervals = st.sampled_from([Interval(a, b) for a in (Interval.always().start,) + TIMES[:-1]
                             for b in [t for t in TIMES if t > a] + [None]])
triples = st.sampled_from([(EX.p, EX.timeout, Literal(1)), (EX.p, EX.timeout, Literal(2)),
                           (EX.p, EX.timeout, Literal("x")), (EX.p, RDF.type, EX.Policy),
                           (EX.p, EX.owner, EX.t), (EX.p, EX.owner, EX.u), (EX.t, RDF.type, EX.Team),
                           (EX.q, RDF.type, EX.Policy), (EX.q, EX.owner, EX.t), (EX.q, EX.timeout, Literal(3))])


def _snapshot_violations(gate, rows, t):
    g = Graph()
    for s, p, o, iv in rows:
        if iv.contains(t):
            g.add((s, p, o))
    return {(v.focus_node, v.path, v.component) for v in gate.validate_full(g).violations}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(triples, intervals), max_size=6), st.lists(st.tuples(triples, intervals), max_size=4))
def test_gate_per_segment_equals_validation_at_every_instant(gate, new, stored):
    rows_new = [(s, p, o, iv) for (s, p, o), iv in new]
    rows_old = [(s, p, o, iv) for (s, p, o), iv in stored]
    batch, valid = Graph(), {}
    for s, p, o, iv in rows_new:
        batch.add((s, p, o))
        valid.setdefault((s, p, o), []).append(iv)
    report = gate.check(batch, InMemoryTimedContext(rows_old), valid=valid)
    mentioned = {n for s, _p, o, _ in rows_new for n in (s, o)}
    for t in (Interval.always().start,) + TIMES + (40,):
        expected = {v for v in _snapshot_violations(gate, rows_new + rows_old, t) if v[0] in mentioned}
        got = {(v.focus_node, v.path, v.component) for v in report.violations
               if (v.valid or Interval.always()).contains(t)}
        assert got == expected, (t, got, expected)
