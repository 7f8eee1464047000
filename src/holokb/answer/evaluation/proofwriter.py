"""ProofWriter (open world): context → facts and rules, the question's statement → a yes/no plan.

Each record is ingested into a fresh, isolated in-memory KB (``kb.ingest``) and its claim asked
through ``kb.answer``; :func:`score_over_reading` answers the same record over the reading alone
(no ledger), kept as the differential check the tests hold the two paths to.

Labels: A (True) = supported "Yes", B (False) = supported "No" (the negation is proved),
C (Unknown) = unsupported (``../shared/corpora/README.md``).  ``conflicting`` matches no label.
"""
from __future__ import annotations

import re
from pathlib import Path

from ...core.inputs import bad_record, os_error, parse_json
from .runner import EvalRun, ItemResult, chain_json, check_citations, run_items, shift_spans

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


def _checked(item: tuple[int, dict]) -> "tuple[dict, str, object] | ItemResult":
    """(record, gold label, the claim's plan or Unplannable) of a well-formed record, else its bad-input result."""
    idx, rec = item
    missing = [f for f in _FIELDS if not isinstance(rec.get(f), str)]
    if missing:
        return _bad(rec, idx, f"bad_input: missing or non-text field(s) {', '.join(missing)}")
    if any(_has_surrogates(rec[f]) for f in _FIELDS):
        return _bad(rec, idx, "bad_input: text that is not UTF-8")
    claim = _claim(rec["question"])
    _init()
    from ..plan import AnswerForm, Unplannable, UnplannableReason

    plan = _planner.plan_claim(claim)
    if not isinstance(plan, Unplannable) and plan.answer_form is not AnswerForm.YES_NO:  # "Where is Bob?"
        plan = Unplannable(UnplannableReason.UNKNOWN_FORM, "not a statement to judge true, false or unknown",
                           0, len(claim))
    return rec, LABELS.get(rec["answer"], rec["answer"]), plan


def _claim(question: str) -> str:
    """The statement or question a record asks about: its last sentence ("Based on the above
    information, is the following statement true, false, or unknown? Bob is big." → "Bob is big.";
    "…? Is it true that Bob is big?" → "Is it true that Bob is big?")."""
    parts = [p for p in re.split(r"(?<=[?.!])\s+", question.strip()) if p]
    return parts[-1] if parts else question


def _unplannable(rec: dict, gold: str, plan, skips: tuple) -> ItemResult:
    return ItemResult(rec["id"], gold, None, "unsupported", False, reason=f"question: {plan.message}",
                      skips=skips, bad_input=True)


def score(item: tuple[int, dict]) -> ItemResult:
    """Answer one record through a fresh in-memory KB: ``kb.ingest`` its context, ``kb.answer`` its claim."""
    checked = _checked(item)
    return checked if isinstance(checked, ItemResult) else _via_kb(*checked)


def score_over_reading(item: tuple[int, dict]) -> ItemResult:
    """Answer one record over its reading alone (the path the KB one is checked against)."""
    checked = _checked(item)
    return checked if isinstance(checked, ItemResult) else _via_reading(*checked)


def _via_kb(rec: dict, gold: str, plan) -> ItemResult:
    from ... import KnowledgeBase
    from ...core import AsOf, HolokbError
    from ...ingest.chunking import chunk_paragraphs
    from ...ingest.english.reader import sentences
    from ..plan import Unplannable

    context = rec["context"]
    with KnowledgeBase.open(":memory:") as kb:
        try:
            report = kb.ingest(context, doc_id=rec["id"], at=1)
        except HolokbError as e:  # a rejected batch: the item is unsupported, the run goes on
            return ItemResult(rec["id"], gold, None, "unsupported", False, reason=f"ingest rejected: {e}")
        skips = tuple(_skip(s) for s in report.skipped)
        if isinstance(plan, Unplannable):
            return _unplannable(rec, gold, plan, skips)
        answer = kb.answer(plan, as_of=AsOf.latest())
    # Evidence spans are chunk-relative: move them to the context's offsets for the JSON and the check.
    answer = shift_spans(answer, {c.chunk_id: c.start for c in chunk_paragraphs(context)})
    return _result(rec, gold, answer, context, set(sentences(context)), skips)


def _skip(s) -> dict:
    """A skipped sentence of the ingestion report in the JSON shape of the reader's own skips (the
    extractor's detail is "code: detail")."""
    code, sep, detail = s.detail.partition(": ")
    if not sep:
        code, detail = s.reason.value, s.detail
    return {"code": code, "start": s.start, "end": s.end, "text": s.text, "detail": detail}


def _result(rec: dict, gold: str, answer, context: str, sentences: set, skips: tuple) -> ItemResult:
    from ..contract import Verdict

    predicted = {"Yes": "True", "No": "False"}.get(answer.text or "", "Unknown")
    if answer.verdict is Verdict.CONFLICTING:
        predicted = "Conflicting"
    reason = None
    if answer.verdict is not Verdict.SUPPORTED:
        reason = answer.missing.message if answer.missing else answer.verdict.value
        if skips:
            reason += f" ({len(skips)} sentence(s) not read)"
    correct = predicted == gold
    cited, spans_ok = check_citations(answer, context, sentences)
    return ItemResult(rec["id"], gold, predicted, answer.verdict.value, correct, "", chain_json(answer), reason,
                      skips, cited=cited if correct else None, spans_ok=spans_ok if correct else None)


def _via_reading(rec: dict, gold: str, plan) -> ItemResult:
    from ...core import HolokbError as _E
    from ..over_reading import answer_plan, close_reading
    from ..plan import Unplannable

    context = rec["context"]
    reading = _reader.read(context)
    skips = tuple({"code": s.code.value, "start": s.span.start, "end": s.span.end, "text": s.text, "detail": s.detail}
                  for s in reading.skips)
    if isinstance(plan, Unplannable):
        return _unplannable(rec, gold, plan, skips)
    try:
        story = close_reading(reading, context, document=rec["id"])
    except _E as e:
        return ItemResult(rec["id"], gold, None, "unsupported", False, reason=f"rules rejected: {e}", skips=skips)
    return _result(rec, gold, answer_plan(story, plan), context, {(s.start, s.end) for s in reading.sentences}, skips)


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
    if jobs > 1:  # parse each distinct sentence shape once, split over the pool, before it forks
        from ...ingest.english.reader import warm_shapes

        _init()
        warm_shapes(_reader, [r["context"] for r in records if isinstance(r.get("context"), str)], jobs)
    results = run_items(list(enumerate(records)), score, jobs=jobs, init=_init)
    return EvalRun(str(path), tuple(results))
