"""holokb: a bitemporal, provenance-carrying knowledge base with rules, SHACL, SMT and SPARQL."""
from .core import (
    AsOf, Evidence, Fact, HolokbError, Interval, IRI, Limits, Literal, RuleSyntaxError,
    ShapeViolationError,
)

__version__ = "0.1.0"
__all__ = [
    "AsOf", "Evidence", "Fact", "HolokbError", "IRI", "Interval", "Limits", "Literal",
    "RuleSyntaxError", "ShapeViolationError", "__version__",
]
