"""The ledger's SQLite schema, its identity pragmas and the migration runner.

``PRAGMA application_id`` marks a file as a holokb ledger and ``PRAGMA user_version`` is the
schema version.  Migrations are a list of steps; step ``i`` takes a file from version ``i`` to
``i + 1``.  A fresh file runs every step, so the v1 DDL stays here verbatim (old files exist).
"""
from __future__ import annotations

import sqlite3
from typing import Callable

from ..core.errors import LedgerTooNewError, SchemaVersionError

#: "HKB1" as a big-endian int32: the application_id of every holokb ledger file.
APPLICATION_ID = 0x484B4231

#: Spans and facts CHECKs follow seed 003 §4.2 (half-open intervals, hash lengths).
_V1 = """
CREATE TABLE terms (
  term_id   INTEGER PRIMARY KEY,
  kind      INTEGER NOT NULL CHECK (kind IN (0, 1)),      -- 0 = IRI, 1 = literal
  lexical   TEXT NOT NULL,
  datatype  TEXT NOT NULL DEFAULT '',
  lang      TEXT NOT NULL DEFAULT '',
  canon     BLOB NOT NULL                                  -- core.fact.encode_term
);
CREATE UNIQUE INDEX terms_canon ON terms(canon);
CREATE TABLE entities (
  entity_id INTEGER PRIMARY KEY,
  term_id   INTEGER NOT NULL UNIQUE REFERENCES terms(term_id)
);
CREATE TABLE aliases (
  alias_id   INTEGER PRIMARY KEY,
  entity_id  INTEGER NOT NULL REFERENCES entities(entity_id),
  alias      TEXT NOT NULL,
  alias_norm TEXT NOT NULL,
  UNIQUE (entity_id, alias_norm)
);
CREATE INDEX aliases_norm ON aliases(alias_norm);
CREATE TABLE predicates (
  term_id    INTEGER PRIMARY KEY REFERENCES terms(term_id),
  arity      INTEGER NOT NULL CHECK (arity >= 1),
  arg_types  TEXT NOT NULL DEFAULT '',                     -- space-separated IRIs
  functional INTEGER NOT NULL CHECK (functional IN (0, 1))
);
CREATE TABLE facts (
  fact_id    INTEGER PRIMARY KEY,
  hash       BLOB NOT NULL CHECK (length(hash) = 32),      -- Fact.id
  s          INTEGER NOT NULL REFERENCES terms(term_id),
  p          INTEGER NOT NULL REFERENCES terms(term_id),
  o          INTEGER NOT NULL REFERENCES terms(term_id),
  nq         INTEGER NOT NULL DEFAULT 0,                   -- number of qualifiers
  polarity   INTEGER NOT NULL CHECK (polarity IN (0, 1)),  -- 1 = affirm
  qhash      BLOB CHECK (qhash IS NULL OR length(qhash) = 32)  -- qualifiers' hash; NULL = none
);
CREATE UNIQUE INDEX facts_hash ON facts(hash);
CREATE TABLE qualifiers (
  fact_id INTEGER NOT NULL REFERENCES facts(fact_id),
  key     TEXT NOT NULL,
  term_id INTEGER NOT NULL REFERENCES terms(term_id),
  PRIMARY KEY (fact_id, key)
) WITHOUT ROWID;
CREATE TABLE spans (
  sid         INTEGER PRIMARY KEY,
  span_id     BLOB NOT NULL CHECK (length(span_id) = 32),
  fact_id     INTEGER NOT NULL REFERENCES facts(fact_id),
  valid_from  INTEGER NOT NULL,
  valid_to    INTEGER CHECK (valid_to IS NULL OR valid_to > valid_from),
  system_from INTEGER NOT NULL,
  system_to   INTEGER CHECK (system_to IS NULL OR system_to > system_from)
);
CREATE UNIQUE INDEX spans_id ON spans(span_id);
CREATE TABLE evidence (
  evidence_id       INTEGER PRIMARY KEY,
  sid               INTEGER NOT NULL REFERENCES spans(sid),
  ev_hash           BLOB NOT NULL UNIQUE,                  -- dedupes identical evidence of a span
  document          TEXT NOT NULL,
  chunk             TEXT,
  char_start        INTEGER,
  char_end          INTEGER,
  extractor         TEXT NOT NULL,
  extractor_version TEXT NOT NULL,
  confidence        REAL NOT NULL CHECK (confidence >= 0.0 AND confidence <= 1.0),
  asserted_at       INTEGER,
  CHECK ((char_start IS NULL) = (char_end IS NULL)),
  CHECK (char_start IS NULL OR (char_start >= 0 AND char_end >= char_start))
);
"""

