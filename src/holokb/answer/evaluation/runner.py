"""The shared evaluation loop: items → results in file order, a process pool, JSON lines, a summary."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..chain import CLOSED_WORLD
from ..contract import Answer, ChainRole, Verdict


@dataclass(frozen=True, slots=True)
class ItemResult:
    """One scored item.  ``bad_input`` marks records the run could not read (missing fields,
    non-UTF-8 text); they count as wrong and are also counted on their own."""

    id: str
    gold: str
    predicted: str | None
    verdict: str
    correct: bool
    group: str = ""
    chain: tuple[dict, ...] = ()
    reason: str | None = None
    skips: tuple[dict, ...] = ()
    bad_input: bool = False
    cited: bool | None = None       # a correct supported answer cites at least one sentence
    spans_ok: bool | None = None    # every cited span's text is the sentence it claims
    path: str = ""                  # which answer path answered (bAbI: "kb.answer" or "over_reading")

    def to_json(self) -> dict:
        d: dict = {"id": self.id, "gold": self.gold, "predicted": self.predicted, "verdict": self.verdict,
                   "correct": self.correct}
        if self.group:
            d["group"] = self.group
        d["factChain"] = list(self.chain)
        if self.reason is not None:
            d["reason"] = self.reason
        if self.skips:
            d["skips"] = list(self.skips)
        if self.bad_input:
            d["badInput"] = True
        if self.cited is not None:
            d["cited"] = self.cited
            d["spansOk"] = self.spans_ok
        if self.path:
            d["path"] = self.path
        return d


@dataclass(frozen=True)
class EvalRun:
    """All results of one file, in file order."""

    file: str
    results: tuple[ItemResult, ...] = field(default=())

    @property
    def n(self) -> int:
        return len(self.results)

    @property
    def accuracy(self) -> float:
        return sum(r.correct for r in self.results) / self.n if self.n else 0.0

    def line(self) -> str:
        """``accuracy=0.9950 n=600 bad_input=0 uncited=0 bad_spans=0 unread=0``: ``bad_input`` items (bad
        rows, questions of an unknown form) are unsupported with a reason; ``unread`` items were answered
        with a sentence of their text not read (listed in the item's ``skips``)."""
        bad = sum(r.bad_input for r in self.results)
        uncited = sum(1 for r in self.results if r.cited is False)
        spans = sum(1 for r in self.results if r.spans_ok is False)
        unread = sum(1 for r in self.results if r.skips and not r.bad_input)  # answered with a sentence not read
        paths = {}
        for r in self.results:
            if r.path:
                paths[r.path] = paths.get(r.path, 0) + 1
        via = "".join(f" {p}={n}" for p, n in sorted(paths.items()))  # which answer path answered how many
        return (f"accuracy={self.accuracy:.4f} n={self.n} bad_input={bad} uncited={uncited} bad_spans={spans}"
                f" unread={unread}{via}")

    def by_group(self) -> dict[str, tuple[int, int]]:
        """group → (correct, n), groups sorted."""
        out: dict[str, list[int]] = {}
        for r in self.results:
            c = out.setdefault(r.group, [0, 0])
            c[0] += r.correct
            c[1] += 1
        return {k: (v[0], v[1]) for k, v in sorted(out.items())}


def run_items(items: Sequence, score: Callable, *, jobs: int = 1, init: Callable | None = None,
              chunksize: int = 4) -> list[ItemResult]:
    """``score(item)`` for every item, in order; with ``jobs > 1`` in a process pool (``init`` runs
    once per worker process, e.g. to build the reader)."""
    if jobs <= 1 or len(items) < 2:
        if init is not None:
            init()
        return [score(it) for it in items]
    import multiprocessing as mp

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    with ctx.Pool(jobs, initializer=init) as pool:
        return list(pool.imap(score, items, chunksize=chunksize))


def write_jsonl(path: Path | None, results: Iterable[ItemResult]) -> None:
    if path is None:
        return
    with open(path, "w", encoding="utf-8") as f:
        for r in results:
            f.write(json.dumps(r.to_json(), ensure_ascii=False, sort_keys=False) + "\n")


def chain_json(answer: Answer) -> tuple[dict, ...]:
    """The answer's fact chain as JSON: role, the fact, the rule and the cited source spans."""
    from ...ingest.english.reading import describe_atom

    out = []
    for e in answer.fact_chain:
        f = e.fact
        d: dict = {"factId": e.fact_id[:16], "role": e.role.value,
                   "fact": describe_atom(f.predicate.value, (f.subject, f.object), f.polarity == "negate")}
        if e.rule:
            d["rule"] = e.rule
        spans = [{"start": s.char_start, "end": s.char_end, "text": s.text} for s in e.evidence + e.rule_evidence
                 if s.char_start is not None]  # a rule from a rule file cites no sentence of the text
        if spans:
            d["sources"] = spans
        out.append(d)
    return tuple(out)


def shift_spans(answer: Answer, chunk_starts: dict[str, int], *, drop_unplaced: bool = False) -> Answer:
    """The answer with its chunk-relative evidence spans moved to offsets in the whole text;
    ``drop_unplaced`` leaves out evidence without a span (a rule file's rules cite no sentence)."""
    from dataclasses import replace

    def shift(spans):
        return tuple(span if span.char_start is None else
                     replace(span, char_start=span.char_start + chunk_starts.get(span.chunk or "", 0),
                             char_end=span.char_end + chunk_starts.get(span.chunk or "", 0))
                     for span in spans if not (drop_unplaced and span.char_start is None))

    return replace(answer, fact_chain=tuple(
        replace(e, evidence=shift(e.evidence), rule_evidence=shift(e.rule_evidence)) for e in answer.fact_chain))


def check_citations(answer: Answer, text: str, sentence_spans: set[tuple[int, int]]) -> tuple[bool | None, bool | None]:
    """(cited, spans_ok) for a supported answer: at least one source sentence is cited, and every
    cited span is exactly one of the text's sentences with the text it claims.  An answer that
    rests on nothing but a closed world (an empty list, a count of none) has no sentence to cite:
    (None, None), as for an answer with an empty chain."""
    if answer.verdict is not Verdict.SUPPORTED or not answer.fact_chain:
        return None, None
    if all(e.role is ChainRole.CONCLUSION or (not e.premises and e.rule == CLOSED_WORLD) for e in answer.fact_chain):
        return None, None  # rests on a closed world alone ("none", "nothing"): no sentence to cite
    spans = [s for e in answer.fact_chain for s in e.evidence + e.rule_evidence if s.char_start is not None]
    ok = all((s.char_start, s.char_end) in sentence_spans and text[s.char_start:s.char_end] == s.text for s in spans)
    cited = any(e.role is ChainRole.PREMISE and any(s.char_start is not None for s in e.evidence)
                for e in answer.fact_chain)  # a sentence of the text, not a rule file or an absence
    return cited, ok
