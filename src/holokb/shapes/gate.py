"""The SHACL gate: what may enter the KB.

``ShapesGate.load(paths)`` reads shapes once (well-formedness checked, targets indexed);
``gate.check(batch, context)`` validates a write batch plus the context it needs, running
pySHACL only for shapes that target a node the batch mentions; ``gate.validate_full(data)``
validates a whole snapshot.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from rdflib import Graph, Literal, URIRef
from rdflib.term import Node

from ..core.errors import Diagnostic
from ..core.limits import LimitHit, Limits
from .batchview import view
from .context import ContextSource, EmptyContext
from .engine import DepthExceeded, PyshaclEngine, RawResult, load_diagnostic
from .fetch import ContextFetch
from .load import Locator, MalformedShapesError, SourceText, check_well_formed, parse_files, shape_nodes
from .plans import ShapePlan, read_path, read_plan, shape_labels
from .report import GateReport, SourceRef, Violation, first_by_subject, locate, short_name
from .targets import (ShapeTargets, TargetIndex, build_index, read_targets, subclass_edges,
                      superclass_closure)
from .timed import ALWAYS, RecordingContext, Timeline, TimedContextSource, ValidMap, batch_bounds, merge, segments
from .vocab import RDFS

Triple = tuple[Node, Node, Node]


class ShapesGate:
    """A loaded shapes graph, ready to gate batches.

    >>> gate = ShapesGate.from_graph(Graph())
    >>> gate.check(Graph(), EmptyContext()).conforms
    True
    """

    def __init__(self, shapes: Graph, texts: Sequence[SourceText] = ()):
        locator = Locator(shapes, texts)
        problems = check_well_formed(shapes, locator)
        if problems:
            raise MalformedShapesError(f"{len(problems)} problem(s) in the shapes graph", tuple(problems))
        try:
            self._engine = PyshaclEngine(shapes)
        except Exception as exc:  # pySHACL's harvest raises ShapeLoadError with the clause link
            link = getattr(exc, "link", None)
            raise MalformedShapesError(str(getattr(exc, "message", exc)), (Diagnostic(
                "HK-SHACL-shape", str(getattr(exc, "message", exc)),
                notes=(f"W3C SHACL: {link}",) if link else ()),)) from exc
        engine_problems = [load_diagnostic(msg, link, locator.locate(node), None)
                           for node, msg, link in self._engine.load_problems()]
        if engine_problems:
            raise MalformedShapesError(f"{len(engine_problems)} problem(s) in the shapes graph",
                                       tuple(engine_problems))
        self.shapes_graph = shapes
        nodes = shape_nodes(shapes)
        labels = shape_labels(shapes, nodes)
        self._labels = labels
        self._plans: dict[Node, ShapePlan] = {n: read_plan(shapes, n, labels[n]) for n in nodes}
        targeted = [n for n in nodes if not self._plans[n].deactivated]
        targets = [read_targets(shapes, n) for n in targeted]
        keep = [i for i, t in enumerate(targets) if not t.empty]
        self._targeted: tuple[Node, ...] = tuple(targeted[i] for i in keep)
        self._targets: tuple[ShapeTargets, ...] = tuple(targets[i] for i in keep)
        self._edges = subclass_edges(shapes)
        self._closure = superclass_closure(self._edges)
        self._index: TargetIndex = build_index(self._targets, self._edges)
        self._nm = shapes.namespace_manager

    @classmethod
    def load(cls, paths: Sequence[Path]) -> "ShapesGate":
        """Load Turtle shapes files (domain shapes plus any ontology axioms they carry)."""
        graph, texts = parse_files(paths)
        return cls(graph, texts)

    @classmethod
    def from_graph(cls, shapes: Graph) -> "ShapesGate":
        """A gate over an already-parsed shapes graph."""
        return cls(shapes)

    @property
    def targeted_shapes(self) -> tuple[str, ...]:
        """Labels of the active shapes that declare targets, sorted."""
        return tuple(sorted(self._labels[n] for n in self._targeted))

    # -- the batch path ---------------------------------------------------------------------
    def check(self, batch: Graph, context: ContextSource, *,
              sources: Mapping[Triple, SourceRef] | None = None,
              limits: Limits | None = None, valid: ValidMap | None = None) -> GateReport:
        """Validate ``batch`` together with the context it needs from ``context``.

        Focus nodes are the batch's subjects and objects that some shape targets (types and
        target predicates are looked up in the batch and the context).  A batch no shape
        targets returns a conforming report without running pySHACL.

        Valid time (:mod:`holokb.shapes.timed`): ``valid`` says where batch triples hold (one
        interval or several per triple; absent = always), and a context that is also a
        :class:`TimedContextSource` gives its values with intervals.  Then the batch conforms when
        every elementary valid-time segment's snapshot does, and each violation carries where it
        holds.  Without bounded intervals this is one untimed check.
        """
        timed = isinstance(context, TimedContextSource)
        if not timed and not batch_bounds(valid):
            return self._check_at(batch, context, sources, limits)
        # The union of all valid times finds the focus and the context values that matter, and
        # where each holds; components with nothing time-bounded are checked once on the union.
        recording = RecordingContext(context) if timed else None  # type: ignore[arg-type]
        prepared = self._prepare(batch, recording or context, limits)
        if prepared is None:
            return GateReport(conforms=True)
        jobs, fetch, size = prepared
        line = Timeline(fetch.graph, batch, valid, recording.valid if recording else {})
        if not line.bounds:
            return self._run(prepared, sources)
        steady = [(shape, [n for n in focus if not line.timed(n)]) for shape, focus in jobs]
        moving = {n for _shape, focus in jobs for n in focus if line.timed(n)}
        steady = [j for j in steady if j[1]]
        parts = [(ALWAYS, self._run((steady, fetch, size), sources) if steady else GateReport(conforms=True))]
        seen: dict[frozenset, GateReport] = {}
        for seg in segments(line.bounds):
            graph_t = line.at(seg.start)
            key = frozenset(graph_t)
            if key not in seen:
                # Targets are re-read at the instant (a type may hold only part of the time);
                # only focus nodes of the union's timed components count.
                again = self._prepare(graph_t, EmptyContext(), limits, moving)
                if again is None:
                    seen[key] = GateReport(conforms=True)
                else:
                    jobs_t = [(shape, [n for n in focus if n in moving]) for shape, focus in again[0]]
                    seen[key] = self._run(([j for j in jobs_t if j[1]], again[1], again[2]), sources)
            parts.append((seg, seen[key]))
        return merge(parts)

    def _check_at(self, batch: Graph, context: ContextSource, sources: Mapping[Triple, SourceRef] | None,
                  limits: Limits | None) -> GateReport:
        """One untimed check: the batch and the context as one snapshot."""
        prepared = self._prepare(batch, context, limits)
        if prepared is None:
            return GateReport(conforms=True)
        return self._run(prepared, sources)

    def _prepare(self, batch: Graph, context: ContextSource, limits: Limits | None, mentioned: Iterable[Node] = ()):
        """The (shape, focus nodes) jobs and the data graph they read, or None when no shape targets the batch
        (``mentioned``: nodes that count as mentioned by the batch for ``sh:targetNode``)."""
        index = self._index
        closure = self._closure
        batch_edges = subclass_edges(batch)
        if batch_edges:  # a batch that brings its own ontology axioms widens class targets
            edges = self._edges | batch_edges
            index, closure = build_index(self._targets, edges), superclass_closure(edges)

        by_type, by_node = index.by_type, index.by_node
        by_subj, by_obj = index.by_subject_of, index.by_object_of
        with_literals = index.has_literal_targets
        seen = view(batch, literals=with_literals, predicates=bool(by_subj or by_obj), classes=by_type.keys())
        nodes, batch_types = seen.nodes, seen.types
        subj_preds, obj_preds = seen.subject_predicates, seen.object_predicates
        resources = [n for n in nodes if type(n) is not Literal] if with_literals else nodes
        kb_types = context.types_of(resources) if by_type else {}

        focus: dict[int, set[Node]] = {}

        def hit(shapes, node: Node) -> None:
            for i in shapes:
                focus.setdefault(i, set()).add(node)

        if by_node:
            for n in (nodes | set(mentioned)) & by_node.keys():
                hit(by_node[n], n)
        if by_type:
            for typed in (batch_types, kb_types):
                for n, classes in typed.items():
                    for t in classes:
                        shapes = by_type.get(t)
                        if shapes:
                            hit(shapes, n)
        if by_subj:
            for n in resources:
                for p, shapes in by_subj.items():
                    if p in subj_preds.get(n, ()) or context.values_of(n, p):
                        hit(shapes, n)
        if by_obj:
            for n in nodes:
                for p, shapes in by_obj.items():
                    if p in obj_preds.get(n, ()) or context.subjects_of(p, n):
                        hit(shapes, n)
        if not focus:
            return None

        limits = limits or Limits()
        fetch = ContextFetch(batch, context, max_nodes=limits.max_edges)
        fetch.add_types(kb_types)
        fetch.mark_typed(resources if index.by_type else ())
        jobs: list[tuple[Node, list[Node]]] = []
        for i in sorted(focus, key=lambda i: (self._labels[self._targeted[i]], i)):
            shape = self._targeted[i]
            ordered = sorted(focus[i], key=lambda n: n.n3())
            for n in ordered:
                fetch.walk(n, shape, self._plans)
            jobs.append((shape, ordered))
        fetch.fetch_missing_types()
        fetch.add_hierarchy(closure)
        for edge in batch_edges:
            fetch.graph.add((edge[0], RDFS.subClassOf, edge[1]))
        return jobs, fetch, len(batch)

    def _run(self, prepared, sources: Mapping[Triple, SourceRef] | None) -> GateReport:
        jobs, fetch, batch_size = prepared
        extra = dict(shapes_run=tuple(self._labels[s] for s, _ in jobs),
                     focus_count=sum(len(f) for _, f in jobs),
                     context_triples=len(fetch.graph) - batch_size,
                     truncated=fetch.truncated, limit_hit=LimitHit.MAX_EDGES if fetch.truncated else None)
        try:
            raw = self._engine.validate(fetch.graph, jobs)
        except DepthExceeded:
            return GateReport(conforms=False, truncated=True, limit_hit=LimitHit.MAX_DEPTH, **{
                k: v for k, v in extra.items() if k not in ("truncated", "limit_hit")})
        return GateReport.of(self._violations(raw, sources), **extra)

    # -- the whole-snapshot path --------------------------------------------------------------
    def validate_full(self, data: Graph, *, sources: Mapping[Triple, SourceRef] | None = None) -> GateReport:
        """Validate a whole snapshot against every shape (pySHACL discovers the targets)."""
        missing = [(s, RDFS.subClassOf, o) for s, o in self._edges if (s, RDFS.subClassOf, o) not in data]
        if missing:  # class targets and sh:class read the hierarchy from the data graph (SHACL §3.2)
            copy = Graph()
            for triple in data:
                copy.add(triple)
            for triple in missing:
                copy.add(triple)
            data = copy
        try:
            raw = self._engine.validate_all(data)
        except DepthExceeded:
            return GateReport(conforms=False, truncated=True, limit_hit=LimitHit.MAX_DEPTH)
        return GateReport.of(self._violations(raw, sources), shapes_run=self.targeted_shapes)

    def _violations(self, raw: list[RawResult], sources: Mapping[Triple, SourceRef] | None) -> list[Violation]:
        by_subject = first_by_subject(sources) if sources else None
        out: list[Violation] = []
        for r in raw:
            path: URIRef | str | None = None
            if isinstance(r.path, URIRef):
                path = r.path
            elif r.path is not None:
                path = read_path(self.shapes_graph, r.path).render()
            out.append(Violation(
                focus_node=r.focus, path=path, value=r.value,
                component=short_name(r.component), shape=self._label(r.shape),
                severity=short_name(r.severity),
                message=r.messages[0] if r.messages else short_name(r.component),
                source=locate(r.focus, r.path, r.value, sources, by_subject),
            ))
        return out

    def _label(self, shape: Node) -> str:
        label = self._labels.get(shape)
        if label is not None:
            return label
        return shape.n3(self._nm) if isinstance(shape, URIRef) else "_:shape"


__all__ = ["ShapesGate", "MalformedShapesError"]
