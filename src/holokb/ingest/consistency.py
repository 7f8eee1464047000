"""Extraction consistency (DS005 §8): run an extractor R times, compare what each run extracted.

Per chunk, the Jaccard similarity of the sets of normalised facts (fact ids: the canonical hash
folds case and Unicode forms of literals) for every pair of runs, averaged over pairs and chunks.
Two empty sets agree (1.0).  Below the threshold (0.8) the configuration is unreliable.
"""
from __future__ import annotations

from itertools import combinations
from typing import Sequence

from .extract import DocumentInput, Extractor
from .report import ConsistencyReport


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b|, and 1.0 for two empty sets."""
    union = a | b
    return 1.0 if not union else len(a & b) / len(union)


def extraction_consistency(runs: Sequence[Extractor], document: DocumentInput, *,
                           threshold: float = 0.8) -> ConsistencyReport:
    """Mean pairwise Jaccard over the chunks of ``document`` across the given extractor runs."""
    per_run: list[list[frozenset[str]]] = []
    for ex in runs:
        per_run.append([frozenset(f.fact.id for f in e.facts) for e in ex.extract(document)])
    scores = []
    for a, b in combinations(per_run, 2):
        scores.extend(jaccard(x, y) for x, y in zip(a, b))
    mean = sum(scores) / len(scores) if scores else 1.0
    return ConsistencyReport(len(runs), round(mean, 6), threshold)
