"""Time: half-open intervals, AsOf, instant parsing and durations."""
import pytest
from hypothesis import given, strategies as st

from holokb.core import MAX_TIME, MIN_TIME, AsOf, Duration, Interval, InvalidValueError, format_ms, parse_duration, parse_instant

ms = st.integers(min_value=-(2**50), max_value=2**50)


def test_interval_is_half_open():
    i = Interval(100, 200)
    assert i.contains(100) and i.contains(199)
    assert not i.contains(200) and not i.contains(99)


def test_open_interval_contains_far_future_but_not_before_start():
    i = Interval(100, None)
    assert i.contains(MAX_TIME - 1) and not i.contains(99)


def test_empty_or_inverted_interval_rejected():
    with pytest.raises(InvalidValueError):
        Interval(5, 5)
    with pytest.raises(InvalidValueError):
        Interval(6, 5)


@given(ms, ms, ms, ms, ms)
def test_intersection_contains_exactly_common_points(a, b, c, d, t):
    i = Interval(min(a, b), max(a, b) + 1)
    j = Interval(min(c, d), max(c, d) + 1)
    k = i.intersect(j)
    both = i.contains(t) and j.contains(t)
    assert (k is not None and k.contains(t)) == both


@given(ms, ms)
def test_intersection_with_open_interval(a, t):
    i = Interval(a, None)
    assert i.intersect(Interval.always()) == i
    assert (i.intersect(Interval(t, t + 1)) is not None) == i.contains(t)


def test_asof_latest_is_a_fixed_sentinel_not_the_clock():
    assert AsOf.latest() == AsOf(MAX_TIME, MAX_TIME)
    assert AsOf.latest() is AsOf.latest()


def test_asof_visibility_rule():
    valid, system = Interval(10, 20), Interval(100, 200)
    assert AsOf(100, 10).sees(valid, system)
    assert not AsOf(200, 10).sees(valid, system)
    assert not AsOf(150, 20).sees(valid, system)
    assert AsOf(150, 19).sees(valid, system)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-01-01", 1767225600000),
        ("2026-01-01T10:00Z", 1767261600000),
        ("2026-01-01T10:00:00Z", 1767261600000),
        ("2026-01-01T11:00:00+01:00", 1767261600000),
        ("2026-01-01T10:00:00.250Z", 1767261600250),
        ("1767261600000", 1767261600000),
        ("latest", MAX_TIME),
    ],
)
def test_parse_instant(text, expected):
    assert parse_instant(text) == expected


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01", "2026-01-01T25:00Z", ""])
def test_parse_instant_rejects_garbage(bad):
    with pytest.raises(InvalidValueError):
        parse_instant(bad)


def test_format_ms_round_trips_through_parse():
    for t in (0, 1767261600000, 1767261600250, -86400000):
        assert parse_instant(format_ms(t)) == t
    assert format_ms(MIN_TIME) == "-inf"


@pytest.mark.parametrize(
    "text, months, millis",
    [("PT15M", 0, 900_000), ("P1D", 0, 86_400_000), ("P1Y2M", 14, 0), ("-PT1S", 0, -1000), ("PT1.5S", 0, 1500)],
)
def test_parse_duration(text, months, millis):
    assert parse_duration(text) == Duration(months, millis)


@pytest.mark.parametrize("bad", ["P", "PT", "15M", "P1H", "PT-5M"])
def test_parse_duration_rejects(bad):
    with pytest.raises(InvalidValueError):
        parse_duration(bad)


@given(st.integers(0, 10**4), st.integers(0, 10**12), st.booleans())
def test_duration_lexical_round_trip(months, millis, neg):
    d = Duration(-months, -millis) if neg else Duration(months, millis)
    if neg and months == 0 and millis == 0:
        return
    assert parse_duration(d.lexical()) == d
