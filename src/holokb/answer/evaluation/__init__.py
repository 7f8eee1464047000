"""Scoring the controlled-English reader on public benchmarks: ProofWriter, bAbI, CLUTRR.

Each driver reads a file (a malformed file is an :class:`~holokb.core.HolokbError` before any
scoring), answers every item from its own text in isolation, and returns an :class:`EvalRun`
(one :class:`ItemResult` per item, in file order, whatever ``jobs`` is).
"""
from .runner import EvalRun, ItemResult

__all__ = ["EvalRun", "ItemResult"]
