"""Consistency, entailment and model finding over active sets, on every installed backend."""
from __future__ import annotations

from holokb.analysis.program import Comparison, Const, Negation, Rule, Var
from holokb.closed_world import with_closed_world
from holokb.core.limits import Limits
from holokb.core.terms import XSD, Literal
from holokb.core.time import Duration, Interval
from holokb.solver import (
    ActiveSet, Cardinality, GroundFact, SolverLimits, check_consistency, encode, entails, find_model,
)

from solver_helpers import EX, atom, iri

LOC = EX + "locatedIn"


def fact(pred, *args, key, polarity="affirm", valid=None, evidence=()):
    terms = tuple(iri(a) if isinstance(a, str) else a for a in args)
    return GroundFact(EX + pred, terms, polarity, key, tuple(evidence), valid or Interval.always())


def test_functional_violation_core_is_the_two_facts_with_evidence(backend):
    facts = (fact("locatedIn", "a", "paris", key="k1", evidence=("doc1#0-9",)),
             fact("locatedIn", "b", "rome", key="k0"),
             fact("locatedIn", "a", "rome", key="k2", evidence=("doc2#3-7",)))
    r = check_consistency(ActiveSet(facts, functional=(LOC,)), backend=backend)
    assert r.status == "inconsistent"
    assert [f.key for f in r.facts] == ["k1", "k2"]
    assert [f.evidence for f in r.facts] == [("doc1#0-9",), ("doc2#3-7",)]
    assert r.constraints == (f"functional {LOC}",)


def test_functional_values_at_different_times_are_consistent(backend):
    facts = (fact("locatedIn", "a", "paris", key="k1", valid=Interval(0, 10)),
             fact("locatedIn", "a", "rome", key="k2", valid=Interval(10, 20)))
    assert check_consistency(ActiveSet(facts, functional=(LOC,)), backend=backend).status == "consistent"


def test_overlapping_functional_values_report_the_instant(backend):
    facts = (fact("locatedIn", "a", "paris", key="k1", valid=Interval(0, 10)),
             fact("locatedIn", "a", "rome", key="k2", valid=Interval(5, 20)))
    r = check_consistency(ActiveSet(facts, functional=(LOC,)), backend=backend)
    assert r.status == "inconsistent" and r.at == 5


def test_polarity_clash(backend):
    facts = (fact("likes", "a", "b", key="k1"), fact("likes", "a", "b", key="k2", polarity="negate"),
             fact("likes", "a", "c", key="k3"))
    r = check_consistency(ActiveSet(facts), backend=backend)
    assert r.status == "inconsistent" and [f.key for f in r.facts] == ["k1", "k2"] and r.constraints == ()


def test_constraint_with_numeric_comparison_fires_through_a_rule(backend):
    x, y = Var("x"), Var("y")
    adult = Rule("adult", atom("adult", "?x"), (atom("age", "?x", "?y"),
                                                 Comparison(">=", y, Const(Literal.of(18)))))
    no_minor_driver = Rule("no_minor_driver", None, (atom("drives", "?x", "?c"), Negation(atom("adult", "?x"))))
    facts = (fact("age", "ann", Literal.of(15), key="k1"), fact("drives", "ann", "car1", key="k2"),
             fact("age", "bob", Literal.of(40), key="k3"), fact("drives", "bob", "car2", key="k4"))
    r = check_consistency(with_closed_world(ActiveSet(facts, (adult, no_minor_driver))).active, backend=backend)
    assert r.status == "inconsistent"
    assert [f.key for f in r.facts] == ["k2"]  # ann drives; nothing derives adult(ann) (closed world)
    assert r.constraints == ("constraint no_minor_driver",)
    assert [(a.predicate, a.args) for a in r.absent] == [(EX + "adult", (iri("ann"),))]
    ok = check_consistency(with_closed_world(ActiveSet(facts[2:], (adult, no_minor_driver))).active,
                           backend=backend)
    assert ok.status == "consistent"
    del x, y


