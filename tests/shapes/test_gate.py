"""The SHACL gate on batches: rejection details, context, untargeted batches, determinism, budgets."""
from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import RDF, Graph, Literal, Namespace, URIRef

from holokb.core.errors import DataSyntaxError
from holokb.core.limits import Limits
from holokb.resources import data_dir
from holokb.shapes import EmptyContext, InMemoryContext, MalformedShapesError, ShapesGate
from holokb.shapes.engine import PyshaclEngine

EX = Namespace("http://example.org/")
XSD = Namespace("http://www.w3.org/2001/XMLSchema#")
PREFIXES = "@prefix ex: <http://example.org/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"


def load_gate() -> ShapesGate:
    return ShapesGate.load([data_dir("shapes") / "domain.ttl"])


@pytest.fixture(scope="module")
def gate() -> ShapesGate:
    return load_gate()


def batch_with_sources(text: str, file: str = "batch.ttl"):
    """Parse one-statement-per-line Turtle; map each triple to its (file, line)."""
    graph = Graph()
    sources = {}
    lines = text.strip("\n").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        one = Graph().parse(data=PREFIXES + line, format="turtle")
        for triple in one:
            graph.add(triple)
            sources[triple] = (file, number)
    return graph, sources


def test_broken_batch_is_rejected_with_focus_path_component_and_line(gate):
    batch, sources = batch_with_sources("""
ex:bob a ex:Person .
ex:bob ex:name "Bob" .
ex:bob ex:name "Robert" .
ex:bob ex:locatedIn ex:nowhere .
""")
    report = gate.check(batch, EmptyContext(), sources=sources)
    assert not report.conforms and report.has_errors
    by_component = {v.component: v for v in report.violations}
    assert set(by_component) == {"sh:MaxCountConstraintComponent", "sh:ClassConstraintComponent"}
    cls = by_component["sh:ClassConstraintComponent"]
    assert (cls.focus_node, cls.path, cls.value) == (EX.bob, EX.locatedIn, EX.nowhere)
    assert cls.source == ("batch.ttl", 4)
    assert by_component["sh:MaxCountConstraintComponent"].path == EX.name
    diags = {d.code: d for d in report.diagnostics()}
    assert set(diags) == {"HK-SHACL-maxCount", "HK-SHACL-class"}
    assert diags["HK-SHACL-class"].location.line == 4
    assert "ex:locatedIn points at an ex:Place" in diags["HK-SHACL-class"].render()
    err = report.error()
    assert err.report is report and [d.code for d in err.diagnostics] == [d.code for d in report.diagnostics()]


def test_min_count_violation_points_at_the_subjects_first_statement(gate):
    batch, sources = batch_with_sources("""
ex:x ex:other "unrelated" .
ex:carol a ex:Person .
""")
    [v] = gate.check(batch, EmptyContext(), sources=sources).violations
    assert (v.focus_node, v.path, v.component, v.value) == (EX.carol, EX.name, "sh:MinCountConstraintComponent", None)
    assert v.source == ("batch.ttl", 2)


def test_referenced_type_only_in_kb_passes_only_with_context(gate):
    batch, _ = batch_with_sources("""
ex:bob a ex:Person .
ex:bob ex:name "Bob" .
ex:bob ex:locatedIn ex:paris .
""")
    kb = InMemoryContext([(EX.paris, RDF.type, EX.City)])  # ex:City ⊑ ex:Place, from the shapes file
    assert gate.check(batch, kb).conforms
    [v] = gate.check(batch, EmptyContext()).violations
    assert (v.component, v.value) == ("sh:ClassConstraintComponent", EX.paris)
    wrong = InMemoryContext([(EX.paris, RDF.type, EX.Animal)])
    assert [v.value for v in gate.check(batch, wrong).violations] == [EX.paris]


def test_focus_node_typed_only_in_kb_is_targeted_and_sees_existing_values(gate):
    kb = InMemoryContext([
        (EX.alice, RDF.type, EX.Person), (EX.alice, EX.name, Literal("Alice")), (EX.paris, RDF.type, EX.City),
    ])
    fine, _ = batch_with_sources("ex:alice ex:locatedIn ex:paris .")
    report = gate.check(fine, kb)
    assert report.conforms and report.shapes_run == ("ex:PersonShape",)
    second_name, _ = batch_with_sources('ex:alice ex:name "Alicia" .')
    [v] = gate.check(second_name, kb).violations
    assert (v.focus_node, v.component) == (EX.alice, "sh:MaxCountConstraintComponent")
    # without the KB, alice is nobody's target: nothing runs
    assert gate.check(second_name, EmptyContext()).shapes_run == ()


