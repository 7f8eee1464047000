"""A snapshot built from the ledger's stored closure equals one built by closing the rules again.

The stored path writes N-Quads from term ids and the ledger's term rows (``snapshot.build_data`` →
``_data_from_ids``), the other decodes terms and encodes them (``NQuadsWriter``): the lines must be
the same, over IRIs, skolem IRIs, literals with escapes, language tags and datatypes, named graphs.

`holokb derive` stores the closure; the first `holokb query` then reads the derived triples from it
(``snapshot.stored_closure`` / ``Ledger.derived_triples``) instead of computing the same closure a
second time — but only when the stored one is for the same rule set and AsOf, fresh, and complete.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.analysis import analyze
from holokb.bridge import bridge
from holokb.core import MAX_TIME, AsOf, Fact, Interval, IRI, Limits, Literal
from holokb.core.terms import SKOLEM_PREFIX
from holokb.kb import KnowledgeBase
from holokb.sparql import SnapshotCache
from holokb.sparql.nquads import NQuadsWriter
from holokb.sparql.snapshot import build_data, key_for, snapshot_quads, stored_closure
from holokb.syntax import parse_rules

from _sparql_kb import EX, RULES, T1, ex

# Binary rules, negation, recursion, and a rule over hk:triple (quantifying over properties).
PROGRAM = bridge(analyze(parse_rules(RULES + f"""@prefix hk: <https://w3id.org/holokb/> .
rule base: ex:reaches(?x, ?y) :- ex:uses(?x, ?y).
rule chain: ex:reaches(?x, ?z) :- ex:uses(?x, ?y), ex:reaches(?y, ?z).
rule lonely: ex:lonely(?x, ?x) :- ex:provides(?x, ?_), not ex:uses(?_, ?x).
rule sym: hk:triple(?y, ?p, ?x) :- hk:triple(?p, ex:kind, ex:Symmetric), hk:triple(?x, ?p, ?y).
rule tag: ex:tagged(?x) :- ex:uses(?x, ?_).
"""))).program
NAMES = ["a", "b", "c", "d"]
PREDS = ["uses", "provides", "knows", "hasCapability"]
V_MID = T1 + 50_000


def _boom(*_a, **_k):
    raise AssertionError("the rules were closed again although a fresh stored closure exists")


def quad_set(quads) -> set[str]:
    return {" ".join(str(t) for t in q) for q in quads}


OBJECTS = {
    "lit": Literal.of("x"),
    "esc": Literal('say "hi"\\\n\r\té'),
    "lang": Literal("Hallo", lang="DE-at"),
    "int": Literal.of(7),
    "typed": Literal("q", "http://example.org/dt"),
    "skolem": IRI(SKOLEM_PREFIX + "0f" * 16),
}
fact_st = st.tuples(st.sampled_from(NAMES), st.sampled_from(PREDS), st.sampled_from(NAMES + sorted(OBJECTS)),
                    st.sampled_from(["always", "early", "late"]), st.sampled_from([None, "g1", "g2"]))


def lines(data: bytes) -> set[bytes]:
    return set(data.splitlines())


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(facts=st.lists(fact_st, min_size=1, max_size=12), symmetric=st.booleans(),
       valid=st.sampled_from([MAX_TIME, V_MID, T1 + 10]))
def test_the_stored_closure_gives_the_same_snapshot_as_closing_again(facts, symmetric, valid):
    with tempfile.TemporaryDirectory() as tmp, KnowledgeBase.open(Path(tmp) / "kb.db") as kb:
        with kb.ledger.batch(at=T1) as b:
            for s, p, o, when, graph in facts:
                iv = {"always": Interval.always(), "early": Interval(T1, V_MID), "late": Interval(V_MID, None)}[when]
                q = {"graph": ex(graph)} if graph else {}
                b.assert_fact(Fact(ex(s), ex(p), OBJECTS.get(o) or ex(o), q), valid=iv)
            if symmetric:
                b.assert_fact(Fact(ex("knows"), ex("kind"), ex("Symmetric")))
        as_of = AsOf(MAX_TIME, valid)
        again, _, _ = snapshot_quads(kb.ledger, as_of, PROGRAM, None, kb.derive)
        key = key_for(kb.ledger, "snapshot", as_of, PROGRAM, None)
        again_data = NQuadsWriter(deskolemise=True).encode(again)
        kb.derive_and_store(PROGRAM, as_of=as_of, computed_at=T1 + 5)
        assert stored_closure(kb.ledger, PROGRAM, as_of, None) is not None
        stored, truncated, _ = snapshot_quads(kb.ledger, as_of, PROGRAM, None, _boom)
        assert quad_set(stored) == quad_set(again) and not truncated
        # the id path (what the disk snapshot is filled from) writes the same lines
        data = build_data(kb.ledger, key, PROGRAM, None, _boom)
        assert lines(data.nquads) == lines(again_data) and not data.truncated
        # and with no rules, the plain quads alone
        plain, _, _ = snapshot_quads(kb.ledger, as_of, None, None)
        assert (build_data(kb.ledger, key_for(kb.ledger, "snapshot", as_of, None, None), None, None).nquads
                == NQuadsWriter(deskolemise=True).encode(plain))


def test_a_stale_truncated_or_budgeted_closure_is_not_used(kb):
    calls = []

    def derive(p, **kw):
        calls.append(1)
        return kb.derive(p, **kw)

    latest = AsOf.latest()
    kb.derive_and_store(PROGRAM, as_of=latest, computed_at=T1 + 5)
    snap = SnapshotCache(disk=False).get(kb.ledger, "snapshot", latest, PROGRAM, None, _boom)
    assert snap.store.query(f"ASK {{ <{EX}alice> <{EX}hasCapability> <{EX}search> }}")
    # a count budget could have cut a new closure short: the stored one is not what was asked for
    assert stored_closure(kb.ledger, PROGRAM, latest, Limits(max_derived=10)) is None
    assert stored_closure(kb.ledger, PROGRAM, latest, Limits(timeout_s=5.0, max_results=3)) is not None
    # another AsOf, another rule set: none stored
    assert stored_closure(kb.ledger, PROGRAM, AsOf(MAX_TIME, T1), None) is None
    assert stored_closure(kb.ledger, analyze(parse_rules(RULES)), latest, None) is None
    # a write the AsOf sees makes it stale: closed again, and the new fact shows
    kb.apply_changes(asserts=[Fact(ex("zed"), ex("uses"), ex("editor"))], at=T1 + 10**9)
    assert stored_closure(kb.ledger, PROGRAM, latest, None) is None
    snap = SnapshotCache(disk=False).get(kb.ledger, "snapshot", latest, PROGRAM, None, derive)
    assert calls == [1] and snap.store.query(f"ASK {{ <{EX}zed> <{EX}hasCapability> <{EX}search> }}")
    # a truncated stored closure is not used either
    kb.derive_and_store(PROGRAM, as_of=latest, computed_at=T1 + 2 * 10**9, limits=Limits(max_derived=1))
    assert kb.ledger.closure_info(PROGRAM.rule_set_hash, latest).truncated
    assert stored_closure(kb.ledger, PROGRAM, latest, None) is None


@pytest.mark.parametrize("kind", ["snapshot"])
def test_the_disk_snapshot_from_a_stored_closure_answers_like_a_fresh_build(kb, tmp_path, kind):
    latest = AsOf.latest()
    fresh = SnapshotCache(disk=False).get(kb.ledger, kind, latest, PROGRAM, None, kb.derive)
    kb.derive_and_store(PROGRAM, as_of=latest, computed_at=T1 + 5)
    cached = SnapshotCache().get(kb.ledger, kind, latest, PROGRAM, None, _boom)
    q = "SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o"
    assert cached.location is not None
    assert [tuple(map(str, r)) for r in cached.store.query(q)] == [tuple(map(str, r)) for r in fresh.store.query(q)]