#: Secondary indexes.  A statement key (subject, predicate, qualifiers) is found through
#: facts_sp and then ``qhash``, so it needs no index of its own; a fact's spans (open or not) are
#: found through spans_key (a fact has few spans, so the open ones need no index of their own).
#: spans_key is unique on what a span's id hashes (fact, system_from, valid interval): the id
#: is not stored (v6), the key still cannot repeat.
SECONDARY_INDEXES = (
    ("facts_sp", "CREATE INDEX IF NOT EXISTS facts_sp ON facts(s, p)"),
    ("facts_o", "CREATE INDEX IF NOT EXISTS facts_o ON facts(o)"),
    ("spans_key", "CREATE UNIQUE INDEX IF NOT EXISTS spans_key ON spans(fact_id, system_from, valid_from, "
                  "coalesce(valid_to, 9223372036854775807))"),
    ("evidence_sid", "CREATE INDEX IF NOT EXISTS evidence_sid ON evidence(sid)"),
)
#: The secondary indexes as v2 created them (a migration step never changes once released).
_V2_INDEXES = SECONDARY_INDEXES[:2] + (
    ("spans_fact", "CREATE INDEX IF NOT EXISTS spans_fact ON spans(fact_id, system_from)"),
    ("spans_open", "CREATE INDEX IF NOT EXISTS spans_open ON spans(fact_id) WHERE system_to IS NULL"),
    SECONDARY_INDEXES[3],
)

#: v2: documents, chunks and their FTS5 index; entity kinds; the secondary indexes above.
_V2 = """
ALTER TABLE entities ADD COLUMN kind TEXT NOT NULL DEFAULT '';
CREATE TABLE documents (
  doc_id TEXT PRIMARY KEY,
  text   TEXT NOT NULL
);
CREATE TABLE chunks (
  cid        INTEGER PRIMARY KEY,
  doc_id     TEXT NOT NULL REFERENCES documents(doc_id),
  chunk_id   TEXT NOT NULL,
  char_start INTEGER NOT NULL CHECK (char_start >= 0),
  char_end   INTEGER NOT NULL CHECK (char_end >= char_start),
  text       TEXT NOT NULL,
  UNIQUE (doc_id, chunk_id)
);
CREATE VIRTUAL TABLE chunk_fts USING fts5(text, content='chunks', content_rowid='cid');
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO chunk_fts(rowid, text) VALUES (new.cid, new.text);
END;
"""

