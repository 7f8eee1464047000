"""What a SPARQL query runs over: an as-of snapshot, or the reified ledger view (design.md §5).

* **Snapshot** at an :class:`~holokb.core.AsOf`: the affirmed triples visible then (an
  unqualified fact in the default graph, a fact with the ``graph`` qualifier in that named
  graph; facts with other qualifiers are not plain triples and stay out) plus the closure of the
  rule program at the same AsOf (derived binary facts with an IRI subject, in the default
  graph; unary facts are ``rdf:type`` triples already).  Skolem IRIs become blank nodes.
* **Ledger view**: ``reified_quads(ledger.spans())`` — fact, span and evidence nodes in the
  default graph, the plain triples open "now" in the named graph ``hk:current``.

Each has a **fingerprint**: SHA-256 over the kind, the AsOf, the ledger's change marker and the
rule program, so any committed write or rule change gives a new one.
"""
from __future__ import annotations

import gc
import json
from itertools import chain
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterator, Literal as _Lit

from ..core.limits import LimitHit, Limits
from ..core.sha import sha256  # not hashlib: see core.sha
from ..core.time import AsOf
from ..core.vocab import HK

TRIPLE = HK + "triple"

if TYPE_CHECKING:  # the program is only passed through here: analysis loads with the rules
    from ..analysis import Program
    from ..core.terms import Term

ViewKind = _Lit["snapshot", "ledger"]
FORMAT_VERSION = 3  # bump when the layout of a built store changes (invalidates disk caches); 2: stats; 3: ids/


@dataclass(frozen=True, slots=True)
class SnapshotKey:
    """Names one store: its kind, AsOf, the ledger's change marker and the rule program's hash."""

    kind: ViewKind
    as_of: AsOf
    marker: tuple
    rules: str
    limits: str = ""

    @property
    def fingerprint(self) -> str:
        """SHA-256 hex of the whole key (what a disk cache is checked against)."""
        blob = json.dumps([FORMAT_VERSION, self.kind, self.as_of.system, self.as_of.valid, list(self.marker),
                           self.rules, self.limits])
        return sha256(blob.encode("utf-8")).hexdigest()


_LAST_PROGRAM: list = [None, ""]  # (program, hash) of the last call: a server asks for the same one per query


def program_hash(program: Program | None) -> str:
    """A stable hash of a rule program ("" for none): its IR, origins included."""
    if program is None or not (program.rules or program.facts):
        return ""
    if _LAST_PROGRAM[0] is program:  # identity, not equality: repr() of a large program costs milliseconds
        return _LAST_PROGRAM[1]
    h = sha256(repr(program).encode("utf-8")).hexdigest()
    _LAST_PROGRAM[:] = [program, h]
    return h


def ledger_marker(ledger: Any) -> tuple:
    """The ledger's write counter (bumped by every committed write, retractions included) plus its
    content marker (which tells a re-created file from the one a cache was built from)."""
    return (ledger.change_marker(), *ledger.content_marker())


def key_for(ledger: Any, kind: ViewKind, as_of: AsOf, program: Program | None, limits: Limits | None,
            *, rules_hash: str | None = None) -> SnapshotKey:
    """The key of the store a query at ``as_of`` needs (the ledger view ignores AsOf and rules);
    ``rules_hash`` stands for ``program_hash(program)`` when the program itself is not at hand."""
    marker = ledger_marker(ledger)
    if kind == "ledger":
        return SnapshotKey("ledger", AsOf.latest(), marker, "")
    rules = program_hash(program) if rules_hash is None else rules_hash
    # Time budgets are not part of the key: a closure they did not cut is the same closure.
    lim = "" if not rules or limits is None else repr(replace(limits, timeout_s=None, ends_at=None, max_results=None))
    return SnapshotKey("snapshot", as_of, marker, rules, lim)