def test_existing_value_counts_against_max_count(gate):
    kb = InMemoryContext([
        (EX.p1, RDF.type, EX.Policy), (EX.p1, EX.sessionTimeout, Literal("PT30M", datatype=XSD.duration)),
    ])
    batch, _ = batch_with_sources('ex:p1 ex:sessionTimeout "PT1H"^^xsd:duration .')
    [v] = gate.check(batch, kb).violations
    assert (v.focus_node, v.path, v.component) == (EX.p1, EX.sessionTimeout, "sh:MaxCountConstraintComponent")
    bad_type, _ = batch_with_sources('ex:p2 a ex:Policy .\nex:p2 ex:sessionTimeout "30 minutes" .')
    [v] = gate.check(bad_type, kb).violations
    assert v.component == "sh:DatatypeConstraintComponent"


def test_subclass_instance_is_targeted_through_hierarchy(gate):
    kb = InMemoryContext([(EX.achilles, RDF.type, EX.IDE), (EX.numpy, RDF.type, EX.Library)])
    ok, _ = batch_with_sources("ex:achilles ex:uses ex:numpy .")
    assert gate.check(ok, kb).conforms
    bad, _ = batch_with_sources("ex:achilles ex:uses ex:bob .")
    [v] = gate.check(bad, kb).violations
    assert (v.focus_node, v.component, v.value) == (EX.achilles, "sh:OrConstraintComponent", EX.bob)


def test_untargeted_batch_never_reaches_pyshacl(gate, monkeypatch):
    def boom(*_a, **_k):
        raise AssertionError("pySHACL must not run for an untargeted batch")

    monkeypatch.setattr(PyshaclEngine, "validate", boom)
    batch = Graph()
    for i in range(1000):
        batch.add((EX[f"n{i}"], EX.mentions, EX[f"m{i}"]))
    kb = InMemoryContext([(EX.n1, RDF.type, EX.Document)])
    report = gate.check(batch, kb)
    assert report.conforms and report.shapes_run == () and report.focus_count == 0
    assert kb.calls == 1  # one batched types_of lookup, nothing else
    targeted = Graph()
    targeted.add((EX.bob, RDF.type, EX.Person))
    with pytest.raises(AssertionError, match="must not run"):
        gate.check(targeted, kb)


def test_kb_nodes_the_batch_does_not_mention_are_not_validated(gate):
    kb_triples = [(EX.carol, RDF.type, EX.Person)]  # carol has no name: invalid, but already in the KB
    batch, _ = batch_with_sources('ex:bob a ex:Person .\nex:bob ex:name "Bob" .')
    assert gate.check(batch, InMemoryContext(kb_triples)).conforms
    snapshot = Graph()
    for t in kb_triples:
        snapshot.add(t)
    for t in batch:
        snapshot.add(t)
    full = gate.validate_full(snapshot)
    assert [(v.focus_node, v.component) for v in full.violations] == [(EX.carol, "sh:MinCountConstraintComponent")]


def test_report_order_is_deterministic_across_parses_and_insertion_order():
    text = """
ex:zed a ex:Person .
ex:amy a ex:Person .
ex:amy ex:locatedIn ex:mars .
ex:amy ex:locatedIn ex:venus .
ex:p a ex:Policy .
ex:p ex:sessionTimeout "x" .
ex:p ex:sessionTimeout "y" .
"""
    renders = []
    for lines in (text, "\n".join(reversed(text.strip().splitlines()))):
        gate = load_gate()  # fresh blank-node ids each load
        batch, _ = batch_with_sources(lines)
        report = gate.check(batch, EmptyContext())
        renders.append([d.render() for d in report.diagnostics()])
        keys = [v.sort_key() for v in report.violations]
        assert keys == sorted(keys) and len(keys) == 7
    assert renders[0] == renders[1]
    assert renders[0][0].startswith("error[HK-SHACL-class]: <http://example.org/amy>")


def test_warning_severity_does_not_count_as_error(tmp_path):
    shapes = tmp_path / "warn.ttl"
    shapes.write_text(PREFIXES + """@prefix sh: <http://www.w3.org/ns/shacl#> .
ex:NoteShape a sh:NodeShape ; sh:targetClass ex:Note ;
  sh:property [ sh:path ex:text ; sh:minCount 1 ; sh:severity sh:Warning ] .
""")
    gate = ShapesGate.load([shapes])
    batch, _ = batch_with_sources("ex:n a ex:Note .")
    report = gate.check(batch, EmptyContext())
    assert not report.conforms and not report.has_errors
    assert report.diagnostics()[0].severity == "warning"


