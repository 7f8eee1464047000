"""Reads over the ledger.  Every read takes an explicit AsOf and documents its sort key.

Sort keys never use row ids or term ids (they depend on insertion order).  A term sorts by its
"object key": kind (IRI before literal), datatype, lexical form, then canonical encoding bytes
(``core.fact.encode_term``).  Keys end with the fact hash and span hash, which are
content-derived and unique, so every order is total.
"""
from __future__ import annotations

import sqlite3
from typing import Callable, Iterable, Iterator, Literal as _Lit, Sequence

from ..core.fact import Evidence, Fact, SpanRecord
from ..core.limits import LimitHit, Limits, Page
from ..core.terms import IRI, RDF_TYPE, Term
from ..core.time import MAX_TIME, MIN_TIME, AsOf, Interval
from .dictionary import TermCache
from .marker import content_marker
from .sql import fact_key
from .views import EncodedFacts, FactView, PredicateInfo, QuadChanges, SearchHit, SpanView, span_hash

_COLS = ("f.fact_id, f.hash, f.s, f.p, f.o, f.nq, f.polarity, "
         "sp.sid, sp.valid_from, sp.valid_to, sp.system_from, sp.system_to")
#: After the fact hash, what tells a fact's spans apart: the rest of what a span's id hashes.
_SPAN_KEY = "coalesce(sp.valid_to, 9223372036854775807), sp.system_from"
_VISIBLE = ("sp.system_from <= ? AND (sp.system_to IS NULL OR sp.system_to > ?) "
            "AND sp.valid_from <= ? AND (sp.valid_to IS NULL OR sp.valid_to > ?)")
_RECORDED = "sp.system_from <= ? AND (sp.system_to IS NULL OR sp.system_to > ?)"
_EV_COLS = "sid, document, chunk, char_start, char_end, extractor, extractor_version, confidence, asserted_at"


def _vis(as_of: AsOf) -> tuple[int, int, int, int]:
    return (as_of.system, as_of.system, as_of.valid, as_of.valid)


def _cap(limits: Limits) -> tuple[int | None, LimitHit | None]:
    """The tighter of max_results and max_edges, and which limit it is."""
    caps = [(n, name) for n, name in ((limits.max_results, LimitHit.MAX_RESULTS), (limits.max_edges, LimitHit.MAX_EDGES))
            if n is not None]
    if not caps:
        return None, None
    return min(caps)


