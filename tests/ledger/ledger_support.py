"""Helpers for the ledger tests: terms, facts, and a content dump of a ledger file."""
from __future__ import annotations

import sqlite3
from pathlib import Path

from holokb.core import IRI, Fact, Literal

EX = "http://example.org/"


def iri(name: str) -> IRI:
    return IRI(EX + name)


def fact(s: str, p: str, o: str | int | float | bool, **kw) -> Fact:
    obj = iri(o) if isinstance(o, str) and not o.startswith('"') else (
        Literal(o.strip('"')) if isinstance(o, str) else Literal.of(o))
    return Fact(iri(s), iri(p), obj, **kw)


def dump(path: str | Path) -> list[str]:
    """Every table's content as SQL text (what 'the file changed' means in these tests)."""
    db = sqlite3.connect(str(path))
    try:
        return [line for line in db.iterdump() if not line.startswith(("BEGIN", "COMMIT"))]
    finally:
        db.close()
