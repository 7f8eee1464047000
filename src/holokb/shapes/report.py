"""The gate's verdict: :class:`GateReport` with one :class:`Violation` per SHACL validation result.

Order is deterministic: violations sort by (focus node, path, constraint component, value,
shape label, severity, message), each compared as its N-Triples text; the shape is named by
its stable label, never by a blank-node id.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rdflib import URIRef
from rdflib.term import Node

from ..core.errors import Diagnostic, Location, ShapeViolationError
from ..core.limits import LimitHit
from ..core.time import Interval
from .vocab import SH, short_component

SourceRef = tuple[str, int]

_SEVERITY = {SH.Violation: "error", SH.Warning: "warning", SH.Info: "note"}


@dataclass(frozen=True, slots=True)
class Violation:
    """One validation result.

    ``path`` is the ``sh:resultPath``: a URIRef for a predicate path, SPARQL property-path text
    (e.g. ``"^<http://example.org/p>"``) for a complex one, None for node shapes.
    ``component`` is the short name, e.g. ``"sh:MinCountConstraintComponent"``.
    ``valid`` is where in valid time the result holds (None: at every instant, or an untimed check).
    """

    focus_node: Node
    path: URIRef | str | None
    value: Node | None
    component: str
    shape: str
    severity: str
    message: str
    source: SourceRef | None = None
    valid: Interval | None = None

    @property
    def code(self) -> str:
        """Diagnostic code, e.g. ``HK-SHACL-minCount``."""
        return "HK-SHACL-" + short_component(URIRef(str(SH) + self.component[3:])
                                              if self.component.startswith("sh:") else URIRef(self.component))

    def sort_key(self) -> tuple[str, ...]:
        """(focus, path, component, value, shape, severity, message, valid from) as text."""
        return (_text(self.focus_node), _path_text(self.path), self.component,
                _text(self.value), self.shape, self.severity, self.message,
                "" if self.valid is None else f"{self.valid.start:+021d}")

    def diagnostic(self) -> Diagnostic:
        """This result as a core :class:`Diagnostic` (located at its source statement when known)."""
        where = f" {_path_text(self.path)}" if self.path is not None else ""
        value = f" (value {_text(self.value)})" if self.value is not None else ""
        if self.valid is not None:
            value += f" during valid time {self.valid}"
        loc = Location(self.source[0], self.source[1], 1) if self.source else None
        return Diagnostic(
            code=self.code,
            message=f"{_text(self.focus_node)}{where}: {self.message}{value}",
            location=loc,
            severity=_SEVERITY.get(URIRef(str(SH) + self.severity[3:]), "error"),  # type: ignore[arg-type]
            notes=(f"shape {self.shape}, {self.component}",),
        )


@dataclass(frozen=True, slots=True)
class GateReport:
    """Outcome of a gate check or a full validation.

    ``conforms`` follows SHACL §3.6: true iff there are no results at all (any severity) — and
    a truncated report (a budget cut the check short) never conforms: the gate does not admit
    what it could not check.
    ``shapes_run`` names the shapes pySHACL evaluated (empty when no shape targets the batch);
    ``focus_count`` counts (focus node, shape) pairs; ``truncated``/``limit_hit`` say whether a
    budget cut the context walk short.
    """

    conforms: bool
    violations: tuple[Violation, ...] = ()
    shapes_run: tuple[str, ...] = ()
    focus_count: int = 0
    context_triples: int = 0
    truncated: bool = False
    limit_hit: LimitHit | None = None

    @property
    def has_errors(self) -> bool:
        """True when some result has severity sh:Violation (warnings and infos do not block)."""
        return any(v.severity == "sh:Violation" for v in self.violations)

    def diagnostics(self) -> list[Diagnostic]:
        """One diagnostic per violation, in report order."""
        return [v.diagnostic() for v in self.violations]

    def error(self) -> ShapeViolationError:
        """The error a writer raises to reject the batch (diagnostics and this report attached)."""
        why = f"budget {self.limit_hit} hit; batch not fully checked" if self.truncated else \
            f"{len(self.violations)} SHACL result(s)"
        return ShapeViolationError(f"batch rejected by the SHACL gate: {why}", tuple(self.diagnostics()), report=self)

    @staticmethod
    def of(violations: list[Violation], **extra) -> "GateReport":
        """A report with ``violations`` sorted and duplicates removed."""
        unique = sorted(set(violations), key=Violation.sort_key)
        return GateReport(conforms=not unique and not extra.get("truncated", False),
                          violations=tuple(unique), **extra)


def _text(node: Node | None) -> str:
    return "" if node is None else node.n3()


def _path_text(path: URIRef | str | None) -> str:
    if path is None:
        return ""
    return path.n3() if isinstance(path, URIRef) else path


def short_name(iri: Node | None) -> str:
    """``sh:`` prefixed name for SHACL IRIs, the IRI text otherwise."""
    if iri is None:
        return ""
    text = str(iri)
    return "sh:" + text[len(str(SH)):] if text.startswith(str(SH)) else text


def locate(v_focus: Node, path: Node | None, value: Node | None,
           sources: Mapping[tuple[Node, Node, Node], SourceRef] | None,
           by_subject: Mapping[Node, SourceRef] | None) -> SourceRef | None:
    """The (file, line) of the statement that caused a result, when ``sources`` knows it."""
    if not sources:
        return None
    if isinstance(path, URIRef) and value is not None:
        hit = sources.get((v_focus, path, value)) or sources.get((value, path, v_focus))
        if hit:
            return hit
    if by_subject:
        return by_subject.get(v_focus) or (by_subject.get(value) if value is not None else None)
    return None


def first_by_subject(sources: Mapping[tuple[Node, Node, Node], SourceRef]) -> dict[Node, SourceRef]:
    """Earliest source position of any statement about each subject."""
    out: dict[Node, SourceRef] = {}
    for (s, _p, _o), ref in sources.items():
        if s not in out or ref < out[s]:
            out[s] = ref
    return out


