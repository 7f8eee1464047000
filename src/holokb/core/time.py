"""Time: unix milliseconds, half-open intervals, and the two-axis ``AsOf``.

There is no implicit "now" anywhere below the CLI: every read takes an explicit
:class:`AsOf`, and ``AsOf.latest()`` is a fixed sentinel, never the wall clock.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from .errors import InvalidValueError

#: Smallest and largest representable instants (SQLite INTEGER range).
MIN_TIME = -(2**63)
MAX_TIME = 2**63 - 1

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True, slots=True, order=True)
class Interval:
    """A half-open interval ``[start, end)`` of unix ms; ``end=None`` means open (+inf).

    >>> Interval(0, 10).contains(0), Interval(0, 10).contains(10)
    (True, False)
    """

    start: int = MIN_TIME
    end: int | None = None

    def __post_init__(self) -> None:
        if self.end is not None and self.end <= self.start:
            raise InvalidValueError(f"empty or inverted interval [{_shown(self.start)}, {_shown(self.end)})")

    @staticmethod
    def always() -> "Interval":
        """``[MIN_TIME, open)``: one shared instance (intervals are immutable), so a hot loop can
        test identity before it compares fields."""
        return _ALWAYS

    def contains(self, t: int) -> bool:
        return self.start <= t and (self.end is None or t < self.end)

    def intersect(self, other: "Interval") -> "Interval | None":
        """The intersection, or ``None`` when it is empty."""
        start = max(self.start, other.start)
        if self.end is None:
            end = other.end
        elif other.end is None:
            end = self.end
        else:
            end = min(self.end, other.end)
        if end is not None and end <= start:
            return None
        return Interval(start, end)

    @property
    def is_open(self) -> bool:
        return self.end is None

    def __str__(self) -> str:
        a = "-inf" if self.start == MIN_TIME else format_ms(self.start)
        b = "+inf" if self.end is None else format_ms(self.end)
        return f"[{a}, {b})"


_ALWAYS = Interval(MIN_TIME, None)


@dataclass(frozen=True, slots=True)
class AsOf:
    """A point on both time axes: what the KB had recorded at ``system`` about the world at ``valid``.

    >>> AsOf.at(parse_instant("2026-01-01T10:00Z")).valid
    1767261600000
    """

    system: int
    valid: int

    @staticmethod
    def latest() -> "AsOf":
        """Everything recorded, as true at the open end of valid time (a fixed sentinel)."""
        return _LATEST

    @staticmethod
    def at(ms: int) -> "AsOf":
        """Both axes at the same instant."""
        return AsOf(ms, ms)

    def sees(self, valid: Interval, system: Interval) -> bool:
        """The visibility rule of design.md §3."""
        return system.contains(self.system) and valid.contains(self.valid)

    def __str__(self) -> str:
        s = "latest" if self.system == MAX_TIME else format_ms(self.system)
        v = "latest" if self.valid == MAX_TIME else format_ms(self.valid)
        return f"AsOf(system={s}, valid={v})"


_LATEST = AsOf(MAX_TIME, MAX_TIME)


@dataclass(frozen=True, slots=True, order=True)
class Duration:
    """An xsd:duration as (months, milliseconds); day-time durations have ``months == 0``."""

    months: int = 0
    ms: int = 0

    def lexical(self) -> str:
        if self.months == 0 and self.ms == 0:
            return "PT0S"
        neg = (self.months < 0) or (self.months == 0 and self.ms < 0)
        months, ms = abs(self.months), abs(self.ms)
        y, mo = divmod(months, 12)
        d, rem = divmod(ms, 86_400_000)
        h, rem = divmod(rem, 3_600_000)
        mi, rem = divmod(rem, 60_000)
        s, milli = divmod(rem, 1000)
        out = "-P" if neg else "P"
        out += (f"{y}Y" if y else "") + (f"{mo}M" if mo else "") + (f"{d}D" if d else "")
        if h or mi or s or milli:
            out += "T" + (f"{h}H" if h else "") + (f"{mi}M" if mi else "")
            if s or milli:
                out += f"{s}.{milli:03d}".rstrip("0").rstrip(".") + "S"
        return out


_DUR = re.compile(
    r"^(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$"
)


def parse_duration(s: str) -> Duration:
    """Parse an xsd:duration lexical form such as ``PT15M`` or ``P1Y2M3DT4H``."""
    m = _DUR.match(s)
    if not m or s in ("P", "-P") or s.endswith("T"):
        raise InvalidValueError(f"not an xsd:duration: {s!r}")
    neg, y, mo, d, h, mi, sec = m.groups()
    months = int(y or 0) * 12 + int(mo or 0)
    ms = (int(d or 0) * 86400 + int(h or 0) * 3600 + int(mi or 0) * 60) * 1000
    if sec:
        whole, _, frac = sec.partition(".")
        ms += int(whole) * 1000 + int((frac + "000")[:3])
    return Duration(-months, -ms) if neg else Duration(months, ms)


def _to_ms(dt: datetime) -> int:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    delta = dt - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000


def parse_datetime_ms(s: str) -> int:
    """xsd:dateTime → unix ms (no timezone ⇒ UTC)."""
    t = s.strip()
    if t.endswith("Z") or t.endswith("z"):
        t = t[:-1] + "+00:00"
    if "T" not in t:
        raise InvalidValueError(f"not an xsd:dateTime: {s!r}")
    # Python < 3.11 style fractional handling: fromisoformat handles up to 6 digits.
    m = re.match(r"^(.*T\d\d:\d\d:\d\d)(\.\d+)?(.*)$", t)
    if m and m.group(2) and len(m.group(2)) > 7:
        t = m.group(1) + m.group(2)[:7] + m.group(3)
    try:
        return _to_ms(datetime.fromisoformat(t))
    except ValueError:
        raise InvalidValueError(f"not an xsd:dateTime: {s!r}") from None


def parse_date_ms(s: str) -> int:
    """xsd:date → unix ms of midnight UTC."""
    t = s.strip()
    if t.endswith("Z"):
        t = t[:-1]
    try:
        d = date.fromisoformat(t[:10]) if len(t) >= 10 else date.fromisoformat(t)
    except ValueError:
        raise InvalidValueError(f"not an xsd:date: {s!r}") from None
    return _to_ms(datetime(d.year, d.month, d.day, tzinfo=timezone.utc))


def parse_instant(s: str) -> int:
    """Parse what users type for a time: ``2026-01-01``, ``2026-01-01T10:00Z``, ``latest``, or unix ms.

    >>> parse_instant("2026-01-01")
    1767225600000
    """
    t = s.strip()
    if t == "latest":
        return MAX_TIME
    if re.fullmatch(r"-?\d{10,}", t):
        return int(t)
    if re.fullmatch(r"\d{4}-\d\d-\d\d", t):
        return parse_date_ms(t)
    if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d(Z|[+-]\d\d:\d\d)?", t):
        t = t.replace("Z", ":00Z") if t.endswith("Z") else (t + ":00" if len(t) == 16 else t[:16] + ":00" + t[16:])
    return parse_datetime_ms(t)


def format_ms(ms: int) -> str:
    """Unix ms → ISO-8601 in UTC, as shown to users (``2026-01-01T10:00:00Z``)."""
    if ms == MAX_TIME:
        return "latest"
    if ms == MIN_TIME:
        return "-inf"
    dt = _EPOCH + timedelta(milliseconds=ms)
    if dt.microsecond:
        return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def _shown(t: int) -> str:
    """An instant for a message: ISO-8601 when it is one, else the number (an out-of-range value)."""
    try:
        return format_ms(t)
    except (ValueError, OverflowError, OSError):
        return str(t)