class LedgerReads:
    """The read half of :class:`~holokb.ledger.Ledger` (needs ``_db`` and ``_cache``)."""

    _db: sqlite3.Connection
    _cache: TermCache
    _ensure_indexes: Callable[..., None]  # builds the deferred lookup indexes (Ledger)

    # -- terms -----------------------------------------------------------------------------------

    def term(self, term_id: int) -> Term:
        """The term behind an integer id (the engine's dictionary encoding)."""
        return self._cache.term(self._db, term_id)

    def terms(self, term_ids: Iterable[int]) -> list[Term]:
        """The terms behind many ids, in the order given (read 500 to a query, not one each)."""
        ids = list(term_ids)
        self._cache.terms_of(self._db, ids)
        got = self._cache.terms
        if all(i in got for i in ids):
            return [got[i] for i in ids]
        term = self._cache.term  # an id with no term: its LedgerError
        return [term(self._db, i) for i in ids]

    def _term_filters(self, filters, where: list[str], args: list) -> bool:
        """Add ``col = id`` for each (column, term) given; False when a term was never stored
        (then nothing can match)."""
        for col, term in filters:
            if term is not None:
                tid = self._cache.lookup(self._db, term)
                if tid is None:
                    return False
                where.append(f"{col} = ?")
                args.append(tid)
        return True

    def term_ids(self, terms: Iterable[Term]) -> list[int | None]:
        """Integer ids of terms, None for a term the ledger has never stored."""
        return [self._cache.lookup(self._db, t) for t in terms]

    # -- facts -----------------------------------------------------------------------------------

    def facts(self, as_of: AsOf, *, about: IRI | None = None, predicate: IRI | None = None,
              obj: Term | None = None, limits: Limits = Limits(),
              polarity: _Lit["affirm", "negate"] | None = None) -> Page[FactView]:
        """Spans visible at ``as_of``, filtered by subject/predicate/object/polarity.

        Sort key: predicate IRI, object key (kind, datatype, lexical, canonical bytes),
        valid_from descending, fact id, span id.
        """
        where, args = [_VISIBLE], list(_vis(as_of))
        if about is not None or predicate is not None or obj is not None:
            self._ensure_indexes()  # facts_sp / facts_o
        if not self._term_filters((("f.s", about), ("f.p", predicate), ("f.o", obj)), where, args):
            return Page.of(())
        if polarity is not None:
            where.append("f.polarity = ?")
            args.append(1 if polarity == "affirm" else 0)
        sql = (f"SELECT {_COLS} FROM facts f JOIN spans sp ON sp.fact_id = f.fact_id "
               "JOIN terms tp ON tp.term_id = f.p JOIN terms tob ON tob.term_id = f.o "
               f"WHERE {' AND '.join(where)} "
               f"ORDER BY tp.lexical, tob.kind, tob.datatype, tob.lexical, tob.canon, sp.valid_from DESC, f.hash, {_SPAN_KEY}")
        return self._page(sql, args, limits)

    def neighbors(self, entity: IRI, as_of: AsOf, *, direction: _Lit["out", "in", "both"] = "out",
                  predicates: Sequence[IRI] | None = None, limits: Limits = Limits()) -> Page[FactView]:
        """Affirmed edges touching ``entity`` visible at ``as_of``.

        Sort key: direction (out before in), predicate IRI, neighbour key (kind, datatype,
        lexical, canonical bytes), valid_from descending, fact id, span id.
        """
        if direction not in ("out", "in", "both"):
            raise ValueError(f"direction must be 'out', 'in' or 'both', got {direction!r}")
        self._ensure_indexes()  # facts_sp / facts_o
        eid = self._cache.lookup(self._db, entity)
        if eid is None:
            return Page.of(())
        pred_sql, pred_args = "", []
        if predicates is not None:
            ids = [i for i in (self._cache.lookup(self._db, p) for p in predicates) if i is not None]
            if not ids:
                return Page.of(())
            pred_sql = f" AND f.p IN ({','.join('?' * len(ids))})"
            pred_args = ids
        parts, args = [], []
        for d, (col, other) in (("out", ("f.s", "f.o")), ("in", ("f.o", "f.s"))):
            if direction in (d, "both"):
                parts.append(
                    f"SELECT {0 if d == 'out' else 1} AS dir, tp.lexical AS pl, tn.kind AS nk, tn.datatype AS nd, "
                    f"tn.lexical AS nl, tn.canon AS nc, {_COLS} "
                    "FROM facts f JOIN spans sp ON sp.fact_id = f.fact_id "
                    f"JOIN terms tp ON tp.term_id = f.p JOIN terms tn ON tn.term_id = {other} "
                    f"WHERE {col} = ? AND f.polarity = 1 AND {_VISIBLE}{pred_sql}"
                )
                args += [eid, *_vis(as_of), *pred_args]
        sql = ("SELECT * FROM (" + " UNION ALL ".join(parts) + ") "
               f"ORDER BY dir, pl, nk, nd, nl, nc, valid_from DESC, hash, coalesce(valid_to, {MAX_TIME}), system_from")
        return self._page(sql, args, limits, skip=6)

    def history(self, fact_or_subject_predicate: Fact | tuple[IRI, IRI], *,
                limits: Limits = Limits()) -> Page[SpanView]:
        """Every span (open or closed, on both axes) of a fact, or of all facts of (subject, predicate).

        Sort key: system_from, valid_from, fact id, span id.
        """
        x = fact_or_subject_predicate
        self._ensure_indexes()  # facts_hkey / facts_sp
        if isinstance(x, Fact):
            fhash = bytes.fromhex(x.id)
            where, args = "f.hkey = ? AND f.hash = ?", [fact_key(fhash), fhash]
        else:
            s, p = x
            sid, pid = self._cache.lookup(self._db, s), self._cache.lookup(self._db, p)
            if sid is None or pid is None:
                return Page.of(())
            where, args = "f.s = ? AND f.p = ?", [sid, pid]
        sql = (f"SELECT {_COLS} FROM facts f JOIN spans sp ON sp.fact_id = f.fact_id WHERE {where} "
               f"ORDER BY sp.system_from, sp.valid_from, f.hash, {_SPAN_KEY}")
        return self._page(sql, args, limits)

    def spans(self) -> Iterator[SpanRecord]:
        """Every span with its evidence, for export.  Order: system_from, fact id, valid_from, span id."""
        cur = self._db.execute(
            f"SELECT {_COLS} FROM facts f JOIN spans sp ON sp.fact_id = f.fact_id "
            f"ORDER BY sp.system_from, f.hash, sp.valid_from, {_SPAN_KEY}"
        )
        while True:
            rows = cur.fetchmany(500)
            if not rows:
                return
            for v in self._views(rows):
                yield SpanRecord(v.fact, v.valid, v.system, v.evidence, v.span_id)

    def visible(self, as_of: AsOf) -> Iterator[tuple[Term, Term, Term]]:
        """Plain (affirmed, unqualified) triples visible at ``as_of``, each once.

        Order: subject IRI, predicate IRI, object key (kind, datatype, lexical, canonical bytes).
        """
        cur = self._db.execute(
            "SELECT DISTINCT f.s, f.p, f.o, ts.lexical, tp.lexical, tob.kind, tob.datatype, tob.lexical, tob.canon "
            "FROM facts f JOIN spans sp ON sp.fact_id = f.fact_id JOIN terms ts ON ts.term_id = f.s "
            "JOIN terms tp ON tp.term_id = f.p JOIN terms tob ON tob.term_id = f.o "
            f"WHERE f.polarity = 1 AND f.nq = 0 AND {_VISIBLE} ORDER BY 4, 5, 6, 7, 8, 9",
            _vis(as_of),
        )
        term = self.term
        while True:
            rows = cur.fetchmany(2000)
            if not rows:
                return
            self._cache.terms_of(self._db, [i for r in rows for i in r[:3]])
            for r in rows:
                yield term(r[0]), term(r[1]), term(r[2])

    def visible_quads(self, as_of: AsOf) -> Iterator[tuple[Term, Term, Term, Term | None]]:
        """Affirmed triples visible at ``as_of`` with their named graph (the ``graph`` qualifier; None
        for unqualified facts), each once.  Facts with any other qualifier are left out.

        Order: subject id, predicate id, object id, graph id (deterministic for a given file).
        """
        rows = self.visible_quad_ids(as_of)
        term = self.term
        for k in range(0, len(rows), 4000):
            part = rows[k:k + 4000]
            self._cache.terms_of(self._db, [i for r in part for i in r if i is not None])
            for s, p, o, g in part:
                yield term(s), term(p), term(o), None if g is None else term(g)

    def visible_quad_ids(self, as_of: AsOf) -> list[tuple[int, int, int, int | None]]:
        """:meth:`visible_quads` as term ids (graph None: the default graph), in the same order;
        :meth:`term_rows` gives the terms' stored columns."""
        return self._db.execute(
            "SELECT DISTINCT f.s, f.p, f.o, q.term_id FROM facts f JOIN spans sp ON sp.fact_id = f.fact_id "
            "LEFT JOIN qualifiers q ON f.nq = 1 AND q.fact_id = f.fact_id AND q.key = 'graph' "
            f"WHERE f.polarity = 1 AND (f.nq = 0 OR q.term_id IS NOT NULL) AND {_VISIBLE} "
            "ORDER BY f.s, f.p, f.o, q.term_id",
            _vis(as_of),
        ).fetchall()

    def visible_id_sets(self, as_of: AsOf) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int, int]]]:
        """:meth:`visible_quad_ids` for a reader that keeps a set (a SPARQL store): the default
        graph's triples ``(s, p, o)`` and the named graphs' quads ``(s, p, o, g)`` apart, in no
        particular order, and a quad visible through two spans may come twice.  Without the sort
        and DISTINCT, spans scanned first (LUBM, 100k quads: ~140 vs ~320 ms CPU)."""
        triples = self._db.execute(
            "SELECT f.s, f.p, f.o FROM spans sp CROSS JOIN facts f ON f.fact_id = sp.fact_id "
            f"WHERE f.polarity = 1 AND f.nq = 0 AND {_VISIBLE}", _vis(as_of)).fetchall()
        quads = self._db.execute(
            "SELECT f.s, f.p, f.o, q.term_id FROM spans sp CROSS JOIN facts f ON f.fact_id = sp.fact_id "
            "JOIN qualifiers q ON q.fact_id = f.fact_id AND q.key = 'graph' "
            f"WHERE f.polarity = 1 AND f.nq = 1 AND {_VISIBLE}", _vis(as_of)).fetchall()
        return triples, quads

    def all_term_rows(self, at_most: int) -> list[tuple[int, int, str, str, str]] | None:
        """``(term_id, kind, lexical, datatype, lang)`` of every term in one scan, or None when the
        largest term id is above ``at_most`` (then :meth:`term_rows` reads just the ids needed)."""
        top = self._db.execute("SELECT coalesce(max(term_id), 0) FROM terms").fetchone()[0]
        if top > at_most:
            return None
        return self._db.execute("SELECT term_id, kind, lexical, datatype, lang FROM terms").fetchall()

    def term_rows(self, term_ids: Iterable[int]) -> dict[int, tuple[int, str, str, str]]:
        """The stored columns (kind 0 IRI / 1 literal, lexical, datatype, lang) of many ids, read 500
        to a query and not made into terms (``views.term_from_row`` makes one)."""
        ids = sorted(set(term_ids))
        out: dict[int, tuple[int, str, str, str]] = {}
        for k in range(0, len(ids), 500):
            part = ids[k:k + 500]
            for tid, *row in self._db.execute(
                    f"SELECT term_id, kind, lexical, datatype, lang FROM terms WHERE term_id IN ({','.join('?' * len(part))})",
                    part):
                out[tid] = tuple(row)  # type: ignore[assignment]
        return out

    def changes_since(self, marker: int, as_of: AsOf) -> QuadChanges:
        """What committed writes after change marker ``marker`` did to the plain quads visible at
        ``as_of`` (see :class:`~holokb.ledger.views.QuadChanges`), read in one transaction.

        Sound because history is append-only in system time: every span a later write opened or
        closed has ``system_from`` or ``system_to`` at or after that write's earliest system time.
        Order of ``quads``: subject id, predicate id, object id, graph id (deterministic for a file).
        """
        with self.read_transaction():  # type: ignore[attr-defined]  # Ledger provides it
            now, high = self._db.execute("SELECT change_marker, system_high FROM meta WHERE id = 1").fetchone()
            logged, smin = self._db.execute(
                "SELECT count(*), min(system_min) FROM write_log WHERE change_marker > ?", (marker,)).fetchone()
            rows: list = []
            if smin is not None and now != marker:
                rows = self._db.execute(
                    "SELECT f.s, f.p, f.o, q.term_id, f.polarity = 1 AND (f.nq = 0 OR q.term_id IS NOT NULL), "
                    "EXISTS (SELECT 1 FROM spans sp WHERE sp.fact_id = f.fact_id AND " + _VISIBLE + ") "
                    "FROM facts f LEFT JOIN qualifiers q ON f.nq = 1 AND q.fact_id = f.fact_id AND q.key = 'graph' "
                    "WHERE f.fact_id IN (SELECT fact_id FROM spans WHERE system_from >= ?5 OR system_to >= ?5) "
                    "ORDER BY f.s, f.p, f.o, q.term_id", (*_vis(as_of), smin)).fetchall()
                self._cache.terms_of(self._db, [i for r in rows for i in r[:4] if i is not None])
        term = self.term
        quads = tuple((term(s), term(p), term(o), None if g is None else term(g), bool(vis))
                      for s, p, o, g, plain, vis in rows if plain)
        preds = frozenset(t.value for t in {term(r[1]) for r in rows} if isinstance(t, IRI))
        return QuadChanges(now, marker, high, smin if now != marker else None, quads, preds,
                           complete=now - marker == logged)

    def content_marker(self) -> tuple:
        """A content-derived marker for caches built from the ledger, read in O(log n): newest span
        row, its content hash, newest evidence row.

        Together with :meth:`change_marker` (which every committed write bumps, retractions
        included) it tells a re-created file from the one a cache saw: the counter alone would
        match a fresh file that has seen as many writes.
        """
        return content_marker(self._db)

    def encoded_visible(self, as_of: AsOf, *, all_valid: bool = False) -> EncodedFacts:
        """Visible plain triples as integer columns for the engine (one row per visible span).

        ``all_valid``: every span recorded at ``as_of.system``, whatever its valid time (the
        engine's whole-timeline input: what held when, as the KB knew it then).
        Order: subject id, predicate id, object id, valid_from, fact id, span id — deterministic
        for a given file (ids are that file's dictionary encoding).
        """
        where, args = (_RECORDED, (as_of.system, as_of.system)) if all_valid else (_VISIBLE, _vis(as_of))
        # Every span is read either way: a plain scan of spans with a rowid lookup of its fact is ~20%
        # cheaper than walking facts by index and searching each one's spans (LUBM: 0.20 s vs 0.26 s).
        # The ORDER BY is a total order, so the plan cannot change the rows' order.
        rows = self._db.execute(
            "SELECT f.s, f.p, f.o, sp.valid_from, coalesce(sp.valid_to, ?), f.fact_id, f.hash "
            f"FROM spans sp CROSS JOIN facts f ON f.fact_id = sp.fact_id WHERE f.polarity = 1 AND f.nq = 0 AND {where} "
            f"ORDER BY f.s, f.p, f.o, sp.valid_from, f.hash, {_SPAN_KEY}",
            (MAX_TIME, *args),
        ).fetchall()
        import numpy as np  # where arrays are built: a ledger opened for a count stays light

        n = len(rows)
        cols = [np.fromiter((r[k] for r in rows), dtype=np.int64, count=n) for k in range(6)]
        return EncodedFacts(*cols[:5], tuple(r[6].hex() for r in rows), cols[5])

    def timeless_at(self, system: int) -> bool:
        """Whether every plain triple recorded at ``system`` holds over the whole valid-time axis (a
        closure at that system time then has no time in it: one row per fact, valid always)."""
        # Spans first (a plain scan, 5x faster on LUBM than driving the join from facts); the fact
        # is looked up only for a time-bounded span.
        return self._db.execute(
            f"SELECT 1 FROM spans sp WHERE {_RECORDED} AND (sp.valid_from != ? OR sp.valid_to IS NOT NULL) AND "
            "EXISTS (SELECT 1 FROM facts f WHERE f.fact_id = sp.fact_id AND f.polarity = 1 AND f.nq = 0) LIMIT 1",
            (system, system, MIN_TIME)).fetchone() is None

    def types_of(self, iris: Iterable[IRI], as_of: AsOf) -> dict[IRI, frozenset[IRI]]:
        """The rdf:type objects (IRIs) of each given IRI visible at ``as_of`` (affirmed facts)."""
        out: dict[IRI, frozenset[IRI]] = {}
        self._ensure_indexes()  # facts_sp
        type_id = self._cache.lookup(self._db, IRI(RDF_TYPE))
        for iri in iris:
            sid = self._cache.lookup(self._db, iri) if type_id is not None else None
            if sid is None:
                out[iri] = frozenset()
                continue
            ids = [r[0] for r in self._db.execute(
                "SELECT f.o FROM facts f JOIN spans sp ON sp.fact_id = f.fact_id "
                f"WHERE f.s = ? AND f.p = ? AND f.polarity = 1 AND {_VISIBLE}", (sid, type_id, *_vis(as_of)))]
            out[iri] = frozenset(t for t in (self.term(i) for i in ids) if isinstance(t, IRI))
        return out

    def open_values(self, subject: IRI, predicate: IRI, as_of: AsOf) -> list[Term]:
        """Distinct objects of affirmed (subject, predicate) facts visible at ``as_of``.

        Order: object key (kind, datatype, lexical, canonical bytes).
        """
        self._ensure_indexes()  # facts_sp
        sid, pid = self._cache.lookup(self._db, subject), self._cache.lookup(self._db, predicate)
        if sid is None or pid is None:
            return []
        ids = [r[0] for r in self._db.execute(
            "SELECT DISTINCT f.o, tob.kind, tob.datatype, tob.lexical, tob.canon FROM facts f "
            "JOIN spans sp ON sp.fact_id = f.fact_id JOIN terms tob ON tob.term_id = f.o "
            f"WHERE f.s = ? AND f.p = ? AND f.polarity = 1 AND {_VISIBLE} ORDER BY 2, 3, 4, 5", (sid, pid, *_vis(as_of)))]
        return [self.term(i) for i in ids]

    # -- vocabulary, entities, documents -----------------------------------------------------------

    def predicate(self, iri: IRI) -> PredicateInfo | None:
        """The declaration of ``iri``, or None when it was never declared."""
        tid = self._cache.lookup(self._db, iri)
        if tid is None:
            return None
        row = self._db.execute("SELECT arity, arg_types, functional FROM predicates WHERE term_id = ?",
                               (tid,)).fetchone()
        if row is None:
            return None
        return PredicateInfo(iri, row[0], tuple(IRI(a) for a in row[1].split()), bool(row[2]))

    def predicates(self) -> tuple[PredicateInfo, ...]:
        """All declared predicates, sorted by IRI."""
        rows = self._db.execute(
            "SELECT t.lexical, p.arity, p.arg_types, p.functional FROM predicates p "
            "JOIN terms t ON t.term_id = p.term_id ORDER BY t.lexical"
        ).fetchall()
        return tuple(PredicateInfo(IRI(r[0]), r[1], tuple(IRI(a) for a in r[2].split()), bool(r[3])) for r in rows)

    def relations(self) -> tuple[frozenset[str], frozenset[str]]:
        """(predicate IRIs, rdf:type class IRIs) of every affirmed fact ever recorded, at any time:
        what rules could read from this ledger (analysis.lint warns about the rest)."""
        self._ensure_indexes()  # facts_sp serves the distinct predicates
        rows = self._db.execute(
            "SELECT t.lexical FROM (SELECT DISTINCT p FROM facts WHERE polarity = 1) f "
            "JOIN terms t ON t.term_id = f.p WHERE t.kind = 0").fetchall()
        preds = frozenset(r[0] for r in rows)
        (type_id,) = self.term_ids([IRI(RDF_TYPE)])
        if type_id is None:
            return preds, frozenset()
        rows = self._db.execute(
            "SELECT t.lexical FROM (SELECT DISTINCT o FROM facts WHERE polarity = 1 AND p = ?) f "
            "JOIN terms t ON t.term_id = f.o WHERE t.kind = 0", (type_id,)).fetchall()
        return preds, frozenset(r[0] for r in rows)

    def entities_by_alias(self, text: str) -> list[IRI]:
        """Entities with an alias matching ``text`` after normalisation (NFKC, casefold, whitespace); by IRI."""
        from ..core.fact import alias_key
        rows = self._db.execute(
            "SELECT DISTINCT t.lexical FROM aliases a JOIN entities e ON e.entity_id = a.entity_id "
            "JOIN terms t ON t.term_id = e.term_id WHERE a.alias_norm = ? ORDER BY t.lexical",
            (alias_key(text),),
        ).fetchall()
        return [IRI(r[0]) for r in rows]

    def chunk_text(self, doc_id: str, chunk_id: str) -> str | None:
        """The stored text of one chunk, or None when that chunk is not stored."""
        row = self._db.execute("SELECT text FROM chunks WHERE doc_id = ? AND chunk_id = ?",
                               (doc_id, chunk_id)).fetchone()
        return None if row is None else row[0]

    def search_chunks(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        """BM25 search over chunk text (any query word may match).  Order: score desc, document, chunk."""
        import re
        words = re.findall(r"\w+", query)
        if not words or limit <= 0:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in dict.fromkeys(words))
        rows = self._db.execute(
            "SELECT c.doc_id, c.chunk_id, -bm25(chunk_fts) AS score FROM chunk_fts "
            "JOIN chunks c ON c.cid = chunk_fts.rowid WHERE chunk_fts MATCH ? "
            "ORDER BY score DESC, c.doc_id, c.chunk_id LIMIT ?",
            (match, limit),
        ).fetchall()
        return [SearchHit(d, c, float(s)) for d, c, s in rows]

    def stats(self) -> dict[str, int]:
        """Row counts: facts, spans, evidence, entities, documents, chunks, terms."""
        out = {}
        for name in ("facts", "spans", "evidence", "entities", "documents", "chunks", "terms"):
            out[name] = self._db.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
        return out

    # -- internals -------------------------------------------------------------------------------

    def _page(self, sql: str, args: list, limits: Limits, *, skip: int = 0) -> Page[FactView]:
        cap, cap_name = _cap(limits)
        if cap is not None:
            sql += " LIMIT ?"
            args = [*args, cap + 1]
        deadline = limits.deadline()
        rows = self._db.execute(sql, args).fetchall()
        if skip:
            rows = [r[skip:] for r in rows]
        truncated, hit = False, None
        if cap is not None and len(rows) > cap:
            rows, truncated, hit = rows[:cap], True, cap_name
        views = self._views(rows)
        if deadline.expired():
            return Page.of(views, True, LimitHit.TIMEOUT)
        return Page.of(views, truncated, hit)

    def _views(self, rows: list[tuple]) -> list[FactView]:
        """Build views for rows of ``_COLS`` (qualifiers and evidence fetched in bulk)."""
        if not rows:
            return []
        db = self._db
        self._cache.terms_of(db, [i for r in rows for i in r[2:5]])
        quals: dict[int, list[tuple[str, int]]] = {}
        qfacts = sorted({r[0] for r in rows if r[5]})
        for k in range(0, len(qfacts), 500):
            part = qfacts[k:k + 500]
            for fid, key, tid in db.execute(
                f"SELECT fact_id, key, term_id FROM qualifiers WHERE fact_id IN ({','.join('?' * len(part))})", part
            ):
                quals.setdefault(fid, []).append((key, tid))
        evidence: dict[int, list[Evidence]] = {}
        sids = [r[7] for r in rows]
        for k in range(0, len(sids), 500):
            part = sids[k:k + 500]
            for e in db.execute(
                f"SELECT {_EV_COLS} FROM evidence WHERE sid IN ({','.join('?' * len(part))}) "
                "ORDER BY sid, document, chunk, char_start, char_end, extractor, extractor_version, "
                "confidence DESC, asserted_at, ev_hash", part,
            ):
                evidence.setdefault(e[0], []).append(Evidence(*e[1:]))
        term = self.term
        out = []
        for fid, fhash, s, p, o, nq, pol, sid, vf, vt, sf, st in rows:
            q = tuple((key, term(tid)) for key, tid in quals.get(fid, ())) if nq else ()
            fact = Fact(term(s), term(p), term(o), q, "affirm" if pol else "negate")  # type: ignore[arg-type]
            valid = Interval(vf, vt)
            out.append(FactView(fact, fhash.hex(), span_hash(fhash, valid, sf).hex(), valid, Interval(sf, st),
                                tuple(evidence.get(sid, ()))))
        return out
