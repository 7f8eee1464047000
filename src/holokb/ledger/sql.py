"""The write side's SQL and row encodings, in one place for every writer (Batch, the bulk record
loader, the staged plain loader and stored closures).

Content hashes are SHA-256 over tagged encodings: a fact's is ``FACT_MAGIC`` + canonical
(s, p, o) + qualifier bytes + polarity (``core.fact.Fact.id``); a span's is ``SPAN_MAGIC`` +
fact hash + valid interval + system_from (:func:`holokb.ledger.views.span_hash`).
"""
from __future__ import annotations

import struct
from typing import Callable

from ..core.fact import Evidence, Fact
from .marker import SPAN_MAGIC
from .views import evidence_hash

FACT_MAGIC = b"HKF1"

INSERT_TERM = "INSERT INTO terms(term_id, kind, lexical, datatype, lang, canon) VALUES (?, ?, ?, ?, ?, ?)"
INSERT_FACT = ("INSERT INTO facts(fact_id, hash, s, p, o, nq, polarity, qhash, hkey) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
#: A fact row by its hash: the int64 key narrows through the index, the full hash decides (v7).
FACT_BY_HASH = "SELECT fact_id FROM facts WHERE hkey = ? AND hash = ?"
INSERT_QUALIFIER = "INSERT INTO qualifiers(fact_id, key, term_id) VALUES (?, ?, ?)"
INSERT_SPAN = "INSERT INTO spans(sid, fact_id, valid_from, valid_to, system_from, system_to) VALUES (?, ?, ?, ?, ?, ?)"
#: Identical evidence on one span is stored once (``ev_hash`` is unique).
INSERT_EVIDENCE = (
    "INSERT OR IGNORE INTO evidence(sid, ev_hash, document, chunk, char_start, char_end, extractor, "
    "extractor_version, confidence, asserted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

__all__ = ["FACT_BY_HASH", "FACT_MAGIC", "INSERT_EVIDENCE", "INSERT_FACT", "INSERT_QUALIFIER", "INSERT_SPAN", "INSERT_TERM",
           "SPAN_MAGIC", "evidence_row", "fact_key", "qualifier_bytes"]


def fact_key(fhash: bytes) -> int:
    """``facts.hkey`` of a fact hash: its first 8 bytes as a signed big-endian int64 (SQLite's
    integer range).  Not unique in principle; every lookup also compares the full hash."""
    return int.from_bytes(fhash[:8], "big", signed=True)


def qualifier_bytes(encode: Callable[[object], bytes], fact: Fact) -> bytes:
    """The qualifiers' part of a fact's canonical encoding (count, then key and value per qualifier)."""
    out = [struct.pack("<I", len(fact.qualifiers))]
    for k, v in fact.qualifiers:
        kb = k.encode("utf-8")
        out.append(b"\x10" + struct.pack("<I", len(kb)) + kb)
        out.append(encode(v))
    return b"".join(out)


def evidence_row(sid: int, sh: bytes, e: Evidence, default_at: int | None) -> tuple:
    """The ``INSERT_EVIDENCE`` parameters of ``e`` on span ``sid`` (asserted_at defaulted to ``default_at``)."""
    asserted = e.asserted_at if e.asserted_at is not None else default_at
    if asserted != e.asserted_at:
        e = Evidence(e.document, e.chunk, e.char_start, e.char_end, e.extractor, e.extractor_version,
                     e.confidence, asserted)
    return (sid, evidence_hash(sh, e), e.document, e.chunk, e.char_start, e.char_end, e.extractor,
            e.extractor_version, float(e.confidence), asserted)
