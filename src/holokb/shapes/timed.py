"""Valid time in the gate: a batch conforms when the KB conforms at every instant of valid time.

A property may have one value at a time: two values of ``ex:sessionTimeout`` valid one after the
other satisfy ``sh:maxCount 1``; overlapping ones violate it over their overlap.  The gate slices
the batch and the context into elementary valid-time segments (between consecutive interval
bounds, where nothing changes) and checks each segment's snapshot, so a verdict is the verdict
``validate`` would give at any instant of that segment.  A batch and context without bounded
intervals take the untimed path unchanged (one check, no slicing).

A context that knows valid time implements :class:`TimedContextSource` besides
:class:`~holokb.shapes.ContextSource`; values come with the interval where they hold.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Protocol, runtime_checkable

from rdflib import Graph, URIRef
from rdflib.term import Node

from ..core.time import Interval
from .report import GateReport, Violation

Triple = tuple[Node, Node, Node]
Timed = tuple[Node, Interval]
ALWAYS = Interval.always()


@runtime_checkable
class TimedContextSource(Protocol):
    """The existing KB with valid time: every value with an interval where it holds (one system time)."""

    def types_during(self, nodes: Collection[Node]) -> Mapping[Node, Sequence[Timed]]:
        """``rdf:type`` classes of each node, each with where it holds."""
        ...

    def values_during(self, subject: Node, predicate: URIRef) -> Sequence[Timed]:
        """Objects of ``subject predicate ?o``, each with where it holds."""
        ...

    def subjects_during(self, predicate: URIRef, obj: Node) -> Sequence[Timed]:
        """Subjects of ``?s predicate obj``, each with where it holds."""
        ...


class RecordingContext:
    """A context holding every value the timed context has at any valid time, remembering where
    each triple it served holds (``valid``)."""

    def __init__(self, timed: TimedContextSource):
        self._timed = timed
        self.valid: dict[Triple, list[Interval]] = {}

    def _keep(self, items: Iterable[Timed], triple) -> list[Node]:
        out: dict[Node, None] = {}
        for node, valid in items:
            self.valid.setdefault(triple(node), []).append(valid)
            out[node] = None
        return list(out)

    def types_of(self, nodes: Collection[Node]) -> Mapping[Node, frozenset[URIRef]]:
        from rdflib import RDF

        return {n: frozenset(self._keep(ts, lambda c, n=n: (n, RDF.type, c)))
                for n, ts in self._timed.types_during(nodes).items() if ts}

    def values_of(self, subject: Node, predicate: URIRef) -> Sequence[Node]:
        return self._keep(self._timed.values_during(subject, predicate), lambda o: (subject, predicate, o))

    def subjects_of(self, predicate: URIRef, obj: Node) -> Sequence[Node]:
        return self._keep(self._timed.subjects_during(predicate, obj), lambda s: (s, predicate, obj))


class InstantContext:
    """The timed context as it is at one instant of valid time."""

    def __init__(self, timed: TimedContextSource, t: int):
        self._timed = timed
        self._t = t

    def _at(self, items: Iterable[Timed]) -> list[Node]:
        return list(dict.fromkeys(n for n, valid in items if valid.contains(self._t)))

    def types_of(self, nodes: Collection[Node]) -> Mapping[Node, frozenset[URIRef]]:
        out = {}
        for n, ts in self._timed.types_during(nodes).items():
            classes = frozenset(self._at(ts))
            if classes:
                out[n] = classes
        return out

    def values_of(self, subject: Node, predicate: URIRef) -> Sequence[Node]:
        return self._at(self._timed.values_during(subject, predicate))

    def subjects_of(self, predicate: URIRef, obj: Node) -> Sequence[Node]:
        return self._at(self._timed.subjects_during(predicate, obj))


ValidMap = Mapping[Triple, "Interval | Sequence[Interval]"]


def intervals(valid: ValidMap | None, triple: Triple) -> tuple[Interval, ...]:
    """Where a batch triple holds (always, when ``valid`` does not say)."""
    if valid is None:
        return (ALWAYS,)
    got = valid.get(triple)
    if got is None:
        return (ALWAYS,)
    return (got,) if isinstance(got, Interval) else tuple(got) or (ALWAYS,)


def _bounds(valid: Interval, into: set[int]) -> None:
    if valid.start != ALWAYS.start:
        into.add(valid.start)
    if valid.end is not None:
        into.add(valid.end)


def batch_bounds(valid: ValidMap | None) -> set[int]:
    """The finite interval bounds of the batch's triples."""
    out: set[int] = set()
    for got in (valid or {}).values():
        for v in ((got,) if isinstance(got, Interval) else got):
            _bounds(v, out)
    return out


