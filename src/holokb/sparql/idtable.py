"""A snapshot's triples as integer columns, for :mod:`.bgp` (basic graph patterns answered without pyoxigraph).

Built from the same id columns :func:`.snapshot._data_from_ids` writes N-Quads from, with each term
given a *canonical* id: terms pyoxigraph holds as one term get one id.  pyoxigraph normalises the
lexical form of literals of the XSD types it knows (``"01"^^xsd:integer`` is ``1``, ``"1.0"^^xsd:decimal``
is ``1``) and lower-cases language tags, so such literals are passed through pyoxigraph's own parser
once, at build time; every other term keeps its N-Triples text.  Canonical id = rank of the term's
N-Triples text (:meth:`RDFTerm.n3`) in sorted order, so a query constant is found by bisection.

Held, as ``array('i')`` columns (a warm ``holokb query`` reads them without importing numpy, which
costs ~0.1 s of the command's ~0.15 s): the default graph's distinct triples twice, ``p s o`` sorted
by (p, s, o) and ``o2 s2`` the same triples sorted by (p, o, s) (the predicate column is the same
in both), so a pattern with a constant predicate and subject or object is a bisected range;
``quads`` (named-graph quads, four ids each, only to fill the pyoxigraph store from the table);
``rank`` (canonical id -> position in SPARQL result order, :meth:`RDFTerm.sort_key`); ``texts``
(canonical id -> N-Triples text).  On disk: one ``<name>.i32`` file per column, ``texts.txt`` (one
text a line: N-Triples texts hold no line break) and ``table.json`` (sizes and byte order).
"""
from __future__ import annotations

import json
import os
import re
import sys
from array import array
from bisect import bisect_left, bisect_right
from pathlib import Path
from typing import Any, Sequence

from .results import RDFTerm
from .tsv_results import parse_term

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_BITS = 21  # ids packed three to an int64 key while there are fewer than 2**21 terms
_COLUMNS = ("p", "s", "o", "o2", "s2", "quads", "rank")
_PLAIN = re.compile(r'"[^"\\\n\r\t\x08\x0c]*"\Z')  # what RDFTerm.n3 writes a plain string as


def as_numpy(a: array) -> Any:
    """An ``array('i')`` column as a numpy int32 array over the same memory (no copy)."""
    import numpy as np

    return np.frombuffer(a, dtype=np.int32) if len(a) else np.zeros(0, np.int32)


