"""holokb: a bitemporal, provenance-carrying knowledge base with rules, SHACL, SMT and SPARQL."""
from typing import TYPE_CHECKING

from ._lazy import lazy_names

__version__ = "0.1.0"

# Names load on first use: KnowledgeBase pulls in rdflib and pySHACL, and ``import holokb.cli``
# (each command's start) then loads only the core modules that command needs.
__getattr__, __dir__ = lazy_names(__name__, {
    "KnowledgeBase": "kb",
    **dict.fromkeys(["AsOf", "Evidence", "Fact", "HolokbError", "Interval", "IRI", "Limits", "Literal",
                     "RuleSyntaxError", "ShapeViolationError"], "core"),
})

if TYPE_CHECKING:
    from .core import (
        AsOf, Evidence, Fact, HolokbError, Interval, IRI, Limits, Literal, RuleSyntaxError,
        ShapeViolationError,
    )
    from .kb import KnowledgeBase

__all__ = [
    "AsOf", "Evidence", "KnowledgeBase", "Fact", "HolokbError", "IRI", "Interval", "Limits", "Literal",
    "RuleSyntaxError", "ShapeViolationError", "__version__",
]
