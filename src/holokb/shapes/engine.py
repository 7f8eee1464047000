"""The pySHACL adapter: one pre-built shapes graph, validated against small data graphs.

``pyshacl.validate`` re-reads the shapes graph on every call and then scans targets over the
whole data graph; the gate instead builds pySHACL's ``ShapesGraph`` once and hands each
shape the focus nodes it computed itself (``Shape.validate(..., focus=...)`` skips target
discovery).  This module is the only one that touches pySHACL internals.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rdflib import Graph, URIRef
from rdflib.term import Node

from ..core.errors import Diagnostic
from .vocab import SH

_LOG = logging.getLogger("holokb.shapes.pyshacl")
_LOG.setLevel(logging.ERROR)  # pySHACL logs constraint-load warnings; the gate reports them itself


@dataclass(frozen=True, slots=True)
class RawResult:
    """One ``sh:ValidationResult`` as pySHACL produced it (shapes-graph nodes still raw)."""

    focus: Node
    path: Node | None
    value: Node | None
    component: URIRef | None
    shape: Node
    severity: URIRef
    messages: tuple[str, ...]


class DepthExceeded(Exception):
    """pySHACL gave up: the shape nesting is deeper than its validation-depth limit."""


class PyshaclEngine:
    """pySHACL with its shapes graph harvested once."""

    def __init__(self, shapes: Graph, *, max_depth: int = 15):
        from pyshacl.pytypes import SHACLExecutor
        from pyshacl.shapes_graph import ShapesGraph

        self._sg = ShapesGraph(shapes, False, _LOG)
        self._shapes = {s.node: s for s in self._sg.shapes}
        self._executor = SHACLExecutor(max_validation_depth=max_depth)

    def load_problems(self) -> list[tuple[Node, str, str]]:
        """(shape, message, spec link) for each constraint pySHACL refuses to build."""
        from pyshacl.constraints import CONSTRAINT_PARAMETERS_MAP
        from pyshacl.errors import ConstraintLoadWarning, ShapeLoadError

        out: list[tuple[Node, str, str]] = []
        for node, shape in self._shapes.items():
            seen = set()
            for p, _ in shape.sg.predicate_objects(node):
                component = CONSTRAINT_PARAMETERS_MAP.get(p)
                if component is None or component in seen:
                    continue
                seen.add(component)
                try:
                    component(shape)
                except ConstraintLoadWarning:
                    continue  # pySHACL ignores such a component at validation time, and so do we
                except ShapeLoadError as exc:
                    out.append((node, str(exc.message), str(exc.link)))
        return out

    def validate(self, data: Graph, focus: Sequence[tuple[Node, Sequence[Node]]]) -> list[RawResult]:
        """Validate the given focus nodes against each given shape (no target discovery)."""
        return self._run(data, ((self._shapes[s], list(nodes)) for s, nodes in focus))

    def validate_all(self, data: Graph) -> list[RawResult]:
        """Validate ``data`` against every shape, discovering targets in ``data`` (SHACL §3)."""
        order = sorted(self._shapes.values(), key=lambda s: str(s.node))
        return self._run(data, ((s, None) for s in order))

    def _run(self, data: Graph, jobs: Iterable[tuple[object, list[Node] | None]]) -> list[RawResult]:
        from pyshacl.errors import ReportableRuntimeError

        out: list[RawResult] = []
        try:
            for shape, nodes in jobs:
                _, reports = shape.validate(self._executor, data, focus=nodes)  # type: ignore[attr-defined]
                out.extend(_raw(r) for r in reports)
        except ReportableRuntimeError as exc:
            if "too deep" in str(exc):
                raise DepthExceeded(str(exc)) from exc
            raise
        return out


def _raw(report: tuple) -> RawResult:
    _desc, node, triples = report
    fields: dict[URIRef, Node] = {}
    messages: list[str] = []
    for s, p, o in triples:
        if s != node:  # sh:detail results of nested shapes hang off other nodes
            continue
        value = o[1] if isinstance(o, tuple) else o
        if p == SH.resultMessage:
            messages.append(str(value))
        else:
            fields[p] = value
    return RawResult(
        focus=fields[SH.focusNode],
        path=fields.get(SH.resultPath),
        value=fields.get(SH.value),
        component=fields.get(SH.sourceConstraintComponent),  # type: ignore[arg-type]
        shape=fields[SH.sourceShape],
        severity=fields.get(SH.resultSeverity, SH.Violation),  # type: ignore[arg-type]
        messages=tuple(sorted(messages)),
    )


def load_diagnostic(message: str, link: str, location, source_line) -> Diagnostic:
    """A pySHACL shape-load error as a holokb diagnostic citing the same clause."""
    return Diagnostic("HK-SHACL-shape", message, location, source_line=source_line,
                      notes=(f"W3C SHACL: {link}",))