#: v3: the write counter (``meta``, one row) and stored closures with their derived facts.
#: A derived row's args: ``s`` = args[0], ``o`` = args[1], ``rest`` = JSON array of the term ids
#: of args[2:] with ``rest_key`` their concatenated canonical encodings (a content sort key).
#: ``premises`` is comma-separated signed integers: ``n > 0`` is the asserted fact ``facts.fact_id
#: = n``, ``n < 0`` the derived row ``seq = -n - 1`` of the same closure.  ``bindings`` is a flat
#: JSON array ``["x", term_id, "y", term_id, ...]`` in the rule's binding order.  Term columns of
#: ``derived`` carry no FOREIGN KEY: terms are never deleted and the writer interns every id in
#: the same transaction, so the per-row parent probes (measured ~30% of the insert) buy nothing.
_V3 = """
CREATE TABLE meta (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  change_marker INTEGER NOT NULL CHECK (change_marker >= 0)  -- bumped by every committed write batch
);
INSERT INTO meta(id, change_marker) VALUES (1, 0);
CREATE TABLE closures (
  closure_id    INTEGER PRIMARY KEY AUTOINCREMENT,           -- never reused: a replaced closure's id stays dead
  rule_set_hash TEXT NOT NULL,
  as_of_system  INTEGER NOT NULL,
  as_of_valid   INTEGER NOT NULL,
  change_marker INTEGER NOT NULL,                            -- meta.change_marker when its input was read
  computed_at   INTEGER NOT NULL,                            -- system time given by the caller
  truncated     INTEGER NOT NULL CHECK (truncated IN (0, 1)),
  limit_hit     TEXT,
  n_derived     INTEGER NOT NULL,
  n_binary      INTEGER NOT NULL,                            -- affirmed rows of arity 2
  rule_counts   TEXT NOT NULL,                               -- JSON [[rule, count], ...] sorted by rule
  UNIQUE (rule_set_hash, as_of_system, as_of_valid)
);
CREATE TABLE derived (
  closure_id INTEGER NOT NULL REFERENCES closures(closure_id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,                               -- position in the stored sequence
  p          INTEGER NOT NULL,
  arity      INTEGER NOT NULL CHECK (arity >= 0),
  s          INTEGER,
  o          INTEGER,
  rest       TEXT,
  rest_key   BLOB,
  negated    INTEGER NOT NULL CHECK (negated IN (0, 1)),
  valid_from INTEGER NOT NULL,
  valid_to   INTEGER CHECK (valid_to IS NULL OR valid_to > valid_from),
  rule       TEXT NOT NULL,
  depth      INTEGER NOT NULL,
  score      REAL,
  premises   TEXT NOT NULL,
  bindings   TEXT NOT NULL,
  PRIMARY KEY (closure_id, seq)
) WITHOUT ROWID;
"""

#: v4: the rule sets closures were computed with (canonical rule text by rule-set hash), so that
#: "the loaded rules" can be recovered from the ledger alone (``holokb query`` after ``holokb derive``).
_V4 = """
CREATE TABLE rule_sets (
  rule_set_hash TEXT PRIMARY KEY,
  text          TEXT NOT NULL
);
"""

#: v5: the system-time high-water mark (``meta.system_high``: the latest system time a committed
#: write used; a write before it is refused) and the write log that decides staleness per AsOf:
#: one row per committed write that touched system time, with the earliest system time it wrote.
#: A stored closure at AsOf(s, v) is stale iff a later write has ``system_min <= s``.
_V5 = """
ALTER TABLE meta ADD COLUMN system_high INTEGER;
CREATE TABLE write_log (
  change_marker INTEGER PRIMARY KEY,                         -- meta.change_marker after the write
  system_min    INTEGER NOT NULL                             -- earliest system time it wrote
);
"""

#: v3's lookups of derived facts by first / second argument (v8 stores derived facts in blocks).
DERIVED_INDEXES = (
    ("derived_s", "CREATE INDEX IF NOT EXISTS derived_s ON derived(closure_id, s, p)"),
    ("derived_o", "CREATE INDEX IF NOT EXISTS derived_o ON derived(closure_id, o, p)"),
)

#: Dropped before a bulk load into an empty file and built once after it (building a b-tree from
#: sorted keys is several times cheaper than inserting random hashes row by row).
BULK_INDEXES = (
    ("terms_canon", "CREATE UNIQUE INDEX IF NOT EXISTS terms_canon ON terms(canon)"),
    ("facts_hkey", "CREATE INDEX IF NOT EXISTS facts_hkey ON facts(hkey)"),
) + SECONDARY_INDEXES

#: Indexes a columnar bulk load into an empty file leaves unbuilt (v9): the lookups by a term's
#: encoding, by a fact's hash key and by subject or object.  None is needed to read or write
#: correctly (every query finds the same rows without them, by a scan), only to be fast: every
#: write transaction and every read that looks a term or a fact up builds the missing ones first,
#: under the write lock (``Ledger._ensure_indexes``).  A load then pays only for the rows, and a
#: scan-only reader (the derive input, the SPARQL snapshot's facts) never waits for them.
#: terms_canon is unique: every writer checks an encoding before inserting it, so the index never
#: finds a duplicate when it is built.
DEFERRED_INDEXES = ("terms_canon", "facts_hkey", "facts_sp", "facts_o")


