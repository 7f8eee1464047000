"""v8 stored closures (derived facts in array blocks) read exactly as v7's rows did, and a v7 file
migrates to v8 with every closure reading the same: the views in ``derived_facts`` order (filtered
too), the export, the SPARQL snapshot's triples and columns, explanations.  The v7 side is built
from the same closures (``v7_closures.make_v7``) and read with v7's own SQL."""
from __future__ import annotations

import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, assume, given, settings

from holokb.analysis import analyze, render
from holokb.core import IRI, AsOf, Limits
from holokb.kb import KnowledgeBase, derived_records
from holokb.ledger import CURRENT_VERSION
from holokb.ledger.derived_blocks import read_blocks
from holokb.syntax import parse_rules

from random_programs import analysed, facts, goal_text, program_text, turtle
from test_encoded_closure_store import AT, DATA, LOADED, RULES
from _v7_closures import make_v7, v7_encoded_derived, v7_fact_order, v7_triple_ids

T3 = IRI("http://example.org/t3")


def _store_both(kb, prog, *, columns_at, records_at):
    """One closure through the columnar path, one through the record path."""
    kb.derive_and_store(prog, as_of=columns_at, computed_at=7)
    marker = kb.ledger.change_marker()
    model = kb.derive(prog, as_of=records_at, record_proofs=True)
    kb.ledger.store_rule_set(prog.rule_set_hash, render(prog, queries=False))
    kb.ledger.store_closure(rule_set_hash=prog.rule_set_hash, as_of=records_at, computed_at=8,
                            derived=derived_records(model), truncated=model.truncated, limit_hit=model.limit_hit,
                            change_marker=marker)


def _store_hand_made(kb):
    """Closed intervals (one ending at MAX_TIME), arity 0 and 1, negation, scores, literals, a
    ternary fact whose second argument is a literal: the rows the engine's closures above lack."""
    from holokb.core import DerivedRef, Interval, Literal
    from holokb.core.time import MAX_TIME
    from holokb.ledger import DerivedRecord

    ex = "http://example.org/"
    a, b, lit = IRI(ex + "a"), IRI(ex + "b"), Literal.of(7)
    recs = [
        DerivedRecord(IRI(ex + "p"), (a, b), Interval(5, 10), "r1", 1, 0.5),
        DerivedRecord(IRI(ex + "p"), (a, lit), Interval(0, MAX_TIME), "r1", 2, None, premises=(DerivedRef(0),),
                      bindings=(("x", a), ("y", lit))),
        DerivedRecord(IRI(ex + "z"), (), Interval(-3, 4), "r0", 1, 1.0, True),
        DerivedRecord(IRI(ex + "one"), (b,), Interval(LOADED, None), "r2", 3, None, False,
                      (DerivedRef(2), DerivedRef(1)), (("q", b),)),
        DerivedRecord(T3, (a, lit, b), Interval(0, LOADED), "r3", 1, 0.25),
        DerivedRecord(T3, (b, a, lit), Interval.always(), "r3", 1, 0.25, premises=(DerivedRef(4),)),
        DerivedRecord(IRI(ex + "p"), (b, a), Interval(5, 10), "r1", 1, 0.5, True),
        # ties broken by the last keys: args[2:] bytes, then valid_to (open and MAX_TIME alike), position
        DerivedRecord(T3, (a, lit, lit), Interval(0, LOADED), "r3", 1, 0.25),
        DerivedRecord(T3, (a, lit, a), Interval(0, LOADED), "r4", 2),
        DerivedRecord(T3, (a, lit, a, b), Interval(0, LOADED), "r7", 2),  # arity 4 beside arity 3: keys a, ab
        DerivedRecord(T3, (a, lit, b, a), Interval(0, LOADED), "r7", 2),
        DerivedRecord(IRI(ex + "p"), (a, b), Interval(5, None), "r5", 1),
        DerivedRecord(IRI(ex + "p"), (a, b), Interval(5, 7), "r5", 1),
        DerivedRecord(IRI(ex + "p"), (a, b), Interval(5, MAX_TIME), "r6", 1),
        DerivedRecord(IRI(ex + "p"), (a, b), Interval(4, 7), "r6", 1),
    ]
    kb.ledger.store_closure(rule_set_hash="hand", as_of=AsOf(LOADED, LOADED + 7), computed_at=9, derived=recs)