def test_duration_and_datetime_comparisons(backend):
    d = Var("d")
    expired = Rule("too_long", None, (atom("inactiveFor", "?t", "?d"),
                                      Comparison(">", d, Const(Literal.of(Duration(0, 3_600_000))))))
    late = Rule("late", None, (atom("at", "?t", "?w"),
                               Comparison(">", Var("w"), Const(Literal("2026-01-01T00:00:00Z", XSD + "dateTime")))))
    short = (fact("inactiveFor", "t1", Literal("PT30M", XSD + "duration"), key="k1"),)
    long_ = (fact("inactiveFor", "t1", Literal("PT2H", XSD + "duration"), key="k2"),)
    assert check_consistency(ActiveSet(short, (expired,)), backend=backend).status == "consistent"
    assert check_consistency(ActiveSet(long_, (expired,)), backend=backend).status == "inconsistent"
    when = (fact("at", "t1", Literal("2026-03-01T00:00:00Z", XSD + "dateTime"), key="k3"),)
    assert check_consistency(ActiveSet(when, (late,)), backend=backend).status == "inconsistent"


def test_cardinality_and_datatype(backend):
    facts = (fact("name", "a", Literal.of("A"), key="k1"), fact("name", "a", Literal.of("Alpha"), key="k2"))
    card = Cardinality(EX + "name", max_count=1)
    r = check_consistency(ActiveSet(facts, cardinalities=(card,)), backend=backend)
    assert r.status == "inconsistent" and r.constraints == (card.name,)
    typed = Cardinality(EX + "age", datatype=XSD + "integer")
    bad = (fact("age", "a", Literal.of("old"), key="k3"),)
    assert check_consistency(ActiveSet(bad, cardinalities=(typed,)), backend=backend).status == "inconsistent"
    RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    need = Cardinality(EX + "name", min_count=1, target_class=EX + "Person")
    person = (GroundFact(RDF_TYPE, (iri("p"), iri("Person")), key="k4"),)
    assert check_consistency(ActiveSet(person, cardinalities=(need,)), backend=backend).status == "inconsistent"
    named = person + (fact("name", "p", Literal.of("P"), key="k5"),)
    assert check_consistency(ActiveSet(named, cardinalities=(need,)), backend=backend).status == "consistent"


def test_entailment_through_a_chain_with_support(backend):
    rule = Rule("cap", atom("hasCapability", "?x", "?z"), (atom("uses", "?x", "?y"), atom("provides", "?y", "?z")))
    facts = (fact("uses", "ide", "lsp", key="k1"), fact("provides", "lsp", "completion", key="k2"),
             fact("provides", "git", "vcs", key="k3"))
    a = ActiveSet(facts, (rule,))
    r = entails(a, atom("hasCapability", "ide", "completion"), backend=backend)
    assert r.status == "entailed" and [f.key for f in r.facts] == ["k1", "k2"] and r.constraints == ("rule cap",)
    assert entails(a, atom("hasCapability", "ide", "vcs"), backend=backend).status == "unknown"


def test_refuted_by_a_negative_fact_and_by_functional(backend):
    facts = (fact("likes", "a", "b", key="k1", polarity="negate"), fact("locatedIn", "a", "paris", key="k2"))
    a = ActiveSet(facts, functional=(LOC,))
    assert entails(a, atom("likes", "a", "b"), backend=backend).status == "refuted"
    assert entails(a, atom("likes", "a", "b", negated=True), backend=backend).status == "entailed"
    r = entails(a, atom("locatedIn", "a", "rome"), backend=backend)
    assert r.status == "refuted" and [f.key for f in r.facts] == ["k2"]


