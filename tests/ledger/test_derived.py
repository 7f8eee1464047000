"""Stored closures: round trip with proofs, staleness, replacement, migration, isolation, confidences."""
from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from holokb.core import MAX_TIME, AssertedRef, AsOf, DerivedRef, Evidence, Interval, InvalidValueError, LedgerError, Limits, Literal, SpanRecord
from holokb.ledger import CURRENT_VERSION, DerivedRecord, Ledger, schema
from holokb.ledger.views import span_hash
from holokb.rdf.export import export_ledger, ledger_trig

from ledger_support import dump, fact, iri

AS_OF = AsOf(1000, 500)
KNOWS = fact("alice", "knows", "bob")
KNOWS2 = fact("bob", "knows", "carol")


def _seed(led: Ledger) -> None:
    with led.batch(at=100) as b:
        b.assert_fact(KNOWS, valid=Interval(0, 900), evidence=[Evidence("d1", confidence=0.4)])
        b.assert_fact(KNOWS2, evidence=[Evidence("d1", confidence=0.9), Evidence("d2", confidence=0.6)])


def _closure() -> list[DerivedRecord]:
    """A small closure: two rule steps (the second cites the first), a ternary and a negated fact."""
    a, b, c = iri("alice"), iri("bob"), iri("carol")
    return [
        DerivedRecord(iri("reach"), (a, b), Interval(0, 900), "base", 1, 0.36, premises=(AssertedRef(KNOWS.id),),
                      bindings=(("x", a), ("y", b))),
        DerivedRecord(iri("reach"), (a, c), Interval(0, 900), "step", 2, 0.2,
                      premises=(DerivedRef(0), AssertedRef(KNOWS2.id)), bindings=(("x", a), ("y", b), ("z", c))),
        DerivedRecord(iri("between"), (b, a, Literal.of(3)), Interval(5, 6), "tri", 1, None,
                      premises=(AssertedRef(KNOWS.id),), bindings=(("n", Literal.of(3)),)),
        DerivedRecord(iri("reach"), (c, a), negated=True, rule="neg", depth=1, score=0.5),
    ]


def _key(v) -> tuple:
    return (v.predicate, v.args, v.negated, v.valid, v.rule, v.depth, v.score, v.bindings)


def test_round_trip_with_proofs(ledger):
    _seed(ledger)
    info = ledger.store_closure(rule_set_hash="rules-1", as_of=AS_OF, computed_at=2000, derived=_closure(),
                                truncated=True, limit_hit="max_derived")
    assert (info.rule_set_hash, info.as_of, info.computed_at, info.truncated, info.limit_hit) == (
        "rules-1", AS_OF, 2000, True, "max_derived")
    assert (info.derived, info.binary, info.stale) == (4, 2, False)
    assert info.rule_counts == (("base", 1), ("neg", 1), ("step", 1), ("tri", 1))
    assert ledger.closure_info("rules-1", AS_OF) == info

    views = ledger.derived_facts(info)
    # Sort key: predicate IRI, negated, args by object key, valid_from, valid_to, position.
    assert [(v.predicate, v.args, v.negated) for v in views] == [
        (iri("between"), (iri("bob"), iri("alice"), Literal.of(3)), False),
        (iri("reach"), (iri("alice"), iri("bob")), False),
        (iri("reach"), (iri("alice"), iri("carol")), False),
        (iri("reach"), (iri("carol"), iri("alice")), True),
    ]
    by_rule = {v.rule: v for v in views}
    step = by_rule["step"]
    assert step.premises == (DerivedRef(0), AssertedRef(KNOWS2.id))
    assert step.bindings == (("x", iri("alice")), ("y", iri("bob")), ("z", iri("carol")))
    assert (step.valid, step.depth, step.score) == (Interval(0, 900), 2, 0.2)
    assert by_rule["tri"].score is None and by_rule["tri"].valid == Interval(5, 6)
    assert by_rule["neg"].valid == Interval.always() and by_rule["neg"].premises == ()
    # Walking the proof: the derived premise resolves to the base step, which ends at an asserted fact.
    (base,) = ledger.derived_by_ref(info, [step.premises[0]])
    assert (base.rule, base.args, base.premises) == ("base", (iri("alice"), iri("bob")), (AssertedRef(KNOWS.id),))
    refs = [DerivedRef(3), DerivedRef(0), DerivedRef(3)]
    assert [v.ref for v in ledger.derived_by_ref(info, refs)] == refs
    with pytest.raises(LedgerError, match="d:9"):
        ledger.derived_by_ref(info, [DerivedRef(9)])