def missing_deferred(db: sqlite3.Connection) -> tuple[tuple[str, str], ...]:
    """The :data:`DEFERRED_INDEXES` (name, DDL) the file lacks, in build order."""
    have = {r[0] for r in db.execute("SELECT name FROM main.sqlite_master WHERE type = 'index' AND name IN "
                                     f"({','.join('?' * len(DEFERRED_INDEXES))})", DEFERRED_INDEXES)}
    return tuple((n, sql) for n, sql in BULK_INDEXES if n in DEFERRED_INDEXES and n not in have)


#: Sorter memory while the bulk indexes are built (KiB, as ``PRAGMA cache_size = -N``).  SQLite sorts
#: a CREATE INDEX in runs of at most the main cache size (250 pages at least) and, with ``PRAGMA
#: threads``, sorts the runs and merges them on helper threads; a run the size of the whole index is
#: sorted by this thread alone.  Index builds, this thread's CPU (all threads' CPU): 1M facts 3.25 s
#: with one run -> 1.44 (2.97) with 4 MiB runs -> 1.20 (2.55) with 1 MiB; LUBM 0.19 -> 0.15 (0.24).
_SORT_RUN_KIB = 1024


def build_indexes(db: sqlite3.Connection, indexes: tuple[tuple[str, str], ...] = BULK_INDEXES) -> None:
    """Build ``indexes`` (name, DDL) with SQLite's multi-threaded sorter (see ``_SORT_RUN_KIB``)."""
    cache = db.execute("PRAGMA main.cache_size").fetchone()[0]
    db.execute(f"PRAGMA main.cache_size = {-_SORT_RUN_KIB}")
    try:
        for _, sql in indexes:
            db.execute(sql)
    finally:
        db.execute(f"PRAGMA main.cache_size = {int(cache)}")


def _step_v0_to_v1(db: sqlite3.Connection) -> None:
    _script(db, _V1)


def _step_v1_to_v2(db: sqlite3.Connection) -> None:
    _script(db, _V2)
    for _, sql in _V2_INDEXES:
        db.execute(sql)


def _step_v2_to_v3(db: sqlite3.Connection) -> None:
    _script(db, _V3)
    for _, sql in DERIVED_INDEXES:
        db.execute(sql)


def _step_v3_to_v4(db: sqlite3.Connection) -> None:
    _script(db, _V4)


def _step_v4_to_v5(db: sqlite3.Connection) -> None:
    _script(db, _V5)
    db.execute("UPDATE meta SET system_high = (SELECT max(t) FROM (SELECT max(system_from) AS t FROM spans "
               "UNION ALL SELECT max(system_to) FROM spans)) WHERE id = 1")
    # Writes before v5 left no log: they may have touched any system time, so every closure
    # stored before them stays stale (one row standing for all of them).
    db.execute(f"INSERT INTO write_log(change_marker, system_min) SELECT change_marker, {-(2**63)} FROM meta "
               "WHERE id = 1 AND change_marker > 0")


def _step_v5_to_v6(db: sqlite3.Connection) -> None:
    """v6: spans no longer store their id.  It is a hash of (fact, valid interval, system_from),
    all stored, so reads compute it; its unique index cost as much to build as the facts' hash
    index and 32 bytes a span (bench/ledger.py, notes/ledger.md).  spans_open goes too."""
    for name in ("spans_id", "spans_open", "spans_fact"):
        db.execute(f"DROP INDEX IF EXISTS {name}")
    db.execute("ALTER TABLE spans DROP COLUMN span_id")
    db.execute(dict(SECONDARY_INDEXES)["spans_key"])


