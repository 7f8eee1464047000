"""Snapshots kept current by deltas (sparql/live.py) equal a fresh build after any batch of writes."""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.analysis import analyze
from holokb.core import AsOf, Fact, Interval, Literal, MAX_TIME
from holokb.core.errors import LedgerError, RetractionError
from holokb.kb import KnowledgeBase
from holokb.sparql import SnapshotCache
from holokb.sparql.live import LiveCache, closure_affected
from holokb.syntax import parse_rules

from _sparql_kb import EX, RULES, T1, ex

RULES_MORE = RULES + """rule chain: ex:reaches(?x, ?z) :- ex:uses(?x, ?y), ex:reaches(?y, ?z).
rule base: ex:reaches(?x, ?y) :- ex:uses(?x, ?y).
rule lonely: ex:lonely(?x, ?x) :- ex:provides(?x, ?_), not ex:uses(?_, ?x).
"""
PROGRAM = analyze(parse_rules(RULES_MORE))
NAMES = ["a", "b", "c", "d"]
PREDS = ["uses", "provides", "label", "hasCapability"]  # label: no rule reads it; hasCapability: also derived
V_MID = T1 + 50_000


def store_quads(store) -> list[str]:
    return sorted(str(q) for q in store.quads_for_pattern(None, None, None, None))


def fresh(kb, as_of, program):
    return store_quads(SnapshotCache(size=1, disk=False).get(kb.ledger, "snapshot", as_of, program, None,
                                                              kb.derive).store)


op = st.tuples(st.sampled_from(["assert", "assert", "retract", "supersede"]), st.sampled_from(NAMES),
               st.sampled_from(PREDS), st.sampled_from(NAMES + ["lit"]), st.booleans(), st.booleans())
batches = st.lists(st.lists(op, min_size=1, max_size=4), min_size=1, max_size=5)


def fact(s, p, o, graph):
    obj = Literal.of("x") if o == "lit" else ex(o)
    return Fact(ex(s), ex(p), obj, (("graph", ex("g1")),) if graph else ())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=batches, with_rules=st.booleans())
def test_delta_maintained_store_equals_a_fresh_build(batches, with_rules):
    program = PROGRAM if with_rules else None
    with tempfile.TemporaryDirectory() as tmp, KnowledgeBase.open(Path(tmp) / "kb.db") as kb:
        kb.apply_changes(asserts=[fact("a", "uses", "b", False), fact("b", "provides", "c", False)], at=T1)
        live = LiveCache(size=8)
        history = AsOf(T1, MAX_TIME)  # before every batch below: must never change
        as_ofs = [AsOf.latest(), AsOf(MAX_TIME, V_MID), history]
        for a in as_ofs:
            live.get(kb.ledger, "snapshot", a, program, None, kb.derive)
        t = T1
        for batch in batches:
            t += 1000
            before = kb.ledger.change_marker()
            try:
                with kb.ledger.batch(at=t) as b:
                    for kind, s, p, o, graph, bounded in batch:
                        f = fact(s, p, o, graph)
                        valid = Interval(T1, V_MID + 1) if bounded else Interval.always()
                        if kind == "assert":
                            b.assert_fact(f, valid=valid)
                        elif kind == "supersede":
                            b.supersede(f, valid=valid)
                        else:
                            b.retract(f)
            except (RetractionError, LedgerError):
                continue  # a rejected batch (retracting what was never asserted, …) changes nothing
            for a in as_ofs:
                got = live.get(kb.ledger, "snapshot", a, program, None, kb.derive)
                # a batch that changed nothing leaves the marker (and the store) as it was
                assert live.last == ("hit" if kb.ledger.change_marker() == before else "delta")
                assert store_quads(got.store) == fresh(kb, a, program), (a, batch)
                assert got.key.marker == (kb.ledger.change_marker(),)


def test_a_write_the_rules_do_not_read_keeps_the_closure(kb, program):
    live = LiveCache()
    calls = []

    def derive(p, **kw):
        calls.append(kw["as_of"])
        return kb.derive(p, **kw)

    live.get(kb.ledger, "snapshot", AsOf.latest(), program, None, derive)
    kb.apply_changes(asserts=[Fact(ex("zed"), ex("label"), Literal.of("Zed"))], at=T1 + 10**9)
    ch = kb.ledger.changes_since(kb.ledger.change_marker() - 1, AsOf.latest())
    assert not closure_affected(ch, program, AsOf.latest())
    snap = live.get(kb.ledger, "snapshot", AsOf.latest(), program, None, derive)
    assert live.last == "delta" and len(calls) == 1  # the closure was not computed again
    assert store_quads(snap.store) == fresh(kb, AsOf.latest(), program)
    # a write the rules read: computed again, and the derived triple appears
    kb.apply_changes(asserts=[Fact(ex("zed"), ex("uses"), ex("editor"))], at=T1 + 2 * 10**9)
    snap = live.get(kb.ledger, "snapshot", AsOf.latest(), program, None, derive)
    assert len(calls) == 2
    q = f"ASK {{ <{EX}zed> <{EX}hasCapability> <{EX}search> }}"
    assert snap.store.query(q) and store_quads(snap.store) == fresh(kb, AsOf.latest(), program)
    assert snap.system_high == T1 + 2 * 10**9


def test_changes_since_reports_touched_quads_and_completeness(kb):
    m = kb.ledger.change_marker()
    assert kb.ledger.changes_since(m, AsOf.latest()).quads == ()
    kb.apply_changes(asserts=[Fact(ex("zed"), ex("uses"), ex("shell"))],
                     retracts=[Fact(ex("alice"), ex("uses"), ex("editor"))], at=T1 + 10**9)
    ch = kb.ledger.changes_since(m, AsOf.latest())
    got = {(q[0].value, q[2].value, q[4]) for q in ch.quads}
    assert (EX + "zed", EX + "shell", True) in got and (EX + "alice", EX + "editor", False) in got
    assert ch.complete and ch.system_min == T1 + 10**9 and ch.marker == m + 1
    assert EX + "uses" in ch.predicates