def test_order_does_not_depend_on_input_order(tmp_path):
    pages = []
    for name, recs in (("a.db", _closure()), ("b.db", _closure()[::-1])):
        with Ledger.open(tmp_path / name) as led:
            _seed(led)
            # Reversed input: premise refs must follow the positions.
            if name == "b.db":
                recs = [r if r.rule != "step" else DerivedRecord(
                    r.predicate, r.args, r.valid, r.rule, r.depth, r.score, r.negated,
                    (DerivedRef(3), AssertedRef(KNOWS2.id)), r.bindings)
                    for r in recs]
            info = led.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=1, derived=recs)
            pages.append([_key(v) for v in led.derived_facts(info)])
            step = led.derived_facts(info, predicate=iri("reach"), obj=iri("carol"))[0]
            assert led.derived_by_ref(info, [step.premises[0]])[0].rule == "base"
    assert pages[0] == pages[1]


def test_filters_and_limits(ledger):
    _seed(ledger)
    info = ledger.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=1, derived=_closure())
    assert [v.rule for v in ledger.derived_facts(info, about=iri("alice"))] == ["base", "step"]
    assert [v.rule for v in ledger.derived_facts(info, obj=iri("alice"))] == ["tri", "neg"]
    assert [v.rule for v in ledger.derived_facts(info, about=iri("alice"), obj=iri("carol"))] == ["step"]
    assert [v.rule for v in ledger.derived_facts(info, predicate=iri("between"))] == ["tri"]
    assert ledger.derived_facts(info, about=iri("nobody")).items == ()
    page = ledger.derived_facts(info, limits=Limits(max_results=2))
    assert (len(page), page.truncated, page.limit_hit) == (2, True, "max_results")
    assert [v.rule for v in page] == ["tri", "base"]
    full = ledger.derived_facts(info, limits=Limits(max_results=4))
    assert (len(full), full.truncated) == (4, False)
    timed = ledger.derived_facts(info, limits=Limits(timeout_s=0.0))
    assert (timed.truncated, timed.limit_hit) == (True, "timeout")


def test_encoded_derived_is_affirmed_binary_sorted(ledger):
    _seed(ledger)
    info = ledger.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=1, derived=_closure()[::-1] + [
        DerivedRecord(iri("reach"), (iri("alice"), iri("bob")), Interval(950, None), "late")])
    enc = ledger.encoded_derived(info)
    rows = list(zip(*(col.tolist() for col in enc)))
    assert rows == sorted(rows) and len(rows) == 3
    decoded = [(ledger.term(s), ledger.term(p), ledger.term(o), vf, vt) for s, p, o, vf, vt in rows]
    assert set(decoded) == {
        (iri("alice"), iri("reach"), iri("bob"), 0, 900),
        (iri("alice"), iri("reach"), iri("bob"), 950, MAX_TIME),
        (iri("alice"), iri("reach"), iri("carol"), 0, 900),
    }
    assert all(col.dtype == np.int64 for col in enc)


def test_change_marker_counts_committed_changing_writes(ledger):
    assert ledger.change_marker() == 0
    _seed(ledger)
    assert ledger.change_marker() == 1
    with pytest.raises(RuntimeError):
        with ledger.batch(at=200) as b:
            b.assert_fact(fact("x", "p", "y"))
            raise RuntimeError("rolled back")
    assert ledger.change_marker() == 1
    with ledger.batch(at=300) as b:  # re-asserting an open fact with the same evidence changes no row
        b.assert_fact(KNOWS2, evidence=[Evidence("d1", confidence=0.9, asserted_at=100)])
    with ledger.batch(at=300):
        pass
    assert ledger.change_marker() == 1
    ledger.bulk_assert([SpanRecord(fact("x", "p", "y")), SpanRecord(fact("x", "p", "z"))], at=400)
    assert ledger.change_marker() == 2
    with ledger.batch(at=500) as b:
        b.retract(KNOWS2)
    assert ledger.change_marker() == 3