@dataclass(frozen=True, slots=True)
class BuiltData:
    """N-Quads bytes for a store, how many lines, whether a closure budget cut the data short, the
    join-order statistics of its triples (:mod:`.join_stats`; None: queries run as written), and
    the integer table of :mod:`.idtable` when the data came from the ledger's id columns (then the
    N-Quads are written from the table, only when a pyoxigraph store is filled)."""

    raw: bytes | None
    quads: int
    truncated: bool = False
    limit_hit: LimitHit | None = None
    stats: dict | None = None
    table: Any = None  # idtable.IdTable

    @property
    def nquads(self) -> bytes:
        """The N-Quads bytes (one line per quad)."""
        return self.raw if self.raw is not None else self.table.nquads()


def snapshot_quads(ledger: Any, as_of: AsOf, program: Program | None, limits: Limits | None,
                   derive: Any = None, stored: Any = None) -> tuple[list[tuple[Term, Term, Term, Term | None]], bool, str | None]:
    """Plain visible quads plus derived triples at ``as_of`` (and the closure's truncation); the
    derived triples come from ``stored`` (a :func:`fresh_closure`) when given or found."""
    from ..core.terms import IRI  # the build paths only: a warm query needs no KB terms

    quads: list[tuple[Term, Term, Term, Term | None]] = list(ledger.visible_quads(as_of))
    truncated, hit = False, None
    stored = stored or stored_closure(ledger, program, as_of, limits)
    if stored is not None:
        quads.extend((s, p, o, None) for s, p, o in ledger.derived_triples(stored, as_of.valid, IRI(TRIPLE)))
    elif derive is not None and program is not None and program.rules:
        limits = limits.started() if limits is not None else None
        model = derive(program, as_of=as_of, limits=limits)
        truncated, hit = bool(model.truncated), model.limit_hit
        derived = model.derived(deadline=limits.deadline() if limits is not None else None)
        if len(derived) < model.derived_count():  # the deadline came while decoding
            truncated, hit = True, hit or LimitHit.TIMEOUT
        quads.extend(_derived_triples(derived, as_of))
    return quads, truncated, hit


def stored_closure(ledger: Any, program: Program | None, as_of: AsOf, limits: Limits | None) -> Any:
    """The ledger's stored closure that equals closing ``program`` at ``as_of`` now, or None: stored
    for the same rule set and AsOf, fresh (no write its AsOf can see came after it), complete, and
    asked for with no count budget that could have cut a new closure short (time budgets cut only
    the computing, which a stored closure does not need)."""
    if program is None or not program.rules:
        return None
    return fresh_closure(ledger, program.rule_set_hash, as_of, limits)


def fresh_closure(ledger: Any, rule_set_hash: str, as_of: AsOf, limits: Limits | None) -> Any:
    """:func:`stored_closure` by the rule set's hash (what a query knows from the rule-file digest)."""
    if not rule_set_hash or not hasattr(ledger, "closure_info"):
        return None
    if limits is not None and replace(limits, timeout_s=None, ends_at=None, max_results=None) != Limits.unbounded():
        return None
    info = ledger.closure_info(rule_set_hash, as_of)
    if info is None or info.stale or info.truncated:
        return None
    return info


def _derived_triples(derived: Any, as_of: AsOf) -> Iterator[tuple[Term, Term, Term, None]]:
    from ..core.terms import IRI

    cache: dict[str, IRI | None] = {}
    for d in derived:
        if d.negated or not isinstance(d.args[0] if d.args else None, IRI) or not d.valid.contains(as_of.valid):
            continue
        if d.predicate == TRIPLE and len(d.args) == 3:
            # hk:triple(s, p, o) from rules that quantify over properties is the entailed triple s p o
            if isinstance(d.args[1], IRI):
                yield d.args[0], d.args[1], d.args[2], None
            continue
        if len(d.args) != 2:
            continue
        p = cache.get(d.predicate, 0)
        if p == 0:
            try:
                p = cache[d.predicate] = IRI(d.predicate) if ":" in d.predicate else None
            except ValueError:
                p = cache[d.predicate] = None
        if p is not None:
            yield d.args[0], p, d.args[1], None