class IdTable:
    """The integer-encoded default graph of one snapshot (module doc)."""

    __slots__ = ("p", "s", "o", "o2", "s2", "quads", "rank", "texts", "_terms", "_unstable")

    def __init__(self, columns: dict[str, array], texts: list[str]):
        for name in _COLUMNS:
            setattr(self, name, columns[name])
        self.texts = texts
        self._terms: dict[int, RDFTerm] = {}
        self._unstable: bool | None = None

    def __len__(self) -> int:
        return len(self.p)

    def lookup(self, text: str) -> int | None:
        """The canonical id of the term whose N-Triples text (:meth:`RDFTerm.n3`) is ``text``, or None."""
        i = bisect_left(self.texts, text)
        return i if i < len(self.texts) and self.texts[i] == text else None

    def pattern_ids(self, pattern: Sequence[tuple[bool, str]]) -> list[int] | None:
        """The canonical ids of a triple pattern's terms ((is a variable, name or N-Triples text) each),
        -1 for a variable; None when a constant is not in the table (the pattern matches nothing)."""
        ids: list[int] = []
        for var, text in pattern:
            i = -1 if var else self.lookup(text)
            if i is None:
                return None
            ids.append(i)
        return ids

    def predicate_range(self, p: int) -> tuple[int, int]:
        """Rows ``[lo, hi)`` (in both orders) whose predicate is ``p``."""
        return bisect_left(self.p, p), bisect_right(self.p, p)

    def unstable_bnodes(self) -> bool:
        """Does a blank node have a label the canonical row order treats as minted (relabels)?"""
        if self._unstable is None:
            from .results import _STABLE_BNODE

            self._unstable = any(t[0] == "_" and not _STABLE_BNODE.match(t[2:]) for t in self.texts)
        return self._unstable

    def term(self, i: int) -> RDFTerm:
        """The result term of canonical id ``i`` (made once per table)."""
        t = self._terms.get(i)
        if t is None:
            t = self._terms[i] = parse_term(self.texts[i])
        return t

    # -- disk --------------------------------------------------------------------------------

    def save(self, folder: Path) -> None:
        """Write the table's files into ``folder`` (which must exist); ``table.json`` last."""
        for name in _COLUMNS:
            with open(folder / f"{name}.i32", "wb") as f:
                getattr(self, name).tofile(f)
        (folder / "texts.txt").write_text("\n".join(self.texts), encoding="utf-8")
        sizes = {name: len(getattr(self, name)) for name in _COLUMNS}
        (folder / "table.json").write_text(json.dumps({"byteorder": sys.byteorder, "terms": len(self.texts),
                                                       "sizes": sizes}), encoding="utf-8")

    @staticmethod
    def load(folder: Path) -> "IdTable | None":
        """The table saved in ``folder``, or None when it is not there, incomplete or unreadable."""
        try:
            meta = json.loads((folder / "table.json").read_text(encoding="utf-8"))
            columns = {}
            for name in _COLUMNS:
                a = array("i")
                a.frombytes((folder / f"{name}.i32").read_bytes())
                if meta["byteorder"] != sys.byteorder:
                    a.byteswap()
                if len(a) != meta["sizes"][name]:
                    return None
                columns[name] = a
            raw = (folder / "texts.txt").read_text(encoding="utf-8")
        except (OSError, ValueError, KeyError, TypeError):
            return None
        texts = raw.split("\n") if raw else []
        if len(texts) != meta["terms"] or len(columns["rank"]) != len(texts):
            return None
        return IdTable(columns, texts)

    def stats(self) -> dict:
        """The join-order statistics (:mod:`.join_stats`) of the table's triples and quads."""
        from .join_stats import from_ids

        col = as_numpy
        q = col(self.quads)
        groups = [(col(self.s), col(self.p), col(self.o))] + ([(q[0::4], q[1::4], q[2::4])] if len(q) else [])
        return from_ids(groups, self.texts.__getitem__)

    def nquads(self) -> bytes:
        """The N-Quads of the whole snapshot (default graph and named graphs), to fill a pyoxigraph store."""
        from .nquads import encode_columns

        q = self.quads
        quads = list(zip(q[0::4], q[1::4], q[2::4], q[3::4]))
        return encode_columns(self.texts, [(self.s, self.p, self.o)] if len(self.p) else [], quads)


def build(triples: Sequence[tuple[Sequence[int], Sequence[int], Sequence[int]]], quads: Sequence[tuple[int, int, int, int]],
          text: Any) -> IdTable | None:
    """The table of default-graph triples given as id column groups and named-graph ``quads``; ``text``
    maps (indexes) a ledger term id to its N-Quads text (``nquads.row_text``).  None when a text
    cannot be held one to a line, or there are too many terms for 32-bit ids."""
    import numpy as np

    cols = [np.concatenate([np.asarray(g[k], dtype=np.int64) for g in triples]) if triples else np.zeros(0, np.int64)
            for k in range(3)]
    q = np.asarray(quads, dtype=np.int64).reshape(-1, 4)
    top = max([int(c.max()) for c in cols if len(c)] + [int(q.max()) if len(q) else 0, 0])
    seen = np.zeros(top + 1, dtype=bool)  # the ids used, without a sort
    for c in cols + [q.ravel()]:
        seen[c] = True
    used = np.flatnonzero(seen)
    raw = [text[i] for i in used.tolist()]
    if len(raw) >= 2**31 - 1 or any(t is None or "\n" in t for t in raw):
        return None
    canon, keys = _canonical(raw)
    if any("\n" in t for t in canon):
        return None
    key_of = dict(zip(canon, keys))  # a canonical text's sort key (the same for each text that gives it)
    texts = sorted(key_of)
    index = {t: i for i, t in enumerate(texts)}
    remap = np.zeros(top + 1, dtype=np.int64)
    remap[used] = np.fromiter(map(index.__getitem__, canon), dtype=np.int64, count=len(canon))
    s, p, o = (remap[c] for c in cols)
    spo = _distinct_rows(p, s, o)  # columns p, s, o, sorted
    pos = _sorted_pos(spo)
    qq = np.unique(remap[q], axis=0) if len(q) else q  # each quad once (two ids may name one canonical term)
    order = sorted(range(len(texts)), key=lambda i: key_of[texts[i]])
    rank = np.empty(len(texts), dtype=np.int64)
    rank[order] = np.arange(len(texts))

    def col(x: Any) -> array:
        a = array("i")
        a.frombytes(np.ascontiguousarray(x, dtype=np.int32).tobytes())
        return a

    return IdTable({"p": col(spo[:, 0]), "s": col(spo[:, 1]), "o": col(spo[:, 2]), "o2": col(pos[:, 2]),
                    "s2": col(pos[:, 1]), "quads": col(qq.ravel()), "rank": col(rank)}, texts)