def test_target_subjects_of_and_inverse_path_use_the_context(tmp_path):
    shapes = tmp_path / "s.ttl"
    shapes.write_text(PREFIXES + """@prefix sh: <http://www.w3.org/ns/shacl#> .
ex:UserShape a sh:NodeShape ; sh:targetSubjectsOf ex:uses ;
  sh:property [ sh:path ex:label ; sh:maxCount 1 ] .
ex:OwnedShape a sh:NodeShape ; sh:targetClass ex:Device ;
  sh:property [ sh:path [ sh:inversePath ex:owns ] ; sh:maxCount 1 ] .
""")
    gate = ShapesGate.load([shapes])
    kb = InMemoryContext([
        (EX.u, EX.uses, EX.t), (EX.u, EX.label, Literal("one")),
        (EX.d, RDF.type, EX.Device), (EX.ann, EX.owns, EX.d),
    ])
    label, _ = batch_with_sources('ex:u ex:label "two" .')
    [v] = gate.check(label, kb).violations
    assert (v.focus_node, v.component) == (EX.u, "sh:MaxCountConstraintComponent")
    owner, _ = batch_with_sources("ex:ben ex:owns ex:d .")
    [v] = gate.check(owner, kb).violations
    assert (v.focus_node, v.path, v.component) == (EX.d, "^<http://example.org/owns>", "sh:MaxCountConstraintComponent")
    assert gate.check(owner, EmptyContext()).conforms  # d's type and first owner live in the KB


def test_transitive_path_walk_respects_edge_budget(tmp_path):
    shapes = tmp_path / "s.ttl"
    shapes.write_text(PREFIXES + """@prefix sh: <http://www.w3.org/ns/shacl#> .
ex:ChainShape a sh:NodeShape ; sh:targetClass ex:Link ;
  sh:property [ sh:path [ sh:oneOrMorePath ex:next ] ; sh:nodeKind sh:IRI ] .
""")
    gate = ShapesGate.load([shapes])
    kb = InMemoryContext([(EX[f"c{i}"], EX.next, EX[f"c{i + 1}"]) for i in range(200)])
    batch, _ = batch_with_sources("ex:c0 a ex:Link .")
    full = gate.check(batch, kb)
    assert not full.truncated and full.context_triples == 200
    cut = gate.check(batch, kb, limits=Limits(max_edges=20))
    assert cut.truncated and cut.limit_hit == "max_edges" and cut.context_triples < 30
    assert full.conforms and not cut.conforms  # what was not fully checked is not admitted


def test_sibling_blank_shapes_with_the_same_path_get_distinct_stable_labels(tmp_path):
    shapes = tmp_path / "twins.ttl"
    shapes.write_text(PREFIXES + """@prefix sh: <http://www.w3.org/ns/shacl#> .
ex:S a sh:NodeShape ; sh:targetClass ex:C ;
  sh:property [ sh:path ex:p ; sh:minCount 1 ] , [ sh:path ex:p ; sh:datatype xsd:integer ] .
""")
    batch, _ = batch_with_sources('ex:x a ex:C .\nex:y a ex:C .\nex:y ex:p "no" .')
    runs = [[(v.focus_node, v.component, v.shape) for v in ShapesGate.load([shapes]).check(batch, EmptyContext()).violations]
            for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0]) == 2
    labels = {shape for *_, shape in runs[0]}
    assert len(labels) == 2 and all(label.startswith("ex:S/property[ex:p]~") for label in labels)


def test_malformed_shapes_cite_the_spec_and_the_line(tmp_path):
    shapes = tmp_path / "bad.ttl"
    shapes.write_text(PREFIXES + """@prefix sh: <http://www.w3.org/ns/shacl#> .
ex:A a sh:NodeShape ; sh:targetClass ex:C ;
  sh:property [ sh:path ex:p ; sh:minCount "one" ] .
ex:B a sh:NodeShape ; sh:targetClass "C" .
""")
    with pytest.raises(MalformedShapesError) as err:
        ShapesGate.load([shapes])
    diags = err.value.diagnostics
    assert len(diags) == 2  # collected, not stopped at the first
    by_anchor = {d.notes[0].rsplit("#", 1)[-1]: d for d in diags}
    assert set(by_anchor) == {"MinCountConstraintComponent", "targetClass"}
    assert by_anchor["MinCountConstraintComponent"].location.line == 4  # the blank node's parent ex:A
    assert by_anchor["targetClass"].location.line == 6
    assert "https://www.w3.org/TR/shacl/#targetClass" in by_anchor["targetClass"].render()


