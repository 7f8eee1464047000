"""holokb: a bitemporal, provenance-carrying knowledge base with rules, SHACL, SMT and SPARQL."""
from .core import (
    AsOf, Evidence, Fact, HolokbError, Interval, IRI, Limits, Literal, RuleSyntaxError,
    ShapeViolationError,
)

__version__ = "0.1.0"


def __getattr__(name: str):
    # KnowledgeBase pulls in rdflib and pySHACL: import it only when asked for.
    if name == "KnowledgeBase":
        from .kb import KnowledgeBase

        return KnowledgeBase
    raise AttributeError(name)

__all__ = [
    "AsOf", "Evidence", "KnowledgeBase", "Fact", "HolokbError", "IRI", "Interval", "Limits", "Literal",
    "RuleSyntaxError", "ShapeViolationError", "__version__",
]
