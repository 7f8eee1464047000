"""prove and check --consistency read `not` as stratified negation as failure, exactly as derive/ask do
(issue 8, item 1: prove entailed false statements with `not` in rules)."""
from __future__ import annotations

from pathlib import Path

import pytest

from holokb.analysis import analyze
from holokb.core import AsOf, parse_instant
from holokb.kb import KnowledgeBase
from holokb.syntax import parse_rules

AT = parse_instant("2026-01-01")
NOW = AsOf.latest()
PREFIX = "@prefix ex: <http://example.org/> .\n"
DATA = PREFIX + "ex:p1 a ex:Patient ; ex:takes ex:w . ex:w ex:ic ex:n .\n"
VOCAB = "vocabulary: ex:Patient/1, ex:takes/2 (iri, iri), ex:ic/2 (iri, iri), ex:atRisk/2 (iri, iri), ex:safe/1.\n"
SAFE = "rule safe: ex:safe(?p) :- ex:Patient(?p), not ex:atRisk(?p, ?_).\n"


def program(text: str):
    return analyze(parse_rules(PREFIX + VOCAB + text))


@pytest.fixture
def kb(tmp_path: Path):
    f = tmp_path / "g.ttl"
    f.write_text(DATA)
    with KnowledgeBase.open(tmp_path / "kb.db") as k:
        k.load([f], at=AT)
        yield k


def test_issue_reproduction_prove_agrees_with_ask(kb):
    prog = program("rule risk: ex:atRisk(?p, ?b) :- ex:takes(?p, ?b), ex:ic(?b, ?c).\n" + SAFE)
    assert kb.ask(prog, "?- ex:safe(?x).", as_of=NOW).rows == ()
    risk = kb.prove(prog, "ex:atRisk(ex:p1, ex:w)", as_of=NOW)
    assert risk.status == "entailed"
    safe = kb.prove(prog, "ex:safe(ex:p1)", as_of=NOW)
    assert safe.status != "entailed"
    # ex:atRisk is read under `not`: closed world, so "not derived" is a refutation, never "unknown (stagnation)"
    other = kb.prove(prog, "ex:atRisk(ex:p1, ex:n)", as_of=NOW)
    assert other.status == "refuted" and other.limit_hit is None


def test_issue_reproduction_variant_body_is_not_refuted(kb):
    prog = program("rule risk: ex:atRisk(?p, ?b) :- ex:takes(?p, ?a), ex:takes(?p, ?b), ex:ic(?a, ?c).\n" + SAFE)
    assert [tuple(str(t) for t in r) for r in kb.ask(prog, "?- ex:atRisk(?x, ?y).", as_of=NOW).rows] == [
        ("http://example.org/p1", "http://example.org/w")]
    r = kb.prove(prog, "ex:atRisk(ex:p1, ex:w)", as_of=NOW)
    assert r.status == "entailed"
    assert kb.prove(prog, "ex:safe(ex:p1)", as_of=NOW).status != "entailed"


def test_safe_when_nothing_is_at_risk(kb):
    prog = program("rule risk: ex:atRisk(?p, ?b) :- ex:takes(?p, ?b), ex:ic(?b, ex:other).\n" + SAFE)
    r = kb.prove(prog, "ex:safe(ex:p1)", as_of=NOW)
    assert r.status == "entailed"
    assert "rule safe" in r.constraints
    assert kb.prove(prog, "ex:atRisk(ex:p1, ex:w)", as_of=NOW).status == "refuted"


def test_consistency_reads_not_as_negation_as_failure(kb):
    # ex:p1 is at risk, so the constraint (every patient not at risk must be safe-listed) does not fire
    base = "rule risk: ex:atRisk(?p, ?b) :- ex:takes(?p, ?b), ex:ic(?b, ?c).\n"
    c = "constraint unlisted: false :- ex:Patient(?p), not ex:atRisk(?p, ?_).\n"
    result, _ = kb.check_consistency(program(base + c), as_of=NOW)
    assert result.status == "consistent"
    # ...and it does fire when the interaction is to someone else's drug
    other = "rule risk: ex:atRisk(?p, ?b) :- ex:takes(?p, ?b), ex:ic(?b, ex:other).\n"
    result, _ = kb.check_consistency(program(other + c), as_of=NOW)
    assert result.status == "inconsistent" and result.constraints == ("constraint unlisted",)


def test_facts_written_in_the_rule_file_are_input_to_prove_and_explain(kb):
    """A fact stated in a rule file is an input fact for the goal's cone as for the full closure: a
    closed-world relation stated there was refuted, and explain said it did not hold."""
    prog = program("ex:takes(ex:p1, ex:v).\nex:ic(ex:v, ex:n).\n"
                   "rule risk: ex:atRisk(?p, ?b) :- ex:takes(?p, ?b), ex:ic(?b, ?c).\n" + SAFE)
    assert kb.prove(prog, "ex:takes(ex:p1, ex:v)", as_of=NOW).status == "entailed"
    assert kb.prove(prog, "ex:atRisk(ex:p1, ex:v)", as_of=NOW).status == "entailed"
    e = kb.explain(prog, "ex:atRisk(ex:p1, ex:v)", as_of=NOW)
    assert e.proof is not None
    stated = [n for n in e.proof.nodes() if n.predicate.endswith("ic")]
    assert stated and all(n.rule is None for n in stated)