def test_find_model_binds_terms_deterministically(backend):
    facts = (fact("age", "zed", Literal.of(50), key="k1"), fact("age", "amy", Literal.of(30), key="k2"),
             fact("age", "kid", Literal.of(3), key="k3"))
    a = ActiveSet(facts)
    r = find_model(a, ("p", "n"), (atom("age", "?p", "?n"), Comparison(">", Var("n"), Const(Literal.of(18)))),
                   backend=backend)
    assert r.status == "found" and r.bindings == (("p", iri("amy")), ("n", Literal.of(30)))
    none = find_model(a, ("p",), (atom("age", "?p", "?n"), Comparison(">", Var("n"), Const(Literal.of(99)))),
                      backend=backend)
    assert none.status == "none"


def test_find_model_respects_constraints_of_the_whole_set(backend):
    # p(amy) would violate the constraint, so the only model is bob.
    ban = Rule("banned", None, (atom("pick", "?x"), atom("blocked", "?x")))
    facts = (fact("cand", "amy", key="k1"), fact("cand", "bob", key="k2"), fact("blocked", "amy", key="k3"),
             fact("pick", "amy", key="k4", polarity="negate"))
    rule = Rule("pick_rule", atom("pick", "?x"), (atom("cand", "?x"),))
    r = find_model(ActiveSet(facts[:3], ()), ("x",), (atom("cand", "?x"), atom("pick", "?x")), backend=backend)
    assert r.bindings == (("x", iri("amy")),)
    r = find_model(ActiveSet(facts[:3], (ban,)), ("x",), (atom("cand", "?x"), atom("pick", "?x")), backend=backend)
    assert r.bindings == (("x", iri("bob")),)
    del rule


def test_atom_budget_returns_unknown_with_the_limit(backend):
    facts = tuple(fact("p", f"s{i}", f"o{i}", key=f"k{i}") for i in range(50))
    r = check_consistency(ActiveSet(facts), backend=backend, limits=SolverLimits(max_atoms=10))
    assert r.status == "unknown" and r.limit_hit == "max_atoms" and r.truncated


def test_expansion_loop_until_entailed_and_until_stagnation(backend):
    rule = Rule("cap", atom("hasCapability", "?x", "?z"), (atom("uses", "?x", "?y"), atom("provides", "?y", "?z")))
    pool = [fact("uses", "ide", "lsp", key="k1"), fact("noise", "a", "b", key="k2"),
            fact("provides", "lsp", "completion", key="k3")]
    calls = []

    def expand(a, rnd):
        calls.append(rnd)
        return a.with_facts(pool[: len(a.facts) + 1])

    start = ActiveSet(tuple(pool[:1]), (rule,))
    r = entails(start, atom("hasCapability", "ide", "completion"), backend=backend,
                limits=SolverLimits(max_rounds=5), expand=expand)
    assert r.status == "entailed" and r.rounds == 3 and calls == [1, 2]
    r = entails(start, atom("hasCapability", "ide", "vcs"), backend=backend,
                limits=SolverLimits(max_rounds=10), expand=expand)
    assert r.status == "unknown" and r.limit_hit == "stagnation"
    r = entails(start, atom("hasCapability", "ide", "vcs"), backend=backend,
                limits=SolverLimits(max_rounds=2), expand=expand)
    assert r.limit_hit == "max_rounds" and r.rounds == 2


def test_core_limits_accepted(backend):
    facts = (fact("likes", "a", "b", key="k1"),)
    assert check_consistency(ActiveSet(facts), backend=backend, limits=Limits(timeout_s=5)).status == "consistent"


def test_encoding_is_byte_identical_and_ordered():
    rule = Rule("cap", atom("hasCapability", "?x", "?z"), (atom("uses", "?x", "?y"), atom("provides", "?y", "?z")))
    facts = tuple(fact("uses", f"t{i}", f"l{i % 3}", key=f"k{i}") for i in range(20)) + tuple(
        fact("provides", f"l{j}", f"c{j}", key=f"p{j}") for j in range(3))
    a = ActiveSet(facts, (rule,), functional=(EX + "uses",))
    t1, t2 = encode(a).text, encode(a).text
    assert t1 == t2
    assert t1.count("(assert (=> r_0") == 20
