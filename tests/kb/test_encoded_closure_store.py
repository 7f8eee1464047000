"""A closure stored from the engine's encoded proof steps (term ids, only minted terms interned) is
byte-identical to the same closure stored from decoded records: the derived rows, the export and
the explanations read from it — on a program with valid time, negation, minted literals
(aggregates and arithmetic), a ternary head and ground facts written in the rule file."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings

from holokb.analysis import analyze, render
from holokb.core import AsOf, InvalidValueError, LedgerError, parse_instant
from holokb.core.fact_columns import FactColumns
from holokb.kb import KnowledgeBase, derived_records
from holokb.ledger.derived_columns import DerivedColumns, DerivedGroup
from holokb.syntax import parse_rules

from random_programs import analysed, facts, goal_text, loaded_kb, program_text, turtle

LOADED = parse_instant("2025-12-01")
AT = AsOf(LOADED + 1, parse_instant("2026-01-15"))
DATA = """@prefix ex: <http://example.org/> .
@prefix hk: <https://w3id.org/holokb/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:a ex:e ex:b . ex:b ex:e ex:c . ex:c ex:e ex:d .
ex:a ex:v 3 . ex:b ex:v 40 . ex:a ex:name "Ann" .
ex:g1 { ex:b a ex:Away . }
ex:g1 hk:validFrom "2026-01-10T00:00:00Z"^^xsd:dateTime ; hk:validTo "2026-02-01T00:00:00Z"^^xsd:dateTime .
ex:g2 { ex:a ex:e ex:z . }
ex:g2 hk:validFrom "2025-06-01T00:00:00Z"^^xsd:dateTime .
"""
RULES = """@prefix ex: <http://example.org/> .
ex:e(ex:d, ex:w).
rule reach: ex:r(?x, ?y) :- ex:e(?x, ?y).
rule step: ex:r(?x, ?z) :- ex:r(?x, ?y), ex:e(?y, ?z).
rule home: ex:home(?x) :- ex:r(?x, ?_), not ex:Away(?x).
rule next: ex:w(?x, ?n) :- ex:v(?x, ?k), ?n = ?k + 1000.
rule fan: ex:fan(?x, ?n) :- ex:home(?x), ?n = count(?y : ex:r(?x, ?y)).
rule three: ex:t3(?x, ?y, ?n) :- ex:r(?x, ?y), ex:w(?x, ?n).
rule label: ex:t3(?x, ?s, ?x) :- ex:name(?x, ?s), not ex:Away(?x).
"""


def _kb(tmp_path, name):
    data = tmp_path / "data.trig"
    data.write_text(DATA)
    kb = KnowledgeBase.open(tmp_path / f"{name}.db")
    kb.load([data], at=LOADED)
    return kb


def _stored(kb):
    rows = [(info.id, r) for info in kb.ledger.closures() for r in kb.ledger.stored_closure(info).derived]
    terms = kb.ledger._db.execute("SELECT * FROM terms ORDER BY term_id").fetchall()
    return rows, terms


def _store_records(kb, prog, as_of):
    marker = kb.ledger.change_marker()
    model = kb.derive(prog, as_of=as_of, record_proofs=True)
    kb.ledger.store_rule_set(prog.rule_set_hash, render(prog, queries=False))
    return kb.ledger.store_closure(rule_set_hash=prog.rule_set_hash, as_of=as_of, computed_at=7,
                                   derived=derived_records(model), truncated=model.truncated,
                                   limit_hit=model.limit_hit, change_marker=marker)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program_text(), facts())
def test_column_and_record_stores_agree_on_random_programs(text, rows):
    """Random stratified programs with `not` and aggregates (minted counts and sums): the columnar
    store writes the rows and terms the record path writes."""
    program = analysed(text)
    assume(rows)
    data = turtle(rows)
    with loaded_kb("a.ttl", data, at=LOADED) as old, loaded_kb("a.ttl", data, at=LOADED) as new:
        a = _store_records(old, program, AsOf.latest())
        _, b = new.derive_and_store(program, as_of=AsOf.latest(), computed_at=7)
        assert _stored(new) == _stored(old)
        assert (a.derived, a.binary, a.rule_counts) == (b.derived, b.binary, b.rule_counts)


def _group(seq, premises=((),), score=(0.5,), args=((1, 1),)):
    n = len(seq)
    facts = FactColumns("http://example.org/q", False, "r", np.array(seq, np.int64), np.array(args, np.int64),
                        np.zeros(n, np.int64), np.full(n, 2**63 - 1, np.int64), np.zeros(n, np.int64),
                        np.array(score, np.float64))
    return DerivedGroup(facts, np.array(premises, np.int64).reshape(n, -1), (), np.zeros((n, 0), np.int64))


def test_column_store_refuses_bad_columns(tmp_path):
    kb = _kb(tmp_path, "bad")
    try:
        fid = kb.ledger._db.execute("SELECT min(fact_id) FROM facts").fetchone()[0]
        arg = kb.ledger._db.execute("SELECT min(term_id) FROM terms").fetchone()[0]

        def store(*groups, count=1):
            return kb.ledger.store_closure(rule_set_hash="h", as_of=AT, computed_at=1,
                                           derived=DerivedColumns(groups, count, {}))

        before = _stored(kb)
        for groups, count, error in [
            ((_group([0], score=(float("nan"),), args=((arg, arg),)),), 1, InvalidValueError),
            ((_group([1], args=((arg, arg),)),), 1, InvalidValueError),  # position out of range
            ((_group([0, 0], score=(0.5, 0.5), args=((arg, arg), (arg, arg)), premises=((), ())),), 2,
             InvalidValueError),  # a position twice, one missing
            ((_group([0], premises=((10**9,),), args=((arg, arg),)),), 1, LedgerError),  # no such fact
            ((_group([0], premises=((-3,),), args=((arg, arg),)),), 1, LedgerError),  # d:2 of 1
        ]:
            with pytest.raises(error):
                store(*groups, count=count)
            assert _stored(kb) == before  # a refused closure leaves the store as it was
        info = store(_group([0], premises=((fid,),), args=((arg, arg),)))
        assert info.derived == 1 and kb.ledger.derived_facts(info).items[0].premises[0].fact_id
    finally:
        kb.close()


def test_encoded_and_decoded_stores_write_the_same_bytes(tmp_path):
    prog = analyze(parse_rules(RULES, file="r.hkr"))
    old, new = _kb(tmp_path, "old"), _kb(tmp_path, "new")
    try:
        marker = old.ledger.change_marker()
        model = old.derive(prog, as_of=AT, record_proofs=True)
        old.ledger.store_rule_set(prog.rule_set_hash, render(prog, queries=False))
        old.ledger.store_closure(rule_set_hash=prog.rule_set_hash, as_of=AT, computed_at=7,
                                 derived=derived_records(model), truncated=model.truncated,
                                 limit_hit=model.limit_hit, change_marker=marker)
        new_model, info = new.derive_and_store(prog, as_of=AT, computed_at=7)
        enc = new_model.encoded_proof_steps()
        assert enc.minted, "the program mints terms (1003, 1040, counts)"
        assert {name for name, _ in info.rule_counts} >= {"home", "next", "fan", "three", "label"}
        rows, terms = _stored(new)
        assert len(rows) == info.derived > 0
        assert (rows, terms) == _stored(old)
        assert new.export() == old.export()
        # what explain reads from a stored closure: the views, their premises and bindings, by ref
        views = new.ledger.derived_facts(info).items
        assert views == old.ledger.derived_facts(old.ledger.closure_info(prog.rule_set_hash, AT)).items
        assert any(v.rule == "home" and v.premises for v in views)
        for rule in ("home", "fan", "three", "next"):  # (goal_text writes no string literals)
            v = next(v for v in views if v.rule == rule)
            goal = goal_text(v.predicate.value, v.args, v.negated)
            a, b = old.explain(prog, goal, as_of=AT), new.explain(prog, goal, as_of=AT)
            assert a.proof is not None and a == b, goal
    finally:
        old.close()
        new.close()



def test_a_deadline_while_encoding_stores_a_prefix_without_dangling_premises(tmp_path, monkeypatch):
    """The deadline expires after the first relations are encoded: the stored closure is truncated
    (timeout) and holds exactly those positions, their premises on later positions left out."""
    import holokb.kb as kbmod
    from holokb.core import LimitHit

    prog = analyze(parse_rules(RULES, file="r.hkr"))
    full_kb, cut_kb = _kb(tmp_path, "full"), _kb(tmp_path, "cut")
    try:
        full_kb.derive_and_store(prog, as_of=AT, computed_at=7)
        full, _ = _stored(full_kb)
        calls = {"n": 0}

        def expired(self):
            calls["n"] += 1
            return calls["n"] > 2  # two relations pass, then the reserve is gone

        monkeypatch.setattr(kbmod._Reserve, "expired", expired)
        _, info = cut_kb.derive_and_store(prog, as_of=AT, computed_at=7)
        cut, _ = _stored(cut_kb)
        assert info.truncated and info.limit_hit is LimitHit.TIMEOUT
        assert 0 < len(cut) == info.derived < len(full)
        n = len(cut)
        from holokb.core import DerivedRef

        def dangling(p):
            return isinstance(p, DerivedRef) and p.seq >= n

        for (_, a), (_, b) in zip(full, cut):
            kept = tuple(p for p in a.premises if not dangling(p))
            assert b.premises == kept and b == a.__class__(a.predicate, a.args, a.valid, a.rule, a.depth, a.score,
                                                           a.negated, kept, a.bindings)
        assert any(dangling(p) for _, a in full[:n] for p in a.premises), "the cut drops some premise"
    finally:
        full_kb.close()
        cut_kb.close()


def test_stored_columns_refuse_premises_input_at_did_not_read(tmp_path):
    """A model whose input facts are not in the given row-id map is refused (no premise silently lost)."""
    from holokb.core import HolokbError
    from holokb.engine.encoded import encoded_columns
    from holokb.reasoning import input_at, stored_columns

    prog = analyze(parse_rules(RULES, file="r.hkr"))
    kb = _kb(tmp_path, "rows")
    try:
        db, rows = input_at(kb.ledger, AT, prog)
        model = kb.derive(prog, as_of=AT, record_proofs=True)
        cols = encoded_columns(model)
        assert stored_columns(model, cols, rows).count == model.derived_count()
        with pytest.raises(HolokbError, match="not one input_at read"):
            stored_columns(model, cols, {})
    finally:
        kb.close()
