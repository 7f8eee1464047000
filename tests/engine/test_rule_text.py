"""The design example (design.md §6) end to end: parser, analysis, closure, proofs, ask."""
import pytest

from holokb.analysis import analyze
from holokb.core import IRI, AssertedRef
from holokb.engine import Database, ask, closure
from holokb.syntax import parse_rules

TEXT = """
@prefix ex: <http://example.org/> .
rule tool_to_capability [weight 0.95, depth 3]:
    ex:hasCapability(?x, ?z) :- ex:uses(?x, ?y), ex:provides(?y, ?z).
rule orphan: ex:orphan(?x) :- ex:Node(?x), not ex:partOf(?x, ?_).
constraint one_location: false :- ex:locatedIn(?x, ?a), ex:locatedIn(?x, ?b), ?a != ?b.
?- ex:hasCapability(ex:AchillesIDE, ?c).
"""
EX = "http://example.org/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def test_design_example_runs_end_to_end():
    prog = analyze(parse_rules(TEXT))
    db = Database()
    e = lambda n: IRI(EX + n)  # noqa: E731
    db.add(EX + "uses", (e("AchillesIDE"), e("Ploinky")), key=AssertedRef("f1"), confidence=1.0)
    db.add(EX + "provides", (e("Ploinky"), e("sandboxing")), key=AssertedRef("f2"), confidence=0.8)
    db.add(EX + "locatedIn", (e("a"), e("p")))
    db.add(EX + "locatedIn", (e("a"), e("q")))
    for n in ("AchillesIDE", "Ploinky"):  # unary atoms are rdf:type facts in KB mode
        db.add(RDF_TYPE, (e(n), e("Node")))
    db.add(EX + "partOf", (e("Ploinky"), e("AchillesIDE")))
    m = closure(prog, db, record_proofs=True)
    assert m.relation(EX + "hasCapability") == ((e("AchillesIDE"), e("sandboxing")),)
    assert (e("AchillesIDE"), e("orphan")) in m.relation(RDF_TYPE)
    assert (e("Ploinky"), e("orphan")) not in m.relation(RDF_TYPE)
    assert [v.constraint for v in m.violations] == ["one_location", "one_location"]
    assert m.score(EX + "hasCapability", (e("AchillesIDE"), e("sandboxing"))) == pytest.approx(0.8 * 0.95 / 1.25)
    assert ask(prog, db, prog.queries[0]).rows == ((e("sandboxing"),),)
    step = next(s for s in m.proof_steps() if s.fact.predicate == EX + "hasCapability")
    assert step.premises == (AssertedRef("f1"), AssertedRef("f2"))