def _in_batch(batch, triple: Triple) -> bool:
    """Membership through the pattern index (a columnar batch has no ``in``; iterating would be O(n))."""
    return next(iter(batch.triples(triple)), None) is not None


class Timeline:
    """Where each triple of a data graph holds (batch intervals and the context's), and which focus
    nodes any of that can reach: a focus node's validation reads only its connected component
    (paths, values, their types), so a component without a bounded interval is checked once.

    Only the triples with a bounded interval are looked at up front (the batch's ``valid`` entries
    and the context values that came with intervals); components are found when first asked."""

    def __init__(self, graph: Graph, batch, batch_valid: ValidMap | None,
                 context_valid: Mapping[Triple, list[Interval]]):
        self._graph, self._batch = graph, batch
        self.valid: dict[Triple, tuple[Interval, ...]] = {}
        bounded = [t for t, got in (batch_valid or {}).items() if any(v != ALWAYS for v in intervals(batch_valid, t))]
        bounded += [t for t, ivs in context_valid.items() if ALWAYS not in ivs]
        for triple in dict.fromkeys(bounded):
            if triple not in graph:
                continue
            ivs = list(intervals(batch_valid, triple)) if _in_batch(batch, triple) else []
            ivs += context_valid.get(triple, [])
            if ALWAYS not in ivs:  # no interval given anywhere (a fetched type, the hierarchy) = always
                self.valid[triple] = tuple(ivs)
        self.bounds: set[int] = set()
        for ivs in self.valid.values():
            for v in ivs:
                _bounds(v, self.bounds)
        self._roots: tuple | None = None

    def _components(self):
        from rdflib import RDF, RDFS, Literal

        parent: dict[Node, Node] = {}

        def find(n: Node) -> Node:
            root = n
            while parent.get(root, root) != root:
                root = parent[root]
            while parent.get(n, n) != root:
                parent[n], n = root, parent[n]
            return root

        for s, p, o in self._graph:
            if p == RDFS.subClassOf or p == RDF.type or isinstance(o, Literal):
                continue
            a, b = find(s), find(o)
            if a != b:
                parent[a] = b
        return find, {find(s) for s, _p, _o in self.valid}

    def timed(self, node: Node) -> bool:
        """Whether something in the node's component holds only part of the time."""
        if self._roots is None:
            self._roots = self._components()
        find, roots = self._roots
        return find(node) in roots

    def at(self, t: int) -> Graph:
        """The timed components' triples that hold at ``t`` (and ontology axioms the batch brought)."""
        from rdflib import RDFS

        out = Graph()
        for triple in self._graph:
            if triple[1] == RDFS.subClassOf:
                if _in_batch(self._batch, triple):
                    out.add(triple)
            elif self.timed(triple[0]):
                ivs = self.valid.get(triple)
                if ivs is None or any(v.contains(t) for v in ivs):
                    out.add(triple)
        return out


def segments(bounds: set[int]) -> list[Interval]:
    """The elementary segments the bounds cut the timeline into, in order."""
    cuts = sorted(bounds)
    starts = [ALWAYS.start] + cuts
    return [Interval(s, starts[k + 1] if k + 1 < len(starts) else None) for k, s in enumerate(starts)]