def test_new_batch_makes_a_stored_closure_stale_but_a_rolled_back_one_does_not(ledger, db_path):
    _seed(ledger)
    info = ledger.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=1, derived=_closure())
    assert ledger.change_marker() == info.change_marker == 1  # storing a closure is not a ledger change
    with pytest.raises(RuntimeError):
        with ledger.batch(at=200) as b:
            b.assert_fact(fact("x", "p", "y"))
            raise RuntimeError
    assert ledger.closure_info("h", AS_OF).stale is False
    with ledger.batch(at=200) as b:
        b.assert_fact(fact("x", "p", "y"))
    assert ledger.closure_info("h", AS_OF).stale is True
    assert [c.stale for c in ledger.closures()] == [True]
    with Ledger.open(db_path) as other:  # another connection sees the same marker
        assert other.closure_info("h", AS_OF).stale is True
    # Recomputing and storing again makes it fresh.
    fresh = ledger.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=2, derived=_closure())
    assert (fresh.stale, fresh.change_marker) == (False, 2)


def test_marker_read_before_computing_keeps_a_racing_write_visible(ledger):
    _seed(ledger)
    marker = ledger.change_marker()
    with ledger.batch(at=200) as b:  # a write lands while the closure is being computed
        b.assert_fact(fact("x", "p", "y"))
    info = ledger.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=1, derived=_closure(),
                                change_marker=marker)
    assert info.stale and ledger.closure_info("h", AS_OF).stale
    with pytest.raises(InvalidValueError, match="change_marker"):
        ledger.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=1, derived=(), change_marker=99)


def test_replacement_and_coexistence(ledger):
    _seed(ledger)
    old = ledger.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=1, derived=_closure())
    other_time = ledger.store_closure(rule_set_hash="h", as_of=AsOf.latest(), computed_at=1, derived=_closure()[:1])
    other_rules = ledger.store_closure(rule_set_hash="g", as_of=AS_OF, computed_at=1, derived=())
    new = ledger.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=7, derived=_closure()[:2])
    assert new.id not in (old.id, other_time.id, other_rules.id)
    assert ledger.closure_info("h", AS_OF) == new
    assert [(c.rule_set_hash, c.as_of, c.derived) for c in ledger.closures()] == [
        ("g", AS_OF, 0), ("h", AS_OF, 2), ("h", AsOf.latest(), 1)]
    assert [v.rule for v in ledger.derived_facts(new)] == ["base", "step"]
    with pytest.raises(LedgerError, match="no longer stored"):
        ledger.derived_facts(old)
    n_rows = ledger._db.execute("SELECT coalesce(sum(n), 0) FROM derived_blocks").fetchone()[0]
    assert n_rows == 3  # the replaced closure's rows went with it (ON DELETE CASCADE)
    assert ledger.delete_closure(other_time) is True and ledger.delete_closure(other_time) is False
    assert ledger._db.execute("SELECT coalesce(sum(n), 0) FROM derived_blocks").fetchone()[0] == 2
    assert ledger.closure_info("h", AsOf.latest()) is None


@pytest.mark.parametrize("bad", ["unknown premise", "dangling ref", "bad ref", "nan score", "not a record"])
def test_rejected_closure_changes_nothing(ledger, db_path, bad):
    _seed(ledger)
    ledger.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=1, derived=_closure())
    before = dump(db_path)
    recs: list = _closure()
    if bad == "unknown premise":
        recs.append(DerivedRecord(iri("q"), (iri("a"),), premises=(AssertedRef(fact("no", "such", "fact").id),)))
    elif bad == "dangling ref":
        recs.append(DerivedRecord(iri("q"), (iri("new-term"),), premises=(DerivedRef(17),)))
    elif bad == "bad ref":
        recs.append(DerivedRecord(iri("q"), (iri("a"),), premises=("d:x",)))
    elif bad == "nan score":
        recs.append(DerivedRecord(iri("q"), (iri("a"),), score=float("nan")))
    else:
        recs.append(KNOWS)
    with pytest.raises((LedgerError, InvalidValueError)):
        ledger.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=9, derived=recs)
    assert dump(db_path) == before
    assert ledger.closure_info("h", AS_OF).computed_at == 1
    assert ledger.term_ids([iri("new-term")]) == [None]