def _step_v6_to_v7(db: sqlite3.Connection) -> None:
    """v7: facts are found by ``hkey``, the first 8 bytes of their hash as a signed big-endian
    int64, through a plain (non-unique) index; lookups compare the full hash too
    (``hkey = ? AND hash = ?``).  The unique index on the 32-byte hash was the largest single
    index build of a bulk load (1M facts: ~1.5 s of ~5 s under the write lock; notes/ledger.md)."""
    from .sql import fact_key

    db.execute("ALTER TABLE facts ADD COLUMN hkey INTEGER NOT NULL DEFAULT 0")
    rows = db.execute("SELECT fact_id, hash FROM facts").fetchall()
    db.executemany("UPDATE facts SET hkey = ? WHERE fact_id = ?", [(fact_key(h), fid) for fid, h in rows])
    db.execute("DROP INDEX IF EXISTS facts_hash")
    db.execute(dict(BULK_INDEXES)["facts_hkey"])


def _step_v7_to_v8(db: sqlite3.Connection) -> None:
    """v8: derived facts stored in blocks of array columns (``schema_v8``)."""
    from .schema_v8 import step_v7_to_v8

    step_v7_to_v8(db)


def _step_v8_to_v9(db: sqlite3.Connection) -> None:
    """v9: a bulk load into an empty file may leave the :data:`DEFERRED_INDEXES` unbuilt; the
    first write or keyed read builds them (:func:`missing_deferred`).  A v8 file has them all, so
    nothing changes in it.  The version exists so that an older holokb, which would write terms
    without ``terms_canon``'s uniqueness, refuses a v9 file instead."""


#: MIGRATIONS[i] upgrades a file from version i to version i + 1.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _step_v0_to_v1, _step_v1_to_v2, _step_v2_to_v3, _step_v3_to_v4, _step_v4_to_v5, _step_v5_to_v6,
    _step_v6_to_v7, _step_v7_to_v8, _step_v8_to_v9)
CURRENT_VERSION = len(MIGRATIONS)


def _script(db: sqlite3.Connection, ddl: str) -> None:
    # executescript would COMMIT the caller's transaction; run statement by statement instead.
    for stmt in _statements(ddl):
        db.execute(stmt)


def _statements(ddl: str) -> list[str]:
    # The DDL above has no '--' inside string literals, so comments can be cut per line.
    out: list[str] = []
    buf = ""
    for line in ddl.splitlines():
        code = line.split("--", 1)[0].rstrip()
        if not code.strip():
            continue
        buf += code + "\n"
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def read_identity(db: sqlite3.Connection) -> tuple[int, int]:
    """(application_id, user_version) of an open file."""
    app = db.execute("PRAGMA application_id").fetchone()[0]
    ver = db.execute("PRAGMA user_version").fetchone()[0]
    return app, ver


def check_identity(db: sqlite3.Connection, *, path: str = "") -> tuple[int, int]:
    """(application_id, user_version) of a holokb ledger or an empty file; SchemaVersionError otherwise."""
    try:
        app, ver = read_identity(db)
        n_objects = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError as e:
        raise SchemaVersionError(f"{path or 'file'} is not a holokb ledger: {e}") from None
    if app == 0 and ver == 0 and n_objects == 0:
        return app, ver  # a fresh, empty file
    if app != APPLICATION_ID:
        raise SchemaVersionError(
            f"{path or 'file'} is not a holokb ledger (application_id {app:#x}, expected {APPLICATION_ID:#x})"
        )
    if ver > CURRENT_VERSION:
        raise LedgerTooNewError(
            f"{path or 'file'} has ledger schema v{ver}, newer than this holokb (v{CURRENT_VERSION}); upgrade holokb"
        )
    return app, ver


def upgrade(db: sqlite3.Connection, *, path: str = "", to_version: int = CURRENT_VERSION) -> int:
    """Check the file's identity and run the missing migration steps in one transaction; return the version."""
    _, ver = check_identity(db, path=path)
    if ver >= to_version:
        return ver
    db.execute("BEGIN IMMEDIATE")
    try:
        # Re-read under the write lock: another process may have migrated meanwhile.
        _, ver = check_identity(db, path=path)
        for step in MIGRATIONS[ver:to_version]:
            step(db)
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {max(ver, to_version)}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return max(ver, to_version)