def test_bad_property_path_is_rejected(tmp_path):
    shapes = tmp_path / "path.ttl"
    shapes.write_text(PREFIXES + """@prefix sh: <http://www.w3.org/ns/shacl#> .
ex:A a sh:NodeShape ; sh:targetClass ex:C ; sh:property ex:PS .
ex:PS sh:path [ sh:inversePath ex:p ; sh:zeroOrMorePath ex:q ] .
""")
    with pytest.raises(MalformedShapesError) as err:
        ShapesGate.load([shapes])
    [d] = err.value.diagnostics
    assert d.notes == ("W3C SHACL: https://www.w3.org/TR/shacl/#property-paths",) and d.location.line == 5


def test_turtle_syntax_error_has_file_line_and_column(tmp_path):
    shapes = tmp_path / "broken.ttl"
    shapes.write_text('@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:a ex:b "open .\n')
    with pytest.raises(DataSyntaxError) as err:
        ShapesGate.load([shapes])
    assert err.value.lineno == 3 and err.value.filename == str(shapes)


def test_domain_shapes_accept_a_consistent_snapshot(gate):
    snapshot = Graph().parse(data=PREFIXES + """
ex:AchillesIDE a ex:IDE ; ex:uses ex:numpy , ex:Linter .
ex:numpy a ex:Library .  ex:Linter a ex:Tool .
ex:alice a ex:Person ; ex:name "Alice" ; ex:locatedIn ex:Paris .  ex:Paris a ex:City .
ex:p a ex:Policy ; ex:sessionTimeout "PT30M"^^xsd:duration .
""", format="turtle")
    assert gate.validate_full(snapshot).conforms
    snapshot.add((EX.Linter, RDF.type, EX.Gadget))
    snapshot.remove((EX.Linter, RDF.type, EX.Tool))
    [v] = gate.validate_full(snapshot).violations
    assert (v.focus_node, v.value, v.component) == (EX.AchillesIDE, EX.Linter, "sh:OrConstraintComponent")


def test_example_kb_passes_domain_shapes_when_present(gate):
    kb = Path(data_dir("kb"))
    files = sorted(kb.glob("*.ttl")) + sorted(kb.glob("*.trig"))
    if not files:
        pytest.skip("no example KB files in kb/ yet")
    from rdflib import Dataset

    hk = Namespace("https://w3id.org/holokb/")
    ds = Dataset()
    for f in files:
        ds.parse(f, format="trig" if f.suffix == ".trig" else "turtle")
    # one valid-time snapshot: the latest validFrom; graphs whose validity has ended are left out
    # (several values over time is the ledger's business, not SHACL's)
    starts = [o.toPython() for o in ds.objects(None, hk.validFrom)]
    at = max(starts) if starts else None
    plain = Graph()
    for s, p, o, g in ds.quads((None, None, None, None)):
        ends = [e.toPython() for e in ds.objects(g, hk.validTo)] if g is not None else []
        begins = [b.toPython() for b in ds.objects(g, hk.validFrom)] if g is not None else []
        if at is not None and (any(e <= at for e in ends) or any(b > at for b in begins)):
            continue
        if str(p).startswith("http://example.org/") or p == RDF.type:
            plain.add((s, p, o))
    report = gate.validate_full(plain)
    assert report.conforms, [d.render() for d in report.diagnostics()]


def test_batch_view_reads_the_same_from_indexes_and_from_iteration():
    from rdflib import Dataset

    from holokb.shapes.batchview import _memory_indexes, view

    own = Graph().parse(data=PREFIXES + """
ex:a a ex:Person , ex:Agent ; ex:name "A" ; ex:knows ex:b .
ex:b ex:knows ex:a ; ex:age 3 .
""", format="turtle")
    ds = Dataset()
    shared = ds.graph(URIRef("urn:g1"))
    for t in own:
        shared.add(t)
    ds.graph(URIRef("urn:g2")).add((EX.zz, EX.other, EX.yy))  # makes the store hold more than the batch
    assert _memory_indexes(own) is not None and _memory_indexes(shared) is None
    for literals in (False, True):
        fast, slow = view(own, literals=literals, predicates=True), view(shared, literals=literals, predicates=True)
        assert set(fast.nodes) == set(slow.nodes)
        assert (fast.types, fast.subject_predicates, fast.object_predicates) == \
               (slow.types, slow.subject_predicates, slow.object_predicates)
    assert Literal("A") in view(own, literals=True, predicates=False).nodes
    assert Literal("A") not in view(own, literals=False, predicates=False).nodes
    assert view(own, literals=False, predicates=False).types[EX.a] == frozenset({EX.Person, EX.Agent})