def _distinct_rows(a: Any, b: Any, c: Any) -> Any:
    """The distinct rows (a, b, c), sorted."""
    import numpy as np

    from ..core.arrays import distinct

    if not len(a):
        return np.zeros((0, 3), np.int64)
    if max(int(a.max()), int(b.max()), int(c.max())) < 2**_BITS:
        keys = distinct((a << (2 * _BITS)) | (b << _BITS) | c)
        mask = (1 << _BITS) - 1
        return np.stack([keys >> (2 * _BITS), (keys >> _BITS) & mask, keys & mask], axis=1)
    return np.unique(np.stack([a, b, c], axis=1), axis=0)


def _sorted_pos(spo: Any) -> Any:
    """The rows (p, s, o) of ``spo`` sorted by (p, o, s)."""
    import numpy as np

    if not len(spo):
        return spo
    if int(spo.max()) < 2**_BITS:
        keys = np.sort((spo[:, 0] << (2 * _BITS)) | (spo[:, 2] << _BITS) | spo[:, 1])
        mask = (1 << _BITS) - 1
        return np.stack([keys >> (2 * _BITS), keys & mask, (keys >> _BITS) & mask], axis=1)
    return spo[np.lexsort((spo[:, 1], spo[:, 2], spo[:, 0]))]


def _canonical(raw: list[str]) -> tuple[list[str], list[tuple]]:
    """Each N-Quads text's canonical text (:meth:`RDFTerm.n3` of the term pyoxigraph gives back for
    it, module doc) and :meth:`RDFTerm.sort_key`.  IRIs and blank nodes are their own text; only
    literals are read as terms."""
    canon: list[str] = list(raw)
    keys: list[tuple] = [()] * len(raw)
    literals: list[int] = []
    for k, t in enumerate(raw):
        if t[0] == "<":
            keys[k] = (2, t[1:-1], "", "")
        elif t[0] == "_":
            keys[k] = (1, t[2:], "", "")
        elif _PLAIN.match(t):  # a plain string that needs no escape: its own text
            keys[k] = (3, t[1:-1], _XSD_STRING, "")
        else:
            literals.append(k)
    terms = _canonical_terms([raw[k] for k in literals])
    for k, term in zip(literals, terms):
        canon[k], keys[k] = term.n3(), term.sort_key()
    return canon, keys


def _canonical_terms(raw: list[str]) -> list[RDFTerm]:
    """Each N-Quads text as the :class:`RDFTerm` pyoxigraph would give back for it (module doc)."""
    terms = [parse_term(t) for t in raw]
    for k, t in enumerate(terms):
        if t.lang and t.lang != t.lang.lower():  # pyoxigraph holds language tags in lower case
            terms[k] = RDFTerm.literal(t.value, lang=t.lang.lower())
    typed = [k for k, t in enumerate(terms)
             if t.kind == "literal" and not t.lang and t.datatype not in (None, _XSD_STRING)]
    if typed:
        import pyoxigraph as ox

        # The parser keeps lexical forms; the store normalises them (it keeps values).
        lines = "".join(f"<x:{k}> <x:p> {raw[k]} .\n" for k in typed).encode("utf-8")
        store = ox.Store()
        store.bulk_extend(ox.parse(lines, format=ox.RdfFormat.N_TRIPLES, lenient=True))
        for q in store:
            lit = q.object
            terms[int(q.subject.value[2:])] = RDFTerm.literal(lit.value, lit.datatype.value, lit.language)
    return terms


def table_folder(store_folder: str | os.PathLike) -> Path:
    """Where a disk snapshot keeps its table: ``ids/`` beside ``meta.json``."""
    return Path(store_folder) / "ids"


class TableRef:
    """A snapshot's table, read from its folder on first use (a query that pyoxigraph answers never reads it)."""

    __slots__ = ("_folder", "_table", "_read")

    def __init__(self, table: IdTable | None = None, folder: Path | None = None):
        self._table, self._folder, self._read = table, folder, table is not None

    def get(self) -> IdTable | None:
        """The table, or None when its files cannot be read (then pyoxigraph answers)."""
        if not self._read:
            self._read = True
            self._table = IdTable.load(self._folder) if self._folder is not None else None
        return self._table
