"""Validity that is true: negation and aggregates over the whole valid-time axis.

The law (design.md §3): for every instant t, the facts the whole-timeline closure says hold at t
are exactly the closure of the input facts valid at t.  Checked by hypothesis on random
stratified programs with negation and aggregates over random intervals.
"""
from hypothesis import HealthCheck, given, settings

from holokb.core import AssertedRef, Interval
from holokb.engine import Database, closure

from lang import EX, iri, rules
from stratified_programs import IDB, database, instants, programs, temporal_facts

ALICE = rules("""
    rule placed: ex:placed(?p) :- ex:locatedIn(?p, ?_).
    rule unplaced: ex:unplaced(?p) :- ex:Person(?p), not ex:placed(?p).
""")


def alice_db():
    db = Database()
    db.add(EX + "Person", (iri("alice"),), key=AssertedRef("person"))
    db.add(EX + "locatedIn", (iri("alice"), iri("lab")), valid=Interval(100, 200), key=AssertedRef("lab"))
    db.add(EX + "locatedIn", (iri("alice"), iri("office")), valid=Interval(150, 300), key=AssertedRef("office"))
    return db


def test_a_conclusion_through_not_holds_minus_the_time_the_negated_fact_holds():
    m = closure(ALICE, alice_db())
    assert [d.valid for d in m.derived() if d.predicate == EX + "unplaced"] == [
        Interval(Interval().start, 100), Interval(300, None)]
    assert not closure(ALICE, alice_db(), valid_at=120).contains(EX + "unplaced", (iri("alice"),))
    at = closure(ALICE, alice_db(), valid_at=350)
    assert at.validity(EX + "unplaced", (iri("alice"),)) == (Interval(300, None),)


def test_proofs_show_the_negated_premise_and_when_it_was_absent():
    m = closure(ALICE, alice_db(), record_proofs=True, valid_at=350)
    proof = m.explain(EX + "unplaced", (iri("alice"),))
    absent = [n for n in proof.premises if n.absent]
    assert [(n.predicate, n.args, n.valid) for n in absent] == [(EX + "placed", (iri("alice"),), Interval(300, None))]
    assert [n.key for n in proof.inputs()] == [AssertedRef("person")]
    (step,) = [s for s in m.proof_steps() if s.fact.predicate == EX + "unplaced"]
    assert [(a.predicate, a.valid) for a in step.absent] == [(EX + "placed", Interval(300, None))]


def test_an_aggregate_holds_where_the_aggregated_set_is_constant():
    db = Database()
    db.add(EX + "team", (iri("t"),))
    db.add(EX + "member", (iri("t"), iri("a")), valid=Interval(0, 50))
    db.add(EX + "member", (iri("t"), iri("b")), valid=Interval(20, 80))
    db.add(EX + "member", (iri("t"), iri("c")), valid=Interval(50, 60))  # a leaves as c joins: still 2
    p = rules("rule size: ex:size(?t, ?n) :- ex:team(?t), ?n = count(?m : ex:member(?t, ?m)).")
    got = [(d.args[1].value, d.valid) for d in closure(p, db).derived()]
    assert sorted(got, key=lambda x: x[1].start) == [
        (1, Interval(0, 20)), (2, Interval(20, 60)), (1, Interval(60, 80))]


def test_anonymous_negation_subtracts_every_matching_row():
    db = Database()
    db.add(EX + "node", (iri("n"),))
    db.add(EX + "edge", (iri("n"), iri("a")), valid=Interval(0, 10))
    db.add(EX + "edge", (iri("n"), iri("b")), valid=Interval(5, 20))
    db.add(EX + "edge", (iri("m"), iri("b")), valid=Interval(30, 40))
    p = rules("""
        rule sink: ex:sink(?x) :- ex:node(?x), not ex:edge(?x, ?_).
        rule quiet: ex:quiet(?x) :- ex:node(?x), not ex:edge(?_, ?_).
    """)
    m = closure(p, db)
    lo = Interval().start
    assert [iv for _, iv in m.rows(EX + "sink")] == [Interval(lo, 0), Interval(20, None)]
    assert [iv for _, iv in m.rows(EX + "quiet")] == [Interval(lo, 0), Interval(20, 30), Interval(40, None)]


def _at(model, t: int) -> dict:
    """Per derived predicate, the args of the facts that hold at t according to ``model``."""
    out = {}
    for p, _ in IDB:
        out[p] = {args for args, iv in model.rows(EX + p) if iv.contains(t)}
    return out


def _plain(model) -> dict:
    return {p: set(model.relation(EX + p)) for p, _ in IDB}


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), temporal_facts())
def test_whole_timeline_equals_the_closure_at_every_instant(text, facts):
    prog = rules(text)
    whole = closure(prog, database(facts))
    assert not whole.truncated
    for t in instants(facts):
        point = closure(prog, database(facts, at=t))
        assert _at(whole, t) == _plain(point), (t, text)
        at_t = closure(prog, database(facts), valid_at=t)
        assert {p: set(at_t.relation(EX + p)) for p, _ in IDB} == _plain(point)
        # ... each with the whole timeline's maximal interval around t (derivations meeting at a
        # boundary are one fact, whichever side t falls on)
        for p, _ in IDB:
            assert set(at_t.rows(EX + p)) == {(a, iv) for a, iv in whole.rows(EX + p) if iv.contains(t)}, (t, p, text)


def test_a_fact_derived_two_ways_on_either_side_of_an_instant_holds_over_both():
    prog = rules("rule r: ex:q(?y) :- ex:e(?x, ?y).")
    db = Database()
    db.add(EX + "e", (iri("a"), iri("a")), valid=Interval(100, None), key=AssertedRef("late"))
    db.add(EX + "e", (iri("b"), iri("a")), valid=Interval(0, 100), key=AssertedRef("early"))
    for t in (50, 150):
        m = closure(prog, db, record_proofs=True, valid_at=t)
        assert m.validity(EX + "q", (iri("a"),)) == (Interval(0, None),)
        proof = m.explain(EX + "q", (iri("a"),))
        assert proof.valid.contains(t) and proof.premises[0].key == AssertedRef("early" if t < 100 else "late")
