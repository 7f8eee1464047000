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

import pyoxigraph as ox
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
PROGRAM = bridge(analyze(parse_rules(RULES + """@prefix hk: <https://w3id.org/holokb/> .
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
                    st.sampled_from(["always", "early", "late"]), st.sampled_from([None, "g1", "g2", "note", "both"]),
                    st.sampled_from(["affirm", "affirm", "affirm", "negate"]), st.booleans())
T_RETRACT = T1 + 10**6
QUALIFIERS = {None: {}, "g1": {"graph": ex("g1")}, "g2": {"graph": ex("g2")}, "note": {"note": ex("n")},
              "both": {"graph": ex("g1"), "note": ex("n")}}


def lines(data: bytes) -> set[str]:
    """The quads the bytes fill a store with: the id table (sparql/idtable.py) writes each term as
    pyoxigraph holds it (normalised literal values, escapes) and each quad once."""
    return {str(q) for q in ox.parse(data, format=ox.RdfFormat.N_QUADS, rename_blank_nodes=False, lenient=True)}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(facts=st.lists(fact_st, min_size=1, max_size=12), symmetric=st.booleans(),
       valid=st.sampled_from([MAX_TIME, V_MID, T1 + 10]), system=st.sampled_from([MAX_TIME, T1 + 500]))
def test_the_stored_closure_gives_the_same_snapshot_as_closing_again(facts, symmetric, valid, system):
    """Asserted (over intervals, in named graphs, with other qualifiers, negated) and retracted facts,
    at a valid and a system time before or after the retractions: the id path writes the same lines
    as decoding the terms and encoding them (the old path), with and without the stored closure."""
    with tempfile.TemporaryDirectory() as tmp, KnowledgeBase.open(Path(tmp) / "kb.db") as kb:
        made = []
        with kb.ledger.batch(at=T1) as b:
            for s, p, o, when, quals, polarity, _ in facts:
                iv = {"always": Interval.always(), "early": Interval(T1, V_MID), "late": Interval(V_MID, None)}[when]
                fact = Fact(ex(s), ex(p), OBJECTS.get(o) or ex(o), QUALIFIERS[quals], polarity)
                b.assert_fact(fact, valid=iv)
                made.append(fact)
            if symmetric:
                b.assert_fact(Fact(ex("knows"), ex("kind"), ex("Symmetric")))
        with kb.ledger.batch(at=T_RETRACT) as b:
            for fact, (*_, retract) in zip(made, facts):
                if retract:
                    b.retract(fact)
        as_of = AsOf(system, valid)
        again, _, _ = snapshot_quads(kb.ledger, as_of, PROGRAM, None, kb.derive)
        key = key_for(kb.ledger, "snapshot", as_of, PROGRAM, None)
        again_data = NQuadsWriter(deskolemise=True).encode(again)
        kb.derive_and_store(PROGRAM, as_of=as_of, computed_at=T_RETRACT + 5)
        assert stored_closure(kb.ledger, PROGRAM, as_of, None) is not None
        stored, truncated, _ = snapshot_quads(kb.ledger, as_of, PROGRAM, None, _boom)
        assert quad_set(stored) == quad_set(again) and not truncated
        # the id path (what the disk snapshot is filled from) writes the same lines
        data = build_data(kb.ledger, key, PROGRAM, None, _boom)
        assert lines(data.nquads) == lines(again_data) and not data.truncated
        assert data.nquads.endswith(b" .\n") or not data.nquads
        assert data.quads == len(data.nquads.splitlines()) == len(lines(data.nquads))
        # and with no rules, the plain quads alone
        plain, _, _ = snapshot_quads(kb.ledger, as_of, None, None)
        plain_data = build_data(kb.ledger, key_for(kb.ledger, "snapshot", as_of, None, None), None, None).nquads
        assert lines(plain_data) == lines(NQuadsWriter(deskolemise=True).encode(plain))
        # only the dictionary's ids that are used, read by id (a large dictionary): the same lines
        small = _only_used_terms(kb.ledger)
        assert lines(build_data(small, key, PROGRAM, None, _boom).nquads) == lines(again_data)


def _only_used_terms(ledger):
    """The ledger, but its dictionary too large to read whole (``all_term_rows`` declines)."""
    class Small:
        def __getattr__(self, name):
            return getattr(ledger, name)

        @staticmethod
        def all_term_rows(at_most):
            return None
    return Small()


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
