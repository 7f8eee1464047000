"""SMT-LIB 2 text helpers: a top-level command scanner, named-assertion rewriting, literal emission.

The scanner is what the emission gate and the fuzz tests use to prove that a text holds only
the commands we meant to emit; the backends use the rewrite to turn ``(assert (! e :named n))``
into an assumption literal so that every solver reports unsat cores the same way.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from ..core.errors import SolverError

#: SMT-LIB 2.6 reserved words and command names (§3.1, §3.9); never usable as user symbols.
SMT_RESERVED = frozenset("""
! _ as BINARY DECIMAL exists HEXADECIMAL forall let match NUMERAL par STRING
assert check-sat check-sat-assuming declare-const declare-datatype declare-datatypes declare-fun
declare-sort declare-sort-parameter define-const define-fun define-fun-rec define-funs-rec define-sort
echo exit get-assertions get-assignment get-info get-model get-option get-proof get-unsat-assumptions
get-unsat-core get-value pop push reset reset-assertions set-info set-logic set-option
Bool Int Real true false not and or xor => = distinct ite
""".split())

_TOKEN = re.compile(r'"(?:[^"]|"")*"|\|[^|]*\||;[^\n]*|[()]|[^\s()";|]+', re.S)


@dataclass(frozen=True, slots=True)
class Command:
    """One top-level S-expression: its head symbol and its exact source text."""

    head: str
    text: str


def split_commands(text: str) -> tuple[Command, ...]:
    """Split SMT-LIB text into top-level commands; raises SolverError on unbalanced parentheses."""
    out: list[Command] = []
    depth = 0
    start = -1
    head: str | None = None
    pos = 0
    for m in _TOKEN.finditer(text):
        gap = text[pos:m.start()]
        if gap.strip():
            raise SolverError(f"unexpected characters in SMT-LIB text at offset {pos}: {gap.strip()[:20]!r}")
        pos = m.end()
        tok = m.group()
        if tok[0] == ";":
            continue
        if tok == "(":
            if depth == 0:
                start, head = m.start(), None
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth < 0:
                raise SolverError(f"unbalanced ')' at offset {m.start()}")
            if depth == 0:
                out.append(Command(head or "", text[start:m.end()]))
        elif depth == 0:
            raise SolverError(f"atom {tok[:20]!r} outside a command at offset {m.start()}")
        elif depth == 1 and head is None:
            head = tok
    if text[pos:].strip():
        raise SolverError(f"unterminated token at offset {pos}")
    if depth != 0:
        raise SolverError("unbalanced '(' at end of SMT-LIB text")
    return tuple(out)


_NAMED = re.compile(r"^\(assert\s+\(!\s+(.*)\s+:named\s+([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*\)$", re.S)


def rewrite_named(text: str) -> tuple[str, tuple[str, ...]]:
    """Turn each ``(assert (! e :named n))`` into ``(declare-const n Bool)(assert (=> n e))``.

    Returns the rewritten text and the names in order; checking under those names as
    assumptions makes the unsat core a subset of them (the same on every backend).
    """
    if ":named" not in text:
        return text, ()
    names: list[str] = []
    parts: list[str] = []
    for cmd in split_commands(text):
        m = _NAMED.match(cmd.text) if cmd.head == "assert" else None
        if m:
            body, name = m.group(1), m.group(2)
            names.append(name)
            parts.append(f"(declare-const {name} Bool)\n(assert (=> {name} {body}))")
        else:
            parts.append(cmd.text)
    return "\n".join(parts), tuple(names)


def int_literal(v: int) -> str:
    """An integer as an SMT-LIB term (negatives as ``(- n)``)."""
    return str(v) if v >= 0 else f"(- {-v})"


def real_literal(v: float | Decimal | Fraction | int) -> str:
    """An exact rational as an SMT-LIB Real term."""
    fr = Fraction(v)
    num, den = abs(fr.numerator), fr.denominator
    body = f"{num}.0" if den == 1 else f"(/ {num}.0 {den}.0)"
    return body if fr >= 0 else f"(- {body})"


def parse_value(text: str) -> int | Fraction | bool | str:
    """A model value printed by a solver (``3``, ``(- 2)``, ``(/ 1 2)``, ``true``) → Python; else the text."""
    t = text.strip()
    if t in ("true", "false"):
        return t == "true"
    m = re.fullmatch(r"\(-\s*(.+)\)", t)
    if m:
        v = parse_value(m.group(1))
        return -v if isinstance(v, (int, Fraction)) and not isinstance(v, bool) else t
    m = re.fullmatch(r"\(/\s*(\S+)\s+(\S+)\)", t)
    if m:
        a, b = parse_value(m.group(1)), parse_value(m.group(2))
        if isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction)) and b:
            return Fraction(a) / Fraction(b)
        return t
    if re.fullmatch(r"\d+", t):
        return int(t)
    if re.fullmatch(r"\d+\.\d+", t):
        f = Fraction(t)
        return int(f) if f.denominator == 1 else f
    return t