def test_derived_facts_never_leak_into_asserted_reads(ledger):
    _seed(ledger)
    as_of = AsOf(1000, 5)
    before = (ledger.facts(as_of), list(ledger.visible(as_of)), ledger.encoded_visible(as_of).fact_ids,
              list(ledger.spans()), ledger_trig(ledger.spans()), ledger.stats()["facts"], ledger.stats()["spans"])
    recs = _closure() + [DerivedRecord(iri("knows"), (iri("carol"), iri("alice")), premises=(AssertedRef(KNOWS2.id),))]
    info = ledger.store_closure(rule_set_hash="h", as_of=as_of, computed_at=1, derived=recs)
    assert len(ledger.derived_facts(info, predicate=iri("knows"))) == 1
    after = (ledger.facts(as_of), list(ledger.visible(as_of)), ledger.encoded_visible(as_of).fact_ids,
             list(ledger.spans()), ledger_trig(ledger.spans()), ledger.stats()["facts"], ledger.stats()["spans"])
    assert after == before
    # the full export carries the closure apart from the asserted history (issue 8: exports include
    # stored closures as derived facts with their proofs), never as a span or in hk:current
    full = export_ledger(ledger)
    assert full.startswith(before[4].split("\n\n<https://w3id.org/holokb/current>")[0][:200])
    assert "a hk:Closure" in full and "a hk:Derived" in full
    assert ledger.facts(as_of, about=iri("carol"), predicate=iri("knows")).items == ()
    assert ledger.history((iri("carol"), iri("knows"))).items == ()


def test_confidences(ledger):
    _seed(ledger)
    with ledger.batch(at=200) as b:  # a second span of KNOWS (other valid time) with higher evidence
        b.assert_fact(KNOWS, valid=Interval(900, None), evidence=[Evidence("d3", confidence=0.7)])
        b.assert_fact(fact("x", "p", "y"))  # no evidence
    ids = [KNOWS2.id, KNOWS.id, fact("x", "p", "y").id, fact("never", "p", "seen").id, KNOWS.id.upper()]
    got = ledger.confidences(ids)
    assert got.dtype == np.float64
    assert got.tolist() == [0.9, 0.7, 1.0, 1.0, 0.7]
    assert ledger.confidences([]).shape == (0,)
    with ledger.batch(at=300) as b:  # also usable inside a write transaction
        b.assert_fact(fact("x", "p", "z"), evidence=[Evidence("d4", confidence=0.25)])
        assert ledger.confidences([fact("x", "p", "z").id]).tolist() == [0.25]
    assert ledger.confidences([fact("x", "p", "z").id]).tolist() == [0.25]
    with pytest.raises(InvalidValueError, match="64 hex"):
        ledger.confidences(["abc"])


def test_confidences_of_many_ids_in_one_call(ledger):
    recs = [SpanRecord(fact(f"s{i}", "p", f"o{i}"), evidence=(Evidence("d", confidence=(i % 7) / 7),) if i % 3 else ())
            for i in range(3000)]
    ledger.bulk_assert(recs, at=10)
    ids = [r.fact.id for r in recs][::-1]
    want = [1.0 if i % 3 == 0 else (i % 7) / 7 for i in range(3000)][::-1]
    assert ledger.confidences(ids).tolist() == want


def _make_v2(path) -> None:
    """A v2 file (v2 DDL only) with two facts, evidence and a document, written as v2 wrote rows."""
    from holokb.core import encode_term
    from holokb.ledger.views import evidence_hash, span_hash

    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA foreign_keys = ON")
    assert schema.upgrade(db, to_version=2) == 2
    db.execute("BEGIN IMMEDIATE")
    ids: dict = {}
    for f in (KNOWS, KNOWS2):
        for t in (f.subject, f.predicate, f.object):
            if t not in ids:
                ids[t] = len(ids) + 1
                db.execute("INSERT INTO terms(term_id, kind, lexical, canon) VALUES (?, 0, ?, ?)",
                           (ids[t], t.value, encode_term(t)))
    for fid, (f, valid, conf) in enumerate(((KNOWS, Interval(0, 900), 0.4), (KNOWS2, Interval.always(), 0.9)), 1):
        fh = bytes.fromhex(f.id)
        db.execute("INSERT INTO facts(fact_id, hash, s, p, o, nq, polarity) VALUES (?, ?, ?, ?, ?, 0, 1)",
                   (fid, fh, ids[f.subject], ids[f.predicate], ids[f.object]))
        sh = span_hash(fh, valid, 100)
        db.execute("INSERT INTO spans(sid, span_id, fact_id, valid_from, valid_to, system_from) "
                   "VALUES (?, ?, ?, ?, ?, 100)", (fid, sh, fid, valid.start, valid.end))
        ev = Evidence("d1", confidence=conf, asserted_at=100)
        db.execute("INSERT INTO evidence(sid, ev_hash, document, extractor, extractor_version, confidence, "
                   "asserted_at) VALUES (?, ?, 'd1', 'manual', '0', ?, 100)", (fid, evidence_hash(sh, ev), conf))
    db.execute("INSERT INTO documents(doc_id, text) VALUES ('d1', 'alice knows bob')")
    db.execute("INSERT INTO chunks(doc_id, chunk_id, char_start, char_end, text) VALUES ('d1', 'c', 0, 5, 'alice')")
    db.execute("COMMIT")
    db.close()


