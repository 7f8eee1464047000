"""Which extractor and planner to use when the caller names none, and extractors by name (CLI).

The controlled-English reader (``holokb.ingest.english``, with its planner in
``holokb.answer.english_planner``) is the default for both; it is imported only when used.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import Diagnostic, DiagnosticError
from .context_units import ContextUnitExtractor
from .extract import Extractor
from .naming import Naming

if TYPE_CHECKING:
    from ..answer.plan import Planner, QueryPlan, Unplannable

EXTRACTORS = ("english", "context-units", "llm")
#: Longest question text handed to a planner (a question of 100k characters is refused, not parsed).
MAX_QUESTION_CHARS = 10_000


class ExtractorUnavailable(DiagnosticError):
    """A named extractor or planner is not part of this installation, or not configured."""

    def __str__(self) -> str:
        return self.render()


def _unavailable(what: str, hint: str) -> ExtractorUnavailable:
    msg = f"{what} is not available in this holokb"
    return ExtractorUnavailable(msg, (Diagnostic("HK829", msg, hint=hint),))


def default_extractor() -> Extractor:
    """The controlled-English reader."""
    return extractor_named("english")


def extractor_named(name: str, *, namespace: str | None = None, **llm_options) -> Extractor:
    """``english`` (the reader), ``context-units`` or ``llm`` (needs ``client`` and ``vocabulary``)."""
    naming = Naming(namespace) if namespace else Naming()
    if name == "english":
        try:
            from .english import EnglishExtractor
        except ImportError:
            raise _unavailable("the controlled-English reader", "use --extractor context-units or llm") from None
        return EnglishExtractor()
    if name == "context-units":
        return ContextUnitExtractor(naming)
    if name == "llm":
        from .llm_extractor import LLMExtractor

        if "client" not in llm_options or not llm_options.get("vocabulary"):
            raise _unavailable("the LLM extractor without a client and a vocabulary",
                               "give --llm-url (or --llm-recordings) and --vocabulary rules files")
        return LLMExtractor(naming=naming, **llm_options)
    raise _unavailable(f"an extractor named {name!r}", f"choose one of {', '.join(EXTRACTORS)}")


def default_planner() -> "Planner":
    """The controlled-English question planner."""
    try:
        from ..answer.english_planner import EnglishPlanner
    except ImportError:
        raise _unavailable("the controlled-English question planner", "give a JSON plan (--plan plan.json)") from None
    return EnglishPlanner()


def plan_question(question: str, planner: "Planner | None" = None) -> "QueryPlan | Unplannable":
    """A plan for question text; empty, overlong or unreadable questions become :class:`Unplannable`."""
    from ..answer.plan import Unplannable, UnplannableReason

    if not isinstance(question, str) or not question.strip():
        return Unplannable(UnplannableReason.EMPTY, "the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        return Unplannable(UnplannableReason.TOO_LONG,
                           f"the question has {len(question)} characters; at most {MAX_QUESTION_CHARS} are read")
    return (planner or default_planner()).plan(question)
