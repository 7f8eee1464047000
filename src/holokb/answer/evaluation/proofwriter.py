"""ProofWriter (open world): context → facts and rules, the question's statement → a yes/no plan.

Labels: A (True) = supported "Yes", B (False) = supported "No" (the negation is proved),
C (Unknown) = unsupported (``../shared/corpora/README.md``).  ``conflicting`` matches no label.
"""
from __future__ import annotations

from pathlib import Path

from ...core.inputs import bad_record, os_error, parse_json
from .runner import EvalRun, ItemResult, chain_json, check_citations, run_items

LABELS = {"A": "True", "B": "False", "C": "Unknown"}
_FIELDS = ("id", "context", "question", "answer")

_reader = None
_planner = None


def _init() -> None:
    global _reader, _planner
    from ...ingest.english import EnglishReader
    from ..english_planner import EnglishPlanner

    if _reader is None:
        _reader = EnglishReader()
        _planner = EnglishPlanner(_reader)


def load(path: Path) -> list:
    """The records of a ProofWriter JSON file; a file that is not a JSON array of objects is an error."""
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise os_error(e, path) from None
    data = parse_json(raw.decode("utf-8", errors="surrogateescape"), str(path))
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise bad_record(str(path), "not a ProofWriter JSON file (expected an array of records)")
    return data


def _bad(rec: dict, idx: int, reason: str) -> ItemResult:
    rid = rec.get("id") if isinstance(rec.get("id"), str) else f"#{idx}"
    gold = rec.get("answer") if isinstance(rec.get("answer"), str) else "?"
    return ItemResult(rid, LABELS.get(gold, str(gold)), None, "unsupported", False, reason=reason, bad_input=True)


def score(item: tuple[int, dict]) -> ItemResult:
    """Answer one record from its own context."""
    from ...core import HolokbError as _E
    from ..contract import Verdict
    from ..over_reading import answer_plan, close_reading
    from ..plan import Unplannable

    _init()
    idx, rec = item
    missing = [f for f in _FIELDS if not isinstance(rec.get(f), str)]
    if missing:
        return _bad(rec, idx, f"bad_input: missing or non-text field(s) {', '.join(missing)}")
    if any(_has_surrogates(rec[f]) for f in _FIELDS):
        return _bad(rec, idx, "bad_input: text that is not UTF-8")
    gold = LABELS.get(rec["answer"], rec["answer"])
    context = rec["context"]
    reading = _reader.read(context)
    skips = tuple({"code": s.code.value, "start": s.span.start, "end": s.span.end, "text": s.text, "detail": s.detail}
                  for s in reading.skips)
    claim = rec["question"].rsplit("?", 1)[-1].strip() or rec["question"]
    plan = _planner.plan_claim(claim)
    if isinstance(plan, Unplannable):
        return ItemResult(rec["id"], gold, None, "unsupported", False, reason=f"question: {plan.message}",
                          skips=skips, bad_input=True)
    try:
        story = close_reading(reading, context, document=rec["id"])
    except _E as e:
        return ItemResult(rec["id"], gold, None, "unsupported", False, reason=f"rules rejected: {e}", skips=skips)
    answer = answer_plan(story, plan)
    predicted = {"Yes": "True", "No": "False"}.get(answer.text or "", "Unknown")
    if answer.verdict is Verdict.CONFLICTING:
        predicted = "Conflicting"
    reason = None
    if answer.verdict is not Verdict.SUPPORTED:
        reason = answer.missing.message if answer.missing else answer.verdict.value
        if skips:
            reason += f" ({len(skips)} sentence(s) not read)"
    correct = predicted == gold
    cited, spans_ok = check_citations(answer, context, {(s.start, s.end) for s in reading.sentences})
    if not correct:
        cited = spans_ok = None if cited is None else cited
    return ItemResult(rec["id"], gold, predicted, answer.verdict.value, correct, "", chain_json(answer), reason,
                      skips, cited=cited if correct else None, spans_ok=spans_ok if correct else None)


def _has_surrogates(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def eval_proofwriter(path: Path, *, limit: int | None = None, jobs: int = 1) -> EvalRun:
    """Score a ProofWriter file (first ``limit`` records)."""
    records = load(path)
    if limit is not None:
        records = records[:limit]
    results = run_items(list(enumerate(records)), score, jobs=jobs, init=_init)
    return EvalRun(str(path), tuple(results))