def at_instant(batch: Graph, valid: ValidMap | None, t: int) -> Graph:
    """The batch triples that hold at ``t``."""
    out = Graph()
    for triple in batch:
        if any(v.contains(t) for v in intervals(valid, triple)):
            out.add(triple)
    return out


def merge(parts: Sequence[tuple[Interval, GateReport]]) -> GateReport:
    """One report for the whole timeline: each violation with the maximal interval where it holds
    (None when that is all of valid time); work counted over the segments."""
    spans: dict[Violation, list[Interval]] = {}
    for seg, report in parts:
        for v in report.violations:
            runs = spans.setdefault(v, [])
            if runs and runs[-1].end == seg.start:
                runs[-1] = Interval(runs[-1].start, seg.end)
            else:
                runs.append(seg)
    out = [_with_valid(v, run) for v, runs in spans.items() for run in runs]
    limits = [r.limit_hit for _, r in parts if r.limit_hit]
    shapes = sorted({s for _, r in parts for s in r.shapes_run})
    return GateReport.of(out, shapes_run=tuple(shapes), focus_count=sum(r.focus_count for _, r in parts),
                         context_triples=max((r.context_triples for _, r in parts), default=0),
                         truncated=any(r.truncated for _, r in parts), limit_hit=limits[0] if limits else None)


def _with_valid(v: Violation, run: Interval) -> Violation:
    from dataclasses import replace

    return replace(v, valid=None if run == ALWAYS else run)


class InMemoryTimedContext:
    """A :class:`TimedContextSource` (and plain context at ``at``, default: every value) over
    ``(s, p, o, valid)`` rows, for tests and benchmarks.

    >>> from rdflib import URIRef
    >>> e = lambda n: URIRef("http://e/" + n)
    >>> ctx = InMemoryTimedContext([(e("a"), e("p"), e("x"), Interval(0, 10))])
    >>> [str(v) for v, iv in ctx.values_during(e("a"), e("p"))], ctx.values_during(e("a"), e("p"))[0][1].end
    (['http://e/x'], 10)
    """

    def __init__(self, rows: Iterable[tuple[Node, Node, Node, Interval]]):
        from collections import defaultdict

        from rdflib import RDF

        spo: dict[tuple[Node, Node], list[Timed]] = defaultdict(list)
        pos: dict[tuple[Node, Node], list[Timed]] = defaultdict(list)
        types: dict[Node, list[Timed]] = defaultdict(list)
        for s, p, o, valid in rows:
            spo[(s, p)].append((o, valid))
            pos[(p, o)].append((s, valid))
            if p == RDF.type and isinstance(o, URIRef):
                types[s].append((o, valid))
        self._spo, self._pos, self._types = dict(spo), dict(pos), dict(types)

    def types_during(self, nodes: Collection[Node]) -> Mapping[Node, Sequence[Timed]]:
        return {n: self._types[n] for n in nodes if n in self._types}

    def values_during(self, subject: Node, predicate: URIRef) -> Sequence[Timed]:
        return self._spo.get((subject, predicate), ())

    def subjects_during(self, predicate: URIRef, obj: Node) -> Sequence[Timed]:
        return self._pos.get((predicate, obj), ())

    # the plain ContextSource view: every value at any time (what a timed check starts from)
    def types_of(self, nodes: Collection[Node]) -> Mapping[Node, frozenset[URIRef]]:
        return {n: frozenset(c for c, _ in ts) for n, ts in self.types_during(nodes).items()}

    def values_of(self, subject: Node, predicate: URIRef) -> Sequence[Node]:
        return list(dict.fromkeys(v for v, _ in self.values_during(subject, predicate)))

    def subjects_of(self, predicate: URIRef, obj: Node) -> Sequence[Node]:
        return list(dict.fromkeys(s for s, _ in self.subjects_during(predicate, obj)))
