"""Entailments reach user rules (issue 8, item 6): rules/rdfs.hkr conclusions over hk:triple are seen
by user rules over binary predicates, and user conclusions are seen by RDFS — never through `not`."""
from __future__ import annotations


import pytest

from holokb.analysis import analyze, render
from holokb.bridge import bridge
from holokb.core import AsOf, IRI, RDF_TYPE, parse_instant
from holokb.kb import KnowledgeBase
from holokb.reasoning import TRIPLE, load_program
from holokb.resources import data_dir
from holokb.syntax import parse_rules

EX = "http://example.org/"
NOW = AsOf.latest()
DATA = """@prefix ex: <http://example.org/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Student rdfs:subClassOf ex:Person .
ex:teaches rdfs:domain ex:Teacher .
ex:alice a ex:Student ; ex:gives ex:logic .
ex:bob a ex:Person ; ex:registered ex:course1 .
ex:carol a ex:Student .
"""
USER = """@prefix ex: <http://example.org/> .
vocabulary: ex:adult/1, ex:Person/1, ex:Teacher/1, ex:teaches/2, ex:gives/2, ex:staff/1,
    ex:unregistered/1, ex:registered/2.
# over an RDFS-entailed type: alice is a Person only through rdfs:subClassOf
rule adult: ex:adult(?x) :- ex:Person(?x).
# a user conclusion that RDFS reads (rdfs:domain of ex:teaches)
rule teaches: ex:teaches(?x, ?c) :- ex:gives(?x, ?c).
rule staff: ex:staff(?x) :- ex:Teacher(?x).
# negation over an entailed type: ex:unregistered is never fed back into hk:triple
rule unreg: ex:unregistered(?x) :- ex:Person(?x), not ex:registered(?x, ?_).
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> object:
    d = tmp_path_factory.mktemp("rules")
    (d / "user.hkr").write_text(USER)
    return load_program([data_dir("rules") / "rdfs.hkr", d / "user.hkr"])


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    d = tmp_path_factory.mktemp("kb")
    (d / "data.ttl").write_text(DATA)
    with KnowledgeBase.open(d / "kb.db") as k:
        k.load([d / "data.ttl"], at=parse_instant("2026-01-01"))
        yield k


def names(model, cls: str) -> set[str]:
    return {str(args[0])[len(EX):] for args in model.relation(RDF_TYPE) if args[1] == IRI(EX + cls)}


def test_user_rule_over_an_rdfs_entailed_type(kb, program):
    model = kb.derive(program, as_of=NOW)
    assert names(model, "adult") == {"alice", "bob", "carol"}  # alice and carol via ex:Student ⊑ ex:Person
    assert "rule adult" in {f"rule {n.rule}" for n in [kb.explain(program, "ex:adult(ex:alice)", as_of=NOW).proof]}
    proof = kb.explain(program, "ex:adult(ex:alice)", as_of=NOW)
    assert {n.rule for n in proof.proof.nodes()} >= {"adult", "triple_to_Person", "rdfs9"}
    # the proof reaches the asserted triples with their ledger spans
    assert {str(v.fact.predicate) for v in proof.evidence.values()} >= {
        "http://www.w3.org/2000/01/rdf-schema#subClassOf", RDF_TYPE}


def test_rdfs_over_a_user_conclusion_and_back(kb, program):
    model = kb.derive(program, as_of=NOW)
    # teaches(alice, logic) from the user rule; rdfs2 types alice a Teacher; the user rule staff reads it
    assert model.contains(TRIPLE, (IRI(EX + "alice"), IRI(RDF_TYPE), IRI(EX + "Teacher")))
    assert names(model, "staff") == {"alice"}
    assert [r[0] for r in kb.ask(program, "?- ex:staff(?x).", as_of=NOW).rows] == [IRI(EX + "alice")]


def test_negation_is_never_put_into_a_cycle(kb, program):
    b = bridge(program)
    assert b.held_back == (EX + "unregistered",)
    heads = {(r.head.predicate, r.head.args[1].term.value if r.head.predicate == TRIPLE and
              hasattr(r.head.args[1], "term") else None) for r in program.rules if r.head is not None}
    assert (TRIPLE, EX + "teaches") in heads and (TRIPLE, RDF_TYPE) in heads
    assert not any(r.name.startswith("unregistered_to_triple") for r in program.rules)
    model = kb.derive(program, as_of=NOW)
    assert names(model, "unregistered") == {"alice", "carol"}  # bob is registered; students are persons
    assert kb.prove(program, "ex:unregistered(ex:bob)", as_of=NOW).status == "refuted" or \
        kb.prove(program, "ex:unregistered(ex:bob)", as_of=NOW).status == "unknown"
    assert kb.prove(program, "ex:unregistered(ex:carol)", as_of=NOW).status == "entailed"


def test_bridging_is_idempotent_and_survives_a_stored_rule_set(program):
    again = bridge(program).program
    assert again.rules == program.rules and again.rule_set_hash == program.rule_set_hash
    reread = analyze(parse_rules(render(program, queries=False)))
    assert bridge(reread).program.rule_set_hash == program.rule_set_hash
    assert len(bridge(reread).program.rules) == len(program.rules)


def test_programs_without_the_triple_view_are_unchanged():
    prog = load_program([data_dir("rules") / "example.hkr"])
    assert not any(r.name.endswith("_to_triple") or r.name.startswith("triple_to_") for r in prog.rules)
    owl = load_program([data_dir("rules") / "owl2rl.hkr"])
    assert bridge(owl).program is owl or bridge(owl).program.rules == owl.rules
