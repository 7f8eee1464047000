"""Answering questions: QueryPlan, retrieval, derivation, conflicts, and the verdict contract (DS005)."""
from .contract import (
    Answer, AnswerLimit, ChainEntry, ChainFact, ChainRole, Conflict, ConflictReason, Missing, MissingKind,
    SolverCheck, SourceSpan, Verdict,
)
from .plan import (
    AnswerForm, Check, Name, Param, Pattern, Planner, QueryPlan, Compare, TimeKind, TimeRef, TimeUnit, Unplannable,
    UnplannableReason, World, YesWhen,
)
from .plan_json import PlanError

__all__ = [
    "Answer", "AnswerForm", "AnswerLimit", "ChainEntry", "ChainFact", "ChainRole", "Check", "Conflict",
    "ConflictReason", "Missing", "MissingKind", "Name", "Param", "Pattern", "PlanError", "Planner", "QueryPlan",
    "SolverCheck", "SourceSpan", "Compare", "TimeKind", "TimeRef", "TimeUnit", "Unplannable", "UnplannableReason",
    "Verdict", "World", "YesWhen",
]
