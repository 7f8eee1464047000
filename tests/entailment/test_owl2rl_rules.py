"""rules/owl2rl.hkr on small ontologies: each case names the OWL 2 RL rule it exercises.

Each ontology is Turtle; the closure is read back as triples; absent triples are checked too, so a
rule that over-derives fails as well as one that under-derives.
"""
from __future__ import annotations

import pytest

from holokb.core import IRI, Literal
from holokb.engine import Model, closure
from holokb.rdf import parse_records
from holokb.reasoning import load_program
from triple_view import TRIPLE, rule_file, triples_database

PREFIXES = """@prefix : <http://e/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""
NS = {"": "http://e/", "owl": "http://www.w3.org/2002/07/owl#",
      "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "rdfs": "http://www.w3.org/2000/01/rdf-schema#"}


@pytest.fixture(scope="module")
def owl2rl():
    return load_program([rule_file("owl2rl.hkr")])


def close(program, turtle: str) -> Model:
    recs = parse_records(PREFIXES + turtle, "TURTLE", at=0)
    return closure(program, triples_database([(r.fact.subject, r.fact.predicate, r.fact.object) for r in recs], program))


def iri(name: str) -> IRI:
    prefix, local = name.split(":", 1)
    return IRI(NS[prefix] + local)


def has(m: Model, s: str, p: str, o: str) -> bool:
    return m.contains(TRIPLE, (iri(s), iri(p), iri(o)))


def test_inverse_of_both_directions(owl2rl) -> None:
    m = close(owl2rl, ":hasChild owl:inverseOf :hasParent . :ann :hasChild :bob . :cid :hasParent :dan .")
    assert has(m, ":bob", ":hasParent", ":ann")  # prp-inv1
    assert has(m, ":dan", ":hasChild", ":cid")  # prp-inv2
    assert not has(m, ":ann", ":hasParent", ":bob")


def test_transitive_property_chain_of_four(owl2rl) -> None:
    m = close(owl2rl, ":partOf a owl:TransitiveProperty . :a :partOf :b . :b :partOf :c . :c :partOf :d .")
    assert has(m, ":a", ":partOf", ":d") and has(m, ":b", ":partOf", ":d")
    assert not has(m, ":d", ":partOf", ":a")


def test_some_values_from_realises_the_restriction(owl2rl) -> None:
    m = close(owl2rl, """
        :Parent owl:equivalentClass [ a owl:Restriction ; owl:onProperty :hasChild ; owl:someValuesFrom :Person ] .
        :ann :hasChild :bob . :bob a :Person . :eve :hasChild :rock .""")
    assert has(m, ":ann", "rdf:type", ":Parent")  # cls-svf1 then cax-eqc
    assert not has(m, ":eve", "rdf:type", ":Parent")  # :rock is no :Person


def test_intersection_needs_every_member(owl2rl) -> None:
    m = close(owl2rl, """
        :Chair owl:intersectionOf ( :Person :Head :Tenured ) .
        :x a :Person , :Head , :Tenured . :y a :Person , :Head . :z a :Chair .""")
    assert has(m, ":x", "rdf:type", ":Chair")  # cls-int1 (list walk)
    assert not has(m, ":y", "rdf:type", ":Chair")
    assert has(m, ":z", "rdf:type", ":Tenured") and has(m, ":z", "rdf:type", ":Person")  # cls-int2
    assert has(m, ":Chair", "rdfs:subClassOf", ":Head")  # scm-int


def test_union_and_all_values_from(owl2rl) -> None:
    m = close(owl2rl, """
        :Pet owl:unionOf ( :Cat :Dog ) . :tom a :Cat .
        :Vegan owl:equivalentClass [ owl:onProperty :eats ; owl:allValuesFrom :Plant ] .
        :v a :Vegan ; :eats :kale .""")
    assert has(m, ":tom", "rdf:type", ":Pet")  # cls-uni
    assert has(m, ":kale", "rdf:type", ":Plant")  # cax-eqc + cls-avf
    assert not has(m, ":tom", "rdf:type", ":Dog")


def test_has_value_both_ways(owl2rl) -> None:
    m = close(owl2rl, """
        :RedThing owl:equivalentClass [ owl:onProperty :colour ; owl:hasValue :red ] .
        :apple :colour :red . :car a :RedThing .""")
    assert has(m, ":apple", "rdf:type", ":RedThing")  # cls-hv2
    assert has(m, ":car", ":colour", ":red")  # cls-hv1


def test_same_as_replaces_subjects_objects_and_is_symmetric_transitive(owl2rl) -> None:
    m = close(owl2rl, ":a owl:sameAs :b . :b owl:sameAs :c . :a :likes :x . :y :knows :c .")
    assert has(m, ":c", "owl:sameAs", ":a")  # eq-sym + eq-trans
    assert has(m, ":c", ":likes", ":x")  # eq-rep-s
    assert has(m, ":y", ":knows", ":a")  # eq-rep-o
    assert not has(m, ":x", "owl:sameAs", ":a")


def test_functional_property_makes_values_the_same(owl2rl) -> None:
    m = close(owl2rl, ":mother a owl:FunctionalProperty . :k :mother :m1 . :k :mother :m2 .")
    assert has(m, ":m1", "owl:sameAs", ":m2")  # prp-fp
    assert not m.violations


def test_property_chain_of_three(owl2rl) -> None:
    m = close(owl2rl, """
        :greatUncle owl:propertyChainAxiom ( :parent :parent :brother ) .
        :a :parent :b . :b :parent :c . :c :brother :d . :c :sister :e .""")
    assert has(m, ":a", ":greatUncle", ":d")  # prp-spo2
    assert not has(m, ":b", ":greatUncle", ":d") and not has(m, ":a", ":greatUncle", ":e")


def test_has_key_identifies(owl2rl) -> None:
    m = close(owl2rl, """
        :Person owl:hasKey ( :ssn :country ) .
        :p1 a :Person ; :ssn :n1 ; :country :fr . :p2 a :Person ; :ssn :n1 ; :country :fr .
        :p3 a :Person ; :ssn :n1 ; :country :de .""")
    assert has(m, ":p1", "owl:sameAs", ":p2")  # prp-key
    assert not has(m, ":p1", "owl:sameAs", ":p3")


def test_max_cardinality_one_with_typed_literal(owl2rl) -> None:
    m = close(owl2rl, """
        :OneBoss owl:equivalentClass [ owl:onProperty :boss ; owl:maxCardinality "1"^^xsd:nonNegativeInteger ] .
        :w a :OneBoss ; :boss :b1 , :b2 .""")
    assert has(m, ":b1", "owl:sameAs", ":b2")  # cls-maxc2


def test_schema_rules_domain_range_subproperty(owl2rl) -> None:
    m = close(owl2rl, """
        :headOf rdfs:subPropertyOf :worksFor . :worksFor rdfs:domain :Employee ; rdfs:range :Org .
        :Employee rdfs:subClassOf :Person . :ann :headOf :dept .""")
    assert has(m, ":ann", ":worksFor", ":dept")  # prp-spo1
    assert has(m, ":ann", "rdf:type", ":Person")  # prp-dom + cax-sco
    assert has(m, ":dept", "rdf:type", ":Org")  # prp-rng
    assert has(m, ":headOf", "rdfs:domain", ":Employee")  # scm-dom2


@pytest.mark.parametrize("turtle, constraint", [
    (":Cat owl:disjointWith :Dog . :x a :Cat , :Dog .", "cax-dw"),
    (":a owl:sameAs :b . :a owl:differentFrom :b .", "eq-diff1"),
    (":p a owl:IrreflexiveProperty . :x :p :x .", "prp-irp"),
    (":p a owl:AsymmetricProperty . :x :p :y . :y :p :x .", "prp-asyp"),
    (":x a owl:Nothing .", "cls-nothing2"),
    ("[] a owl:AllDisjointClasses ; owl:members ( :A :B :C ) . :x a :A , :C .", "cax-adc"),
    ("[] a owl:AllDifferent ; owl:members ( :a :b ) . :a owl:sameAs :b .", "eq-diff2"),
    (":p owl:propertyDisjointWith :q . :x :p :y ; :q :y .", "prp-pdw"),
    ("[] owl:sourceIndividual :a ; owl:assertionProperty :p ; owl:targetIndividual :b . :a :p :b .", "prp-npa1"),
])
def test_inconsistency_is_a_violation(owl2rl, turtle: str, constraint: str) -> None:
    m = close(owl2rl, turtle)
    assert {v.constraint for v in m.violations} == {constraint}


def test_consistent_ontology_has_no_violation(owl2rl) -> None:
    m = close(owl2rl, ":Cat owl:disjointWith :Dog . :x a :Cat . :y a :Dog . [] a owl:AllDisjointClasses ; owl:members ( :A :B ) . :z a :A .")
    assert m.violations == ()


def test_axioms_and_literals_in_the_closure(owl2rl) -> None:
    m = close(owl2rl, ':label a owl:DatatypeProperty . :x :label "x" .')
    assert has(m, "rdfs:label", "rdf:type", "owl:AnnotationProperty")  # prp-ap
    assert has(m, ":label", "rdfs:subPropertyOf", ":label")  # scm-dp
    assert m.contains(TRIPLE, (iri(":x"), iri(":label"), Literal("x")))
