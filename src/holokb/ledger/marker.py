"""The ledger's change marker, read without the Ledger class: what a warm ``holokb query`` checks
its disk snapshot against before it answers (importing the Ledger class and its mixins costs more
CPU than the rest of such a command's own work).  ``Ledger.change_marker`` and
``Ledger.content_marker`` are these same reads."""
from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

from ..core.sha import sha256  # not hashlib: see core.sha
from .schema import APPLICATION_ID, CURRENT_VERSION, read_identity

SPAN_MAGIC = b"HKS1"


def span_digest(fact_hash: bytes, start: int, end: int | None, system_from: int) -> bytes:
    """SHA-256 of (fact id, valid_from, valid_to, system_from): a span's immutable identity."""
    tail = b"\x00" if end is None else b"\x01" + struct.pack("<q", end)
    return sha256(SPAN_MAGIC + fact_hash + struct.pack("<q", start) + tail + struct.pack("<q", system_from)).digest()


def change_marker(db: sqlite3.Connection) -> int:
    """The write sequence number (bumped by every committed write that changed a row)."""
    return db.execute("SELECT change_marker FROM meta WHERE id = 1").fetchone()[0]


def content_marker(db: sqlite3.Connection) -> tuple:
    """Newest span row, its content hash, newest evidence row (see ``Ledger.content_marker``)."""
    row = db.execute(
        "SELECT sp.sid, f.hash, sp.valid_from, sp.valid_to, sp.system_from FROM spans sp "
        "JOIN facts f ON f.fact_id = sp.fact_id ORDER BY sp.sid DESC LIMIT 1").fetchone()
    ev = db.execute("SELECT coalesce(max(evidence_id), 0) FROM evidence").fetchone()[0]
    if not row:
        return (0, "", ev)
    return (row[0], span_digest(row[1], row[2], row[3], row[4]).hex(), ev)


def last_rule_set(db: sqlite3.Connection) -> str | None:
    """The rule-set hash of the most recently stored closure (what ``holokb derive`` stored last), or None."""
    row = db.execute("SELECT rule_set_hash FROM closures ORDER BY closure_id DESC LIMIT 1").fetchone()
    return row[0] if row else None


class StoredMarker:
    """A ledger file's markers as read once; quacks like the Ledger for ``sparql.snapshot.key_for``.
    ``last_rule_set``: :func:`last_rule_set`, read in the same transaction."""

    def __init__(self, path: str, change: int, content: tuple, last_rule_set: str | None = None) -> None:
        self.path, self._change, self._content = path, change, content
        self.last_rule_set = last_rule_set

    def change_marker(self) -> int:
        return self._change

    def content_marker(self) -> tuple:
        return self._content


def read_marker(path: str | Path, *, timeout_s: float = 5.0) -> StoredMarker | None:
    """The markers of the ledger at ``path``, read in one transaction through a plain connection;
    None unless it is an existing holokb ledger at this holokb's schema version (``Ledger.open``
    then creates, migrates or reports the file as usual)."""
    p = str(path)
    if p == ":memory:" or not Path(p).is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{Path(p).resolve().as_posix()}?mode=ro", uri=True, timeout=timeout_s,
                             isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        if read_identity(db) != (APPLICATION_ID, CURRENT_VERSION):
            return None
        db.execute("BEGIN")
        try:
            return StoredMarker(p, change_marker(db), content_marker(db), last_rule_set(db))
        finally:
            db.execute("COMMIT")
    except sqlite3.Error:
        return None
    finally:
        db.close()
