"""The incremental consistency session agrees with fresh checks."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from holokb.analysis.program import Negation, Rule
from holokb.closed_world import with_closed_world
from holokb.solver import ActiveSet, GroundFact, check_consistency
from holokb.solver.session import ConsistencySession

from solver_helpers import EX, atom, iri

LOC = EX + "locatedIn"


def loc(s, o, key, polarity="affirm"):
    return GroundFact(LOC, (iri(s), iri(o)), polarity, key)


def test_add_then_conflict_then_hypothetical(backend):
    s = ConsistencySession(ActiveSet((loc("a", "x", "k1"),), functional=(LOC,)), backend=backend)
    assert s.check().status == "consistent"
    r = s.check_with([loc("a", "y", "k2")])
    assert r.status == "inconsistent" and [f.key for f in r.facts] == ["k1", "k2"]
    assert s.check().status == "consistent" and [f.key for f in s.active.facts] == ["k1"]
    s.add([loc("b", "y", "k3")])
    assert s.check().status == "consistent"
    s.add([loc("b", "z", "k4")])
    r = s.check()
    assert r.status == "inconsistent" and [f.key for f in r.facts] == ["k3", "k4"]
    assert s.reencodes == 0


def test_rules_extend_incrementally_and_closed_predicates_rebuild(backend):
    cap = Rule("cap", atom("has", "?x", "?z"), (atom("uses", "?x", "?y"), atom("provides", "?y", "?z")))
    ban = Rule("ban", None, (atom("has", "?x", "danger"),))
    s = ConsistencySession(ActiveSet((GroundFact(EX + "uses", (iri("t"), iri("lib")), key="k1"),), (cap, ban)),
                           backend=backend)
    assert s.check().status == "consistent"
    r = s.check_with([GroundFact(EX + "provides", (iri("lib"), iri("danger")), key="k2")])
    assert r.status == "inconsistent" and r.constraints == ("constraint ban", "rule cap")
    assert s.reencodes == 0
    orphan = Rule("orphan", None, (atom("Node", "?x"), Negation(atom("partOf", "?x", "?_"))))
    s2 = ConsistencySession(ActiveSet((GroundFact(EX + "partOf", (iri("n"), iri("g")), key="k1"),), (orphan,)),
                            backend=backend, prepare=lambda a: with_closed_world(a).active)
    s2.add([GroundFact(EX + "Node", (iri("n"),), key="k2")])
    assert s2.check().status == "consistent" and s2.reencodes == 1
    assert s2.check_with([GroundFact(EX + "Node", (iri("m"),), key="k3")]).status == "inconsistent"


facts_st = st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz"), st.booleans()), min_size=1, max_size=8)


@settings(max_examples=25, deadline=None)
@given(facts_st, facts_st)
def test_session_matches_fresh_check(first, later):
    mk = lambda i, t: loc(t[0], t[1], f"k{i:02d}", "affirm" if t[2] else "negate")  # noqa: E731
    base = tuple(mk(i, t) for i, t in enumerate(first))
    extra = tuple(mk(100 + i, t) for i, t in enumerate(later))
    s = ConsistencySession(ActiveSet(base, functional=(LOC,)))
    s.add(extra)
    inc = s.check()
    fresh = check_consistency(ActiveSet(base + extra, functional=(LOC,)))
    assert inc.status == fresh.status
    if fresh.status == "inconsistent":
        # Both cores are minimal; each must be inconsistent on its own.
        for core in (inc.facts, fresh.facts):
            assert check_consistency(ActiveSet(core, functional=(LOC,))).status == "inconsistent"
