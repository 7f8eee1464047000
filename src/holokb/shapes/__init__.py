"""holokb.shapes: the SHACL gate (pySHACL as the engine, validation over deltas with context).

>>> from holokb.shapes import ShapesGate, EmptyContext
"""
from .context import ContextSource, EmptyContext, InMemoryContext
from .gate import ShapesGate
from .load import MalformedShapesError
from .report import GateReport, Violation

__all__ = ["ShapesGate", "GateReport", "Violation", "ContextSource", "EmptyContext", "InMemoryContext",
           "MalformedShapesError"]