def test_migration_v2_to_v3_keeps_data(db_path):
    _make_v2(db_path)
    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert db.execute("SELECT count(*) FROM sqlite_master WHERE name IN ('meta', 'closures', 'derived')"
                      ).fetchone()[0] == 0
    db.close()
    before = [line for line in dump(db_path) if line.startswith('INSERT INTO "evidence"')]
    with Ledger.open(db_path) as led:
        assert led.schema_version == CURRENT_VERSION >= 3
        assert led.change_marker() == 0
        assert [v.fact for v in led.facts(AS_OF)] == [KNOWS, KNOWS2]
        assert led.confidences([KNOWS.id]).tolist() == [0.4]
        assert led.chunk_text("d1", "c") == "alice"
        info = led.store_closure(rule_set_hash="h", as_of=AS_OF, computed_at=1, derived=_closure())
        assert len(led.derived_facts(info)) == 4
        with led.batch(at=300) as b:
            b.assert_fact(fact("x", "p", "y"))
        assert led.change_marker() == 1 and led.closure_info("h", AS_OF).stale
    after = dump(db_path)
    assert before and all(line in after for line in before)
    with Ledger.open(db_path) as led:  # span ids (no longer stored, v6) are the ones v2 minted
        assert [v.span_id for v in led.facts(AS_OF) if v.fact in (KNOWS, KNOWS2)] == [
            span_hash(bytes.fromhex(KNOWS.id), Interval(0, 900), 100).hex(),
            span_hash(bytes.fromhex(KNOWS2.id), Interval.always(), 100).hex()]
    with Ledger.open(db_path) as led:  # reopening does not migrate again
        assert led.schema_version == CURRENT_VERSION and led.change_marker() == 1 and len(led.closures()) == 1


def test_large_writes_are_stored_in_several_blocks(ledger, db_path, monkeypatch):
    from holokb.ledger import derived as derived_mod
    monkeypatch.setattr(derived_mod, "_CHUNK", 3)
    _seed(ledger)
    small = ledger.store_closure(rule_set_hash="small", as_of=AS_OF, computed_at=1, derived=_closure()[:1])
    big = [DerivedRecord(iri("reach"), (iri(f"n{i}"), iri(f"n{i + 1}")), rule="chain") for i in range(10)]
    info = ledger.store_closure(rule_set_hash="big", as_of=AS_OF, computed_at=1, derived=big)
    blocks = ledger._db.execute("SELECT block, n FROM derived_blocks WHERE closure_id = ? ORDER BY block",
                                (info.id,)).fetchall()
    assert blocks == [(0, 3), (1, 3), (2, 3), (3, 1)]  # one block a chunk of 3 rows
    assert [v.args for v in ledger.derived_facts(info, obj=iri("n5"))] == [(iri("n4"), iri("n5"))]
    assert [r.args for r in ledger.stored_closure(info).derived] == [r.args for r in big]
    assert ledger._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    before = dump(db_path)
    with pytest.raises(LedgerError):  # a rejected large store leaves the file as it was
        ledger.store_closure(rule_set_hash="big", as_of=AS_OF, computed_at=2,
                             derived=big + [DerivedRecord(iri("q"), (), premises=(DerivedRef(99),))])
    assert dump(db_path) == before
    assert ledger.delete_closure(info)
    assert ledger._db.execute("SELECT count(*) FROM derived_blocks WHERE closure_id = ?", (info.id,)).fetchone() == (0,)
    assert [v.rule for v in ledger.derived_facts(small, about=iri("alice"))] == ["base"]


def test_rule_sets_are_kept_by_hash_and_a_different_text_is_refused(tmp_path):
    with Ledger.open(tmp_path / "rs.db") as led:
        assert led.rule_set("h1") is None
        led.store_rule_set("h1", "rule r: ex:a(?x) :- ex:b(?x).")
        led.store_rule_set("h1", "rule r: ex:a(?x) :- ex:b(?x).")  # idempotent
        assert led.rule_set("h1") == "rule r: ex:a(?x) :- ex:b(?x)."
        marker = led.change_marker()
        with pytest.raises(LedgerError):
            led.store_rule_set("h1", "something else")
        assert led.rule_set("h1") == "rule r: ex:a(?x) :- ex:b(?x)." and led.change_marker() == marker