def _filters(led, info):
    """(about, predicate, obj) filters over terms the closure uses, and one it does not."""
    views = led.derived_facts(info).items
    out = [(None, None, None), (IRI("http://example.org/nowhere"), None, None)]
    for v in views[:: max(1, len(views) // 4)]:
        first = v.args[0] if v.args else None
        second = v.args[1] if len(v.args) > 1 else None
        out += [(first, None, None), (None, v.predicate, None), (None, None, second), (first, v.predicate, second)]
    return out


def _reads(kb, goals=()):
    """Everything a v7 and a v8 file must answer alike."""
    led = kb.ledger
    out = {"export": kb.export(), "closures": led.closures()}
    for info in led.closures():
        filt = {f: led.derived_facts(info, about=f[0], predicate=f[1], obj=f[2]).items for f in _filters(led, info)}
        enc = led.encoded_derived(info)
        out[info.id] = (led.stored_closure(info), filt,
                        led.derived_facts(info, limits=Limits(max_results=3)),
                        [led.derived_triple_ids(info, info.as_of.valid, t) for t in (T3, IRI("http://x/none"))],
                        list(zip(*(c.tolist() for c in enc))),
                        led.derived_by_ref(info, [v.ref for v in reversed(filt[(None, None, None)])]))
    return out


def _v7_sql_listings(path, kb_reads, led_ids) -> tuple[list, list]:
    """(what v7's own SQL over the v7 twin lists, what the v8 readers listed), item by item."""
    v7, v8 = [], []
    for cid, (stored, filt, _, triples, enc, _) in ((k, v) for k, v in kb_reads.items() if isinstance(k, int)):
        for (about, pred, obj), views in filt.items():
            ids = [None if t is None else led_ids.get(t, -2) for t in (about, pred, obj)]
            v7.append((cid, about, pred, obj, v7_fact_order(path, cid, *ids)))
            v8.append((cid, about, pred, obj, [v.ref.seq for v in views]))
        info = next(i for i in kb_reads["closures"] if i.id == cid)
        v7.append((cid, [v7_triple_ids(path, cid, info.as_of.valid, led_ids.get(t)) for t in (T3, IRI("http://x/none"))],
                   v7_encoded_derived(path, cid)))
        v8.append((cid, triples, enc))
    return v7, v8


@dataclass(frozen=True)
class Migration:
    """What a file answered before it was rewritten as v7 and after it was opened (and migrated) again."""
    before: tuple  # (_reads, explanations of the goals) of the v8 file
    v7_version: int  # user_version of the rewritten file
    v7_sql: list  # what v7's SQL lists over the v7 file ...
    v8_listed: list  # ... and what the v8 readers listed for the same items
    after: tuple  # (_reads, explanations) of the migrated file
    state: tuple  # (schema version, 'derived' tables left, integrity_check) after the migration


def _migrate(path, prog, goals, as_of) -> Migration:
    with KnowledgeBase.open(path) as kb:
        before = (_reads(kb), [kb.explain(prog, g, as_of=as_of) for g in goals])
        terms = {t: i for t, i in zip(*_terms(kb))}
    make_v7(path)
    with sqlite3.connect(path) as db:
        v7_version = db.execute("PRAGMA user_version").fetchone()[0]
    v7_sql, v8_listed = _v7_sql_listings(path, before[0], terms)
    with KnowledgeBase.open(path) as kb:
        after = (_reads(kb), [kb.explain(prog, g, as_of=as_of) for g in goals])
        db = kb.ledger._db
        state = (kb.ledger.schema_version,
                 db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'derived'").fetchone()[0],
                 db.execute("PRAGMA integrity_check").fetchone()[0])
    return Migration(before, v7_version, v7_sql, v8_listed, after, state)


def _terms(kb):
    rows = kb.ledger._db.execute("SELECT term_id FROM terms ORDER BY term_id").fetchall()
    ids = [r[0] for r in rows]
    kb.ledger._cache.terms_of(kb.ledger._db, ids)
    return [kb.ledger._cache.terms[i] for i in ids], ids


def test_v7_file_migrates_and_reads_alike(tmp_path):
    """Valid time, `not`, minted literals (arithmetic, counts), a ternary head, a rule-file fact."""
    prog = analyze(parse_rules(RULES, file="r.hkr"))
    data = tmp_path / "data.trig"
    data.write_text(DATA)
    path = tmp_path / "kb.db"
    with KnowledgeBase.open(path) as kb:
        kb.load([data], at=LOADED)
        _store_both(kb, prog, columns_at=AT, records_at=AsOf.latest())
        views = kb.ledger.derived_facts(kb.ledger.closure_info(prog.rule_set_hash, AT)).items
        goals = [goal_text(v.predicate.value, v.args, v.negated)
                 for rule in ("home", "fan", "three", "next", "step") for v in views if v.rule == rule][::2]
        assert any(len(v.args) == 3 for v in views)
        _store_hand_made(kb)
    m = _migrate(path, prog, goals, AT)
    assert m.v7_version == 7
    assert m.v7_sql == m.v8_listed
    assert m.after == m.before
    assert m.state == (CURRENT_VERSION, 0, "ok")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program_text(), facts())
def test_random_closures_read_alike_from_v7_and_v8(text, rows):
    program = analysed(text)
    assume(rows)
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "a.ttl"
        f.write_text(turtle(rows))
        path = Path(d) / "kb.db"
        with KnowledgeBase.open(path) as kb:
            kb.load([f], at=LOADED)
            _store_both(kb, program, columns_at=AsOf.latest(), records_at=AsOf(LOADED + 1, LOADED))
            info = kb.ledger.closure_info(program.rule_set_hash, AsOf.latest())
            goals = [goal_text(v.predicate.value, v.args, v.negated) for v in kb.ledger.derived_facts(info).items][:4]
        m = _migrate(path, program, goals, AsOf.latest())
    assert m.v7_version == 7
    assert m.v7_sql == m.v8_listed
    assert m.after == m.before
    assert m.state == (CURRENT_VERSION, 0, "ok")


def test_blocks_are_little_endian_arrays(tmp_path):
    """The blobs are explicit little-endian int64 / float64, whatever the machine."""
    prog = analyze(parse_rules(RULES, file="r.hkr"))
    data = tmp_path / "data.trig"
    data.write_text(DATA)
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        kb.load([data], at=LOADED)
        _, info = kb.derive_and_store(prog, as_of=AT, computed_at=7)
        db = kb.ledger._db
        raw = db.execute("SELECT n, arity, seq, args, score FROM derived_blocks WHERE closure_id = ? ORDER BY block",
                         (info.id,)).fetchall()
        blocks = read_blocks(db, info.id)
        assert sum(r[0] for r in raw) == info.derived == len(blocks and np.concatenate([b.seq for b in blocks]))
        for (n, arity, seq, args, score), b in zip(raw, blocks):
            assert np.frombuffer(seq, dtype="<i8").tolist() == b.seq.tolist()
            assert np.frombuffer(args, dtype="<i8").reshape(n, arity).tolist() == b.args.tolist()
            assert seq == np.asarray(b.seq, dtype=">i8").byteswap().tobytes()  # not the native order by accident
            assert len(score) == 8 * n