def build_data(ledger: Any, key: SnapshotKey, program: Program | None, limits: Limits | None,
               derive: Any = None, stored: Any = None) -> BuiltData:
    """The N-Quads bytes of the store named by ``key`` (``stored``: see :func:`snapshot_quads`)."""
    # Here, not at import: the writers need the KB's term classes, a query on a built store does not.
    from .nquads import NQuadsWriter

    if key.kind == "ledger":
        from ..rdf.mapping import reified_quads  # rdflib-side code: only the ledger view needs it

        quads = [(s, p, o, g) for s, p, o, g in reified_quads(ledger.spans())]
        data = NQuadsWriter(deskolemise=False).encode(quads)
        return BuiltData(data, len(quads))
    stored = stored or stored_closure(ledger, program, key.as_of, limits)
    if stored is not None or derive is None or program is None or not program.rules:
        return _data_from_ids(ledger, key.as_of, stored)
    quads, truncated, hit = snapshot_quads(ledger, key.as_of, program, limits, derive, stored)
    writer = NQuadsWriter(deskolemise=True)
    data = writer.encode(quads)
    from .join_stats import from_terms

    return BuiltData(data, len(quads), truncated, hit, from_terms(((s, p, o) for s, p, o, _ in quads), writer.term))


def _data_from_ids(ledger: Any, as_of: AsOf, stored: Any) -> BuiltData:
    """The snapshot's N-Quads when everything in it is in the ledger (the visible quads, and the
    derived triples of ``stored`` when given): written from term id columns and one text per
    distinct term, with no term object per fact.  Kept as the integer table of :mod:`.idtable`
    (canonical terms, each quad once; the N-Quads written from it when a store is filled), or, when
    a text cannot be held in one, as lines in no particular order that may repeat
    (``Ledger.visible_id_sets``).  Either fills a store with the same quads as
    :func:`snapshot_quads` + NQuadsWriter (tests/sparql/test_stored_snapshot.py)."""
    from ..core.terms import IRI
    from .nquads import encode_columns

    paused = gc.isenabled()
    gc.disable()  # the id rows are new tuples: no cyclic collections over them while they are read
    try:
        triples, quads = ledger.visible_id_sets(as_of)
        groups = [tuple(zip(*triples))] if triples else []
        if stored is not None:
            derived = ledger.derived_triple_columns(stored, as_of.valid, IRI(TRIPLE))
            if derived[0]:
                groups.append(derived)
        n = sum(len(g[0]) for g in groups) + len(quads)
        texts = _texts(ledger, n, groups, quads)
        from .join_stats import from_ids

        from .idtable import build

        table = build(groups, quads, texts)
        if table is not None:  # canonical terms, distinct triples: lines as the table writes them
            return BuiltData(None, len(table) + len(table.quads) // 4, stats=table.stats(), table=table)
        stats = from_ids(groups + ([tuple(zip(*quads))[:3]] if quads else []), texts.__getitem__)
        return BuiltData(encode_columns(texts, groups, quads), n, stats=stats)
    finally:
        if paused:
            gc.enable()


def _texts(ledger: Any, n: int, groups: list, quads: list) -> dict[int, str] | list[str | None]:
    """Each needed term id's N-Quads text: all terms in one scan when the dictionary is not much
    larger than the lines (a list indexed by id), else only the ids used (a dict)."""
    from .nquads import row_text

    rows = ledger.all_term_rows(3 * n + 1024)
    if rows is not None:
        texts: list[str | None] = [None] * (max((r[0] for r in rows), default=0) + 1)
        for tid, kind, lexical, datatype, lang in rows:
            texts[tid] = row_text(kind, lexical, datatype, lang, True)
        return texts
    ids = set(chain.from_iterable(chain.from_iterable(groups)))
    ids.update(chain.from_iterable(quads))
    return {i: row_text(*row, True) for i, row in ledger.term_rows(ids).items()}
