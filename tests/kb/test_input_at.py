"""``reasoning.input_at`` reads the engine's input as id columns (``Ledger.recorded_facts``, fact hashes
read only when a key is decoded): it holds the same input as the reference built from
``encoded_visible(all_valid=True)`` and ``confidences`` (the rows, decoded, with their keys, intervals
and confidences, in the same order; the same row ids) — on random ledgers with valid intervals,
retractions, supersession, evidence, negated and qualified facts, read at random system times."""
from __future__ import annotations

from contextlib import suppress

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from holokb.core import AssertedRef, HolokbError, AsOf, Evidence, Fact, Interval, IRI, Literal
from holokb.engine import Database, TermDictionary
from holokb.ledger import Ledger
from holokb.reasoning import TRIPLE, input_at

EX = "http://example.org/"
NODES = [IRI(EX + n) for n in "abcd"] + [Literal("x"), Literal.of(2)]
PREDS = [IRI(EX + p) for p in ("p", "q")]

_op = st.tuples(
    st.sampled_from(["assert", "assert", "supersede", "retract", "negate", "qualified"]),
    st.sampled_from(NODES[:4]), st.sampled_from(PREDS), st.sampled_from(NODES),
    st.one_of(st.none(), st.integers(0, 30)), st.one_of(st.none(), st.integers(1, 20)),
    st.one_of(st.none(), st.sampled_from([0.25, 0.5, 0.9])))


def _reference(ledger: Ledger, as_of: AsOf) -> tuple[Database, dict[str, int]]:
    """The input as input_at built it from ``encoded_visible`` (before ``recorded_facts``)."""
    enc = ledger.encoded_visible(as_of, all_valid=True)
    db = Database(TermDictionary())
    if len(enc) == 0:
        return db, {}
    used = sorted(set(np.concatenate([enc.s, enc.p, enc.o]).tolist()))
    for tid, t in zip(used, ledger.terms(used)):
        db.terms.seed(t, tid)
    keys = [AssertedRef(f) for f in enc.fact_ids]
    conf = ledger.confidences(enc.fact_ids)
    for pid in sorted(set(enc.p.tolist())):
        m = enc.p == pid
        db.add_ids(ledger.term(pid).value, [enc.s[m], enc.o[m]], valid_from=enc.valid_from[m],
                   valid_to=enc.valid_to[m], confidence=conf[m], keys=[k for k, x in zip(keys, m) if x])
    db.add_ids(TRIPLE, [enc.s, enc.p, enc.o], valid_from=enc.valid_from, valid_to=enc.valid_to,
               confidence=conf, keys=keys)
    return db, dict(zip(enc.fact_ids, enc.rowids.tolist()))


class _Program:
    """What input_at reads of a program: the predicates it mentions (here all of them)."""

    facts = rules = constraints = queries = ()


def _all_rows(db: Database) -> list:
    return [(rk, args, valid, key, conf) for rk, args, valid, key, conf in db.rows()]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(_op, max_size=14), when=st.integers(0, 20))
@example(ops=[("assert", NODES[0], PREDS[0], NODES[1], 0, 30, None), ("assert", NODES[0], PREDS[0], NODES[1], 5, 5, 0.5),
              ("assert", NODES[0], PREDS[0], NODES[4], None, None, 0.9), ("retract", NODES[0], PREDS[0], NODES[4], None, None, None),
              ("assert", NODES[1], PREDS[1], NODES[5], 3, None, None)], when=3)
def test_input_at_equals_the_encoded_visible_input(monkeypatch, ops, when):
    import holokb.reasoning as reasoning

    # fact hashes are read one by one for the first two keys decoded, then all at once
    monkeypatch.setattr("holokb.ledger.derived_input._SINGLE_LOOKUPS", 2)
    monkeypatch.setattr(reasoning, "mentioned_predicates", lambda program: {p.value for p in PREDS} | {TRIPLE})
    with Ledger.open(":memory:") as ledger:
        for k, (op, s, p, o, start, length, conf) in enumerate(ops):
            valid = Interval.always() if start is None else Interval(start, None if length is None else start + length)
            ev = () if conf is None else (Evidence("doc", confidence=conf),)
            with suppress(HolokbError), ledger.batch(at=k + 1) as b:  # a refused write changes nothing
                if op == "assert":
                    b.assert_fact(Fact(s, p, o), valid=valid, evidence=ev)
                elif op == "supersede":
                    b.supersede(Fact(s, p, o), valid=valid, evidence=ev)
                elif op == "retract":  # never asserted, or still open: refused, the ledger unchanged
                    b.retract(Fact(s, p, o))
                elif op == "negate":
                    b.assert_fact(Fact(s, p, o, polarity="negate"), valid=valid)
                else:
                    b.assert_fact(Fact(s, p, o, (("graph", NODES[0]),)), valid=valid)
        for system in sorted({when, len(ops), len(ops) + 1}):
            as_of = AsOf(system, 5)
            db, rows = input_at(ledger, as_of, _Program())
            ref, ref_rows = _reference(ledger, as_of)
            got = _all_rows(db)
            assert got == _all_rows(ref)
            assert dict(rows) == ref_rows
            # the encoded input is the same ids in the same rows, keys decoding to the same facts
            enc, ref_enc = db.encode(), ref.encode()
            assert sorted(enc) == sorted(ref_enc)
            for rk in enc:
                a, r = enc[rk].relation, ref_enc[rk].relation
                assert a.arity == r.arity and all(np.array_equal(a.col(c), r.col(c)) for c in range(a.arity))
                assert all(np.array_equal(a.meta(m), r.meta(m)) for m in ("valid_from", "valid_to"))
                assert list(enc[rk].keys) == list(ref_enc[rk].keys)


def test_input_keys_outlive_the_ledger_only_where_read_at_once(tmp_path):
    """database_at's models (ask, check, derive) may outlive the open ledger: their input keys are read
    with the input.  input_at's (derive_and_store) read a key's fact id when decoded: after the ledger is
    closed that is a LedgerError, never a wrong or missing key."""
    from holokb.core import LedgerError
    from holokb.engine import closure
    from holokb.reasoning import database_at, load_program

    rules = tmp_path / "r.hkr"
    rules.write_text(f"@prefix ex: <{EX}> .\nrule r: ex:q(?x, ?y) :- ex:p(?x, ?y).\n")
    program = load_program([rules])
    ledger = Ledger.open(str(tmp_path / "kb.db"))
    fact = Fact(NODES[0], PREDS[0], NODES[1])
    with ledger.batch(at=1) as b:
        b.assert_fact(fact)
    eager = closure(program, database_at(ledger, AsOf(2, 0), program), record_proofs=True)
    lazy_db, _ = input_at(ledger, AsOf(2, 0), program)
    lazy = closure(program, lazy_db, record_proofs=True)
    ledger.close()
    (step,) = eager.proof_steps()
    assert step.premises == (AssertedRef(fact.id),)
    with pytest.raises(LedgerError, match="closed"):
        lazy.proof_steps()
