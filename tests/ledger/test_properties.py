"""Property tests (hypothesis) of the ledger's temporal laws."""
from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from holokb.core import AsOf, Interval, Limits, SpanRecord
from holokb.ledger import Ledger

from ledger_support import fact, iri

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
times = st.integers(min_value=-1000, max_value=1000)


@contextmanager
def fresh_ledger():
    with tempfile.TemporaryDirectory() as d:
        led = Ledger.open(Path(d) / "kb.db")
        try:
            yield led
        finally:
            led.close()


@st.composite
def rectangles(draw):
    vf = draw(times)
    vt = draw(st.one_of(st.none(), st.integers(min_value=vf + 1, max_value=vf + 500)))
    sf = draw(times)
    st_ = draw(st.one_of(st.none(), st.integers(min_value=sf + 1, max_value=sf + 500)))
    return Interval(vf, vt), sf, st_


def _probes(*edges: int | None) -> list[int]:
    pts = {-2000, 2000}
    for e in edges:
        if e is not None:
            pts.update((e - 1, e, e + 1))
    return sorted(pts)


@SETTINGS
@given(rectangles())
def test_a_span_is_visible_exactly_on_its_rectangle(rect):
    valid, sf, st_ = rect
    f = fact("a", "p", "b")
    with fresh_ledger() as led:
        with led.batch(at=sf) as b:
            b.assert_fact(f, valid=valid)
        if st_ is not None:
            with led.batch(at=st_) as b:
                assert b.retract(f) == 1
        system = Interval(sf, st_)
        for s in _probes(sf, st_):
            for v in _probes(valid.start, valid.end):
                seen = len(led.facts(AsOf(s, v), about=iri("a"))) == 1
                assert seen == (system.contains(s) and valid.contains(v)), (s, v)


@SETTINGS
@given(times, st.integers(min_value=1, max_value=500), st.lists(times, min_size=1, max_size=6))
def test_retraction_hides_after_and_keeps_before(t0, gap, queries):
    f = fact("a", "p", "b")
    t1 = t0 + gap
    with fresh_ledger() as led:
        with led.batch(at=t0) as b:
            b.assert_fact(f)
        with led.batch(at=t1) as b:
            b.retract(f)
            assert b.retract(f) == 0
        for q in queries + [t0, t1, t1 - 1]:
            visible = len(led.facts(AsOf(q, 0), about=iri("a"))) == 1
            assert visible == (t0 <= q < t1)


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from("st"), st.sampled_from("xyz"), st.integers(1, 5)), min_size=1, max_size=12))
def test_supersession_leaves_one_open_value_per_statement_key(steps):
    with fresh_ledger() as led:
        with led.batch(at=0) as b:
            b.declare_predicate(iri("loc"), functional=True)
        now, last = 0, {}
        timeline: list[tuple[int, dict]] = []
        for subject, value, dt in steps:
            now += dt
            with led.batch(at=now) as b:
                b.assert_fact(fact(subject, "loc", value))
            last[subject] = value
            timeline.append((now, dict(last)))
            for s in "st":
                open_spans = [h for h in led.history((iri(s), iri("loc"))) if h.system.end is None]
                assert len(open_spans) <= 1
        for t, expected in timeline:
            for s in "st":
                got = led.open_values(iri(s), iri("loc"), AsOf(t, 0))
                assert got == ([iri(expected[s])] if s in expected else [])


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("pq"), st.sampled_from(["x", "y", 1, 2]),
                          st.one_of(st.none(), st.integers(0, 50))), max_size=25))
def test_bulk_load_equals_a_batch_of_asserts(rows):
    records = [SpanRecord(fact(s, p, o), Interval(0, end)) for s, p, o, end in rows if end != 0]
    with fresh_ledger() as one, fresh_ledger() as two:
        with one.batch(at=10) as b:
            for r in records:
                b.assert_fact(r.fact, valid=r.valid)
        two.bulk_assert(records, at=10)
        assert list(one.spans()) == list(two.spans())
        lim = Limits.unbounded()
        assert one.facts(AsOf(10, 5), limits=lim) == two.facts(AsOf(10, 5), limits=lim)
