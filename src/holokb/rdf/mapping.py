"""Between RDF quads and the ledger's SpanRecords (design.md §5).

Reading, a file's quads fall into four kinds:

1. **Reified history** (what :func:`holokb.rdf.export.ledger_trig` writes): default-graph triples
   whose subject is an ``hk:fact/…``, ``hk:span/…`` or ``hk:evidence/…`` node.  Each span node
   becomes the exact :class:`SpanRecord` it was written from (lossless).  Time values are
   ``xsd:dateTime`` (ms precision, years 1–9999) or ``xsd:long`` unix ms (any other instant);
   ``xsd:date`` is also accepted from hand-written files.  An absent ``hk:validFrom`` is -inf,
   an absent ``hk:validTo``/``hk:systemTo`` is open.  Evidence of a span is read in canonical
   order (by evidence node IRI).
2. **The named graph** ``hk:current``: a derived view of (1); ignored when the file holds a
   history, otherwise read as plain triples.
3. **Provenance blocks**, for people writing ``kb/*.trig`` by hand: a named graph whose name has
   hk: annotations in the default graph gives every triple inside it that valid time and
   evidence::

       ex:hr2024 { ex:alice ex:worksFor ex:acme . }
       ex:hr2024 hk:document "hr/2024.txt" ; hk:confidence 0.9 ;
                 hk:validFrom "2024-01-01T00:00:00Z"^^xsd:dateTime .

   Recognised annotations: ``hk:validFrom``, ``hk:validTo`` (the valid interval) and
   ``hk:document`` (required if any of the rest appear), ``hk:chunk``, ``hk:charStart``,
   ``hk:charEnd``, ``hk:extractor``, ``hk:extractorVersion``, ``hk:confidence``,
   ``hk:assertedAt`` (one :class:`Evidence`).  The annotation triples are consumed; the block's
   triples carry no graph qualifier.  Two more ask for ledger writes (:class:`Changes`):
   ``hk:retractedAt T`` retracts every fact of the graph at system time ``T`` (its open spans
   close; it takes no other annotation), and ``hk:supersedes true`` asserts each fact of the
   graph superseding the other values of its subject and predicate, as a functional predicate
   would.
4. **Everything else** is a plain fact: valid time open, system time ``[at, open)``.  A triple
   in any other named graph ``G`` gets the qualifier ``graph = G`` (so the same triple in two
   graphs is two facts, and nothing about the graph is lost).

Plain and block records come out in file order with duplicates dropped; history records come
first, sorted by span id.

The hk: namespace is a closed vocabulary (``vocab.VOCABULARY``, described in
``shapes/holokb.ttl``): any other hk: IRI is refused (HK311) with the nearest term as a hint.
Every diagnostic points at the triple that is wrong, as a parser read it (:mod:`holokb.rdf.locate`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterable, Iterator

from ..core import (
    MIN_TIME, DataSyntaxError, Diagnostic, Evidence, Fact, Interval, InvalidValueError, Location,
    SpanRecord,
)
from ..core.terms import HK, IRI, XSD_DATE, XSD_DATETIME, Literal, Term, term_sort_key
from ..core.time import MAX_TIME, parse_date_ms, parse_datetime_ms
from ..ledger.derived import StoredClosure
from . import vocab as V
from .parse import Quad, Source

GRAPH_QUALIFIER = "graph"
_DATETIME_MIN = -62135596800000  # 0001-01-01T00:00:00Z
_DATETIME_MAX = 253402300799999  # 9999-12-31T23:59:59.999Z


class _Ctx:
    """Where diagnostics point: the source, read again by a parser that keeps positions when an
    error has to be located (:mod:`holokb.rdf.locate`; never a search of the raw text)."""

    __slots__ = ("src", "_locator")

    def __init__(self, src: Source | None):
        self.src = src
        self._locator = None

    def where(self, node: Term | None, prop: IRI | None = None) -> tuple[int, int] | None:
        """(line, column) of the triple ``node prop ?`` (its predicate), or of ``node`` anywhere."""
        if self.src is None or not isinstance(node, IRI):
            return None
        if self._locator is None:
            from .locate import TripleLocator

            self._locator = TripleLocator.of(self.src.data, self.src.format, base_iri=self.src.base_iri)
        loc = self._locator
        hit = loc.find(node.value, prop.value, term="predicate") if prop is not None else None
        return hit or loc.find(node.value) or loc.find_graph(node.value) or loc.find_iri(node.value)

    def error(self, node: Term | None, message: str, prop: IRI | None = None, *, code: str = "HK310",
              hint: str | None = None) -> DataSyntaxError:
        name = self.src.name if self.src else "<input>"
        pos = self.where(node, prop)
        line, col = pos or (1, 1)
        notes = () if pos is not None or self.src is None else ("the parser found no triple to point at",)
        diag = Diagnostic(code, message, Location(name, line, col), hint=hint, notes=notes)
        return DataSyntaxError(f"{name}:{line}:{col}: {message}", (diag,))


# ---------------------------------------------------------------- time values


def time_literal(ms: int) -> Literal:
    """The literal an instant is written as: xsd:dateTime when representable, else xsd:long."""
    if _DATETIME_MIN <= ms <= _DATETIME_MAX:
        return Literal(_iso(ms), XSD_DATETIME)
    return Literal(str(ms), V.XSD_LONG)


def _iso(ms: int) -> str:
    from datetime import datetime, timedelta, timezone

    dt = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)
    out = f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}"
    if dt.microsecond:
        out += f".{dt.microsecond // 1000:03d}"
    return out + "Z"


def time_value(lit: Term, ctx: _Ctx, what: str, node: IRI | None = None, prop: IRI | None = None) -> int:
    """Read an instant written as xsd:dateTime, xsd:date or an integer (unix ms)."""
    if isinstance(lit, Literal):
        try:
            if lit.datatype == XSD_DATETIME:
                return parse_datetime_ms(lit.lexical)
            if lit.datatype == XSD_DATE:
                return parse_date_ms(lit.lexical)
            v = lit.value
            if isinstance(v, int) and not isinstance(v, bool) and MIN_TIME <= v <= MAX_TIME:
                return v
        except InvalidValueError:
            pass
    raise ctx.error(node if node is not None else lit,
                    f"{what} must be an xsd:dateTime, xsd:date or xsd:long (unix ms), got {lit}", prop)


# ---------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class Retraction:
    """A fact a file retracts (``hk:retractedAt`` on its graph): its open spans close at ``at``."""

    fact: Fact
    at: int


@dataclass(frozen=True, slots=True)
class Changes:
    """What a file asks of the ledger: records to assert or restore, records that supersede the
    other values of their subject and predicate (``hk:supersedes true``), and retractions."""

    records: list[SpanRecord]
    supersede: list[SpanRecord]
    retract: list[Retraction]
    closures: list[StoredClosure] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Block:
    valid: Interval
    evidence: tuple[Evidence, ...]
    retracted_at: int | None
    supersedes: bool


def records_from_quads(quads: Iterable[Quad], *, at: int, src: Source | None = None,
                       system: Interval | None = None) -> list[SpanRecord]:
    """Turn parsed quads into SpanRecords (see the module doc for the four kinds of quad).

    Plain records get the system interval ``[at, open)``, or ``system`` when given (the loader
    passes ``Interval.always()``, which the ledger's bulk path reads as "assert at ``at``").
    A file that retracts or supersedes (``hk:retractedAt``, ``hk:supersedes``) asks for ledger
    writes that records cannot say: read it with :func:`changes_from_quads`.
    """
    changes = changes_from_quads(quads, at=at, src=src, system=system)
    if changes.retract or changes.supersede:
        what = "hk:retractedAt" if changes.retract else "hk:supersedes"
        raise _Ctx(src).error(None, f"{what} asks for a ledger write: load the file (holokb load) to apply it",
                              code="HK312")
    return changes.records


def changes_from_quads(quads: Iterable[Quad], *, at: int, src: Source | None = None,
                       system: Interval | None = None) -> Changes:
    """:func:`records_from_quads` plus what a file retracts and supersedes (named-graph annotations)."""
    ctx = _Ctx(src)
    history: dict[IRI, list[tuple[IRI, Term]]] = {}
    annotations: dict[IRI, list[tuple[IRI, Term, Quad]]] = {}
    current: list[Quad] = []
    rest: list[Quad] = []
    graphs: set[IRI] = set()
    block_props = {p.value for p in V.BLOCK_PROPERTIES}  # str: hashed once, unlike the IRI dataclass
    node_ns, hk = (V.FACT_NS, V.SPAN_NS, V.EVIDENCE_NS, V.CLOSURE_NS), HK
    checked: set[str] = set()
    for q in quads:
        s, p, o, g = q
        for t in (s, p, o, g):
            # Typos in the hk: namespace (hk:documnet) would silently become ordinary data.
            if type(t) is IRI and t.value.startswith(hk) and t.value not in checked:
                _check_vocabulary(t, ctx)
                checked.add(t.value)
        if g is None:
            if s.value.startswith(node_ns):
                history.setdefault(s, []).append((p, o))
                continue
            if p.value in block_props:
                annotations.setdefault(s, []).append((p, o, q))
                continue
        elif g == V.CURRENT:
            current.append(q)
            continue
        else:
            graphs.add(g)
        rest.append(q)

    out, closures = _history_records(history, ctx) if history else ([], [])
    blocks: dict[IRI, _Block] = {}
    for name, props in annotations.items():
        if name in graphs:
            blocks[name] = _block(name, props, ctx)
        else:  # hk: properties on something that is not a graph: ordinary data
            rest.extend(q for _, _, q in props)
    if not history:
        rest.extend(current)

    system = Interval(at, None) if system is None else system
    always = Interval.always()
    supersede: list[SpanRecord] = []
    retract: list[Retraction] = []
    # Keys of str (hash cached by Python) rather than the term dataclasses (hash recomputed).
    seen: set[tuple] = set()
    add = seen.add
    for s, p, o, g in rest:
        key = (s.value, p.value, o.value if type(o) is IRI else o, None if g is None else g.value)
        if key in seen:
            continue
        add(key)
        if g is None or g == V.CURRENT:
            out.append(SpanRecord(plain_fact(s, p, o), always, system))
        elif g in blocks:
            block = blocks[g]
            if block.retracted_at is not None:
                retract.append(Retraction(plain_fact(s, p, o), block.retracted_at))
            else:
                rec = SpanRecord(plain_fact(s, p, o), block.valid, system, block.evidence)
                (supersede if block.supersedes else out).append(rec)
        else:
            out.append(SpanRecord(Fact(s, p, o, ((GRAPH_QUALIFIER, g),)), always, system))
    return Changes(out, supersede, retract, closures)


def _check_vocabulary(t: IRI, ctx: _Ctx) -> None:
    if V.unknown_hk_term(t.value):
        near = V.closest_hk_term(t.value)
        raise ctx.error(t, f"unknown term <{t.value}> in the hk: namespace", code="HK311",
                        hint=f"did you mean {near}?" if near else "shapes/holokb.ttl lists the hk: vocabulary")


_set = object.__setattr__


def plain_fact(s: IRI, p: IRI, o: Term) -> Fact:
    """``Fact(s, p, o)`` without re-validating terms the parser already built as IRI/Literal.

    Fact.__post_init__ costs ~5 µs (isinstance checks, qualifier sorting); on a 100k-triple
    import that is half a second spent proving what the parser guarantees.  A test pins
    ``plain_fact(s, p, o) == Fact(s, p, o)``.
    """
    f = object.__new__(Fact)
    _set(f, "subject", s)
    _set(f, "predicate", p)
    _set(f, "object", o)
    _set(f, "qualifiers", ())
    _set(f, "polarity", "affirm")
    return f


def _one(node: IRI, props: dict[IRI, list[Term]], prop: IRI, ctx: _Ctx, required: bool = True) -> Term | None:
    vals = props.get(prop, [])
    if len(vals) > 1:
        raise ctx.error(node, f"{node} has {len(vals)} values for {prop}, expected at most one", prop)
    if not vals:
        if required:
            raise ctx.error(node, f"{node} lacks {prop}")
        return None
    return vals[0]


def _iri(node: IRI, v: Term | None, prop: IRI, ctx: _Ctx) -> IRI:
    if not isinstance(v, IRI):
        raise ctx.error(node, f"{prop} of {node} must be an IRI, got {v}", prop)
    return v


def _text(node: IRI, v: Term | None, prop: IRI, ctx: _Ctx) -> str | None:
    if v is None:
        return None
    if not isinstance(v, Literal) or not isinstance(v.value, str):
        raise ctx.error(node, f"{prop} of {node} must be a string literal, got {v}", prop)
    return v.lexical


def _int(node: IRI, v: Term | None, prop: IRI, ctx: _Ctx) -> int | None:
    if v is None:
        return None
    if not isinstance(v, Literal) or isinstance(v.value, bool) or not isinstance(v.value, int):
        raise ctx.error(node, f"{prop} of {node} must be an integer, got {v}", prop)
    return v.value


def _evidence(node: IRI, props: dict[IRI, list[Term]], ctx: _Ctx) -> Evidence:
    conf = _one(node, props, V.CONFIDENCE, ctx, required=False)
    if conf is None:
        confidence = 1.0
    elif isinstance(conf, Literal) and isinstance(conf.value, (int, float, Decimal)) \
            and not isinstance(conf.value, bool):
        confidence = float(conf.value)
    else:
        raise ctx.error(node, f"hk:confidence of {node} must be a number in [0, 1], got {conf}", V.CONFIDENCE)
    asserted = _one(node, props, V.ASSERTED_AT, ctx, required=False)
    try:
        return Evidence(
            document=_text(node, _one(node, props, V.DOCUMENT, ctx), V.DOCUMENT, ctx) or "",
            chunk=_text(node, _one(node, props, V.CHUNK, ctx, False), V.CHUNK, ctx),
            char_start=_int(node, _one(node, props, V.CHAR_START, ctx, False), V.CHAR_START, ctx),
            char_end=_int(node, _one(node, props, V.CHAR_END, ctx, False), V.CHAR_END, ctx),
            extractor=_text(node, _one(node, props, V.EXTRACTOR, ctx, False), V.EXTRACTOR, ctx) or "manual",
            extractor_version=_text(node, _one(node, props, V.EXTRACTOR_VERSION, ctx, False),
                                    V.EXTRACTOR_VERSION, ctx) or "0",
            confidence=confidence,
            asserted_at=None if asserted is None else time_value(asserted, ctx, "hk:assertedAt", node, V.ASSERTED_AT),
        )
    except InvalidValueError as e:
        bad = V.CONFIDENCE if "confidence" in e.message else V.CHAR_START if "char" in e.message else None
        raise ctx.error(node, e.message, bad) from None


def _interval(node: IRI, props: dict[IRI, list[Term]], lo: IRI, hi: IRI, ctx: _Ctx,
              lo_required: bool) -> Interval:
    a = _one(node, props, lo, ctx, lo_required)
    b = _one(node, props, hi, ctx, False)
    start = MIN_TIME if a is None else time_value(a, ctx, str(lo), node, lo)
    end = None if b is None else time_value(b, ctx, str(hi), node, hi)
    try:
        return Interval(start, end)
    except InvalidValueError as e:
        raise ctx.error(node, f"{node}: {e.message}", hi) from None


def _history_records(history: dict[IRI, list[tuple[IRI, Term]]],
                     ctx: _Ctx) -> tuple[list[SpanRecord], list[StoredClosure]]:
    nodes: dict[IRI, dict[IRI, list[Term]]] = {}
    for node, pairs in history.items():
        d: dict[IRI, list[Term]] = {}
        for p, o in pairs:
            lst = d.setdefault(p, [])
            if o not in lst:
                lst.append(o)
        nodes[node] = d
    facts: dict[IRI, Fact] = {}
    evidence: dict[IRI, Evidence] = {}
    used_facts: set[IRI] = set()
    out: list[tuple[str, SpanRecord]] = []
    for node in sorted(nodes, key=lambda n: n.value):
        props = nodes[node]
        kind = props.get(V.TYPE, [])
        if node.value.startswith(V.SPAN_NS) or V.SPAN_CLASS in kind:
            fnode = _iri(node, _one(node, props, V.FACT, ctx), V.FACT, ctx)
            fact = facts.get(fnode) or _fact(fnode, nodes, ctx)
            facts[fnode] = fact
            used_facts.add(fnode)
            evs = []
            for enode in sorted(props.get(V.EVIDENCE, []), key=term_sort_key):
                enode = _iri(node, enode, V.EVIDENCE, ctx)
                if enode not in nodes:
                    raise ctx.error(node, f"evidence node {enode} of {node} is not described", V.EVIDENCE)
                if enode not in evidence:
                    evidence[enode] = _evidence(enode, nodes[enode], ctx)
                evs.append(evidence[enode])
            valid = _interval(node, props, V.VALID_FROM, V.VALID_TO, ctx, False)
            system = _interval(node, props, V.SYSTEM_FROM, V.SYSTEM_TO, ctx, True)
            sid = V.span_id_of(node)
            out.append((sid, SpanRecord(fact, valid, system, tuple(evs), sid)))
    for node, props in nodes.items():
        if (node.value.startswith(V.FACT_NS) and "/q/" not in node.value[len(V.FACT_NS):]
                and node not in used_facts):
            raise ctx.error(node, f"fact node {node} has no span (every fact needs at least one)")
    out.sort(key=lambda kv: kv[0])
    from .closures import closures_from_nodes

    return [r for _, r in out], closures_from_nodes(nodes, ctx)


def _fact(fnode: IRI, nodes: dict[IRI, dict[IRI, list[Term]]], ctx: _Ctx) -> Fact:
    props = nodes.get(fnode)
    if props is None:
        raise ctx.error(fnode, f"fact node {fnode} is not described")
    s = _iri(fnode, _one(fnode, props, V.SUBJECT, ctx), V.SUBJECT, ctx)
    p = _iri(fnode, _one(fnode, props, V.PREDICATE, ctx), V.PREDICATE, ctx)
    o = _one(fnode, props, V.OBJECT, ctx)
    pol = _one(fnode, props, V.POLARITY, ctx, False)
    if pol not in (None, V.AFFIRM, V.NEGATE):
        raise ctx.error(fnode, f"hk:polarity of {fnode} must be hk:affirm or hk:negate, got {pol}", V.POLARITY)
    quals = []
    for qnode in props.get(V.QUALIFIER, []):
        qnode = _iri(fnode, qnode, V.QUALIFIER, ctx)
        qprops = nodes.get(qnode)
        if qprops is None:
            raise ctx.error(qnode, f"qualifier node {qnode} is not described")
        key = _text(qnode, _one(qnode, qprops, V.KEY, ctx), V.KEY, ctx)
        quals.append((key, _one(qnode, qprops, V.VALUE, ctx)))
    try:
        fact = Fact(s, p, o, tuple(quals), "negate" if pol == V.NEGATE else "affirm")  # type: ignore[arg-type]
    except InvalidValueError as e:
        raise ctx.error(fnode, e.message) from None
    if V.fact_iri(fact.id) != fnode:
        raise ctx.error(fnode, f"fact node {fnode} does not match its content (expected {V.fact_iri(fact.id)})")
    return fact


def _block(name: IRI, props_q: list[tuple[IRI, Term, Quad]], ctx: _Ctx) -> _Block:
    props: dict[IRI, list[Term]] = {}
    for p, o, _ in props_q:
        lst = props.setdefault(p, [])
        if o not in lst:
            lst.append(o)
    retracted = _one(name, props, V.RETRACTED_AT, ctx, False)
    supersedes = _one(name, props, V.SUPERSEDES, ctx, False)
    if supersedes is not None and not (isinstance(supersedes, Literal) and isinstance(supersedes.value, bool)):
        raise ctx.error(name, f"hk:supersedes of {name} must be true or false, got {supersedes}", V.SUPERSEDES)
    if retracted is not None:
        others = set(props) - {V.RETRACTED_AT}
        if others:
            other = sorted(others, key=lambda i: i.value)[0]
            raise ctx.error(name, f"{name} retracts its facts (hk:retractedAt), so {other} does not apply: a "
                            "retraction closes every open span of each fact", other)
        return _Block(Interval.always(), (), time_value(retracted, ctx, "hk:retractedAt", name, V.RETRACTED_AT),
                      False)
    valid = _interval(name, props, V.VALID_FROM, V.VALID_TO, ctx, False)
    evidence_props = set(props) - {V.VALID_FROM, V.VALID_TO, V.SUPERSEDES}
    evidence = (_evidence(name, props, ctx),) if evidence_props else ()
    return _Block(valid, evidence, None, bool(supersedes is not None and supersedes.value))


# ---------------------------------------------------------------- writing


def reified_quads(records: Iterable[SpanRecord]) -> Iterator[Quad]:
    """The reified history of ``records`` plus the ``hk:current`` view, as quads (unsorted)."""
    seen_facts: set[str] = set()
    seen_ev: set[IRI] = set()
    current: set[tuple[IRI, IRI, Term]] = set()
    for rec in records:
        f = rec.fact
        fid = f.id
        fnode = V.fact_iri(fid)
        if fid not in seen_facts:
            seen_facts.add(fid)
            yield fnode, V.TYPE, V.FACT_CLASS, None
            yield fnode, V.SUBJECT, f.subject, None
            yield fnode, V.PREDICATE, f.predicate, None
            yield fnode, V.OBJECT, f.object, None
            yield fnode, V.POLARITY, V.NEGATE if f.polarity == "negate" else V.AFFIRM, None
            for key, val in f.qualifiers:
                qnode = V.qualifier_iri(fid, key)
                yield fnode, V.QUALIFIER, qnode, None
                yield qnode, V.TYPE, V.QUALIFIER_CLASS, None
                yield qnode, V.KEY, Literal(key), None
                yield qnode, V.VALUE, val, None
        snode = V.span_iri(rec.span_id if rec.span_id is not None else V.derived_span_id(rec))
        yield snode, V.TYPE, V.SPAN_CLASS, None
        yield snode, V.FACT, fnode, None
        if rec.valid.start != MIN_TIME:
            yield snode, V.VALID_FROM, time_literal(rec.valid.start), None
        if rec.valid.end is not None:
            yield snode, V.VALID_TO, time_literal(rec.valid.end), None
        yield snode, V.SYSTEM_FROM, time_literal(rec.system.start), None
        if rec.system.end is not None:
            yield snode, V.SYSTEM_TO, time_literal(rec.system.end), None
        for ev in rec.evidence:
            enode = V.evidence_iri(ev)
            yield snode, V.EVIDENCE, enode, None
            if enode not in seen_ev:
                seen_ev.add(enode)
                yield from _evidence_quads(enode, ev)
        if f.polarity == "affirm" and rec.system.end is None and rec.valid.end is None:
            current.add((f.subject, f.predicate, f.object))
    for s, p, o in current:
        yield s, p, o, V.CURRENT


def _evidence_quads(enode: IRI, ev: Evidence) -> Iterator[Quad]:
    yield enode, V.TYPE, V.EVIDENCE_CLASS, None
    yield enode, V.DOCUMENT, Literal(ev.document), None
    if ev.chunk is not None:
        yield enode, V.CHUNK, Literal(ev.chunk), None
    if ev.char_start is not None:
        yield enode, V.CHAR_START, Literal(str(ev.char_start), V.XSD_INTEGER), None
        yield enode, V.CHAR_END, Literal(str(ev.char_end), V.XSD_INTEGER), None
    yield enode, V.EXTRACTOR, Literal(ev.extractor), None
    yield enode, V.EXTRACTOR_VERSION, Literal(ev.extractor_version), None
    yield enode, V.CONFIDENCE, Literal(repr(float(ev.confidence)), V.XSD_DOUBLE), None
    if ev.asserted_at is not None:
        yield enode, V.ASSERTED_AT, time_literal(ev.asserted_at), None
