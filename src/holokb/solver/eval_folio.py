"""FOLIO: premises-FOL / conclusion-FOL → FormalProposal (native quantifiers over an uninterpreted
sort) → entailed ⇒ True, refuted ⇒ False, otherwise Uncertain.

Misses are classified by cause: ``parser_gap`` (a FOL string does not parse), ``no_fol`` (the
record has no conclusion-FOL: FOLIO v0.0 train), ``gate_refused`` (the proposal failed a gate,
e.g. too large after finite-domain expansion), ``timeout`` (the solver answered unknown),
``inconsistent_premises``, and ``label_mismatch`` (the gold FOL proves a different label: label
noise or an annotation error in the FOL).
"""
from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from ..core.inputs import bad_record, parse_json, read_text
from .backend import Backend, get_backend
from .eval_common import EvalSummary, RecordWriter, summarise
from .fol import FolSyntaxError, ProposalBuilder, parse_fol
from .proposal_solve import solve_proposal

_GOLD = {"True": "True", "False": "False", "Uncertain": "Uncertain", "Unknown": "Uncertain"}


def folio_proposal(premises: list[str], conclusion: str, proposal_id: str = "folio", *,
                   unique_names: bool = False, finite_domain: int | None = None) -> dict[str, Any]:
    """The FormalProposal for one FOLIO item (entailment of the conclusion); FolSyntaxError on a parser gap.

    ``unique_names`` adds that distinct constants denote distinct individuals; ``finite_domain=k``
    expands quantifiers over the constants plus ``k`` fresh elements instead of native quantifiers.
    """
    b = ProposalBuilder()
    parsed = [parse_fol(p) for p in premises]
    concl = parse_fol(conclusion)
    if finite_domain is not None:
        b.use_finite_domain(parsed + [concl], finite_domain)
    asserts = []
    for i, (p, f) in enumerate(zip(premises, parsed)):
        asserts.append({"assertionId": f"p{i + 1}", "role": "axiom", "comment": p, "expr": b.expr(f)})
    goal = b.expr(concl)
    if unique_names and len(b.consts) > 1:
        asserts.append({"assertionId": "unique_names", "role": "axiom",
                        "expr": {"op": "distinct", "args": [{"op": "const", "name": c} for c in sorted(b.consts)]}})
    return {"schemaVersion": "holoproof.formal-proposal.v1", "proposalId": proposal_id,
            "declarations": b.declarations(), "assertions": asserts,
            "queryPlan": {"verificationMode": "entailment", "goal": goal}}


def _premises(rec: dict[str, Any]) -> list[str]:
    p = rec.get("premises-FOL", [])
    lines = p if isinstance(p, list) else p.split("\n")
    return [x for x in (s.strip() for s in lines) if x]


def solve_item(rec: dict[str, Any], backend: Backend, *, timeout_ms: int = 5_000,
              unique_names: bool = False, finite_domain: int | None = None) -> dict[str, Any]:
    """Predict one FOLIO record."""
    rid = rec.get("example_id", rec.get("id"))
    gold = _GOLD.get(rec.get("label", ""), rec.get("label"))
    if "conclusion-FOL" not in rec:
        return {"id": rid, "gold": gold, "predicted": None, "verdict": "no_fol", "reason": "no conclusion-FOL"}
    try:
        proposal = folio_proposal(_premises(rec), rec["conclusion-FOL"], f"folio_{rid}", unique_names=unique_names,
                                  finite_domain=finite_domain)
    except FolSyntaxError as e:
        return {"id": rid, "gold": gold, "predicted": None, "verdict": "parser_gap", "reason": str(e)}
    r = solve_proposal(proposal, backend=backend, timeout_ms=timeout_ms)
    if r.status != "validated":
        return {"id": rid, "gold": gold, "predicted": None, "verdict": r.status,
                "reason": "; ".join(d.message for d in r.diagnostics)[:300]}
    predicted = {"entailed": "True", "refuted": "False"}.get(r.verdict or "", "Uncertain")
    reason = "core: " + " ".join(r.core) if r.core and r.verdict in ("entailed", "refuted") else (r.reason or "")
    return {"id": rid, "gold": gold, "predicted": predicted, "verdict": r.verdict, "reason": reason}


def _cause(row: dict[str, Any]) -> str:
    v, reason = row["verdict"], row.get("reason") or ""
    if v in ("no_fol", "parser_gap"):
        return v
    if v in ("proposed", "contested"):
        return "gate_refused"
    if "inconsistent premises" in reason:
        return "inconsistent_premises"
    if reason.startswith("solver:"):
        return "timeout"
    return "label_mismatch"


def check_item(rec: Any, name: str, line: int) -> None:
    """One JSON line's shape: an object whose FOL fields are strings (premises: a string or a list of them)."""
    if not isinstance(rec, dict):
        raise bad_record(name, f"expected a JSON object per line, got {type(rec).__name__}", line=line,
                         hint="a FOLIO file has one {\"premises-FOL\": …, \"conclusion-FOL\": …, \"label\": …} per line")
    prem = rec.get("premises-FOL", [])
    if not (isinstance(prem, str) or (isinstance(prem, list) and all(isinstance(p, str) for p in prem))):
        raise bad_record(name, "'premises-FOL' must be a string or a list of strings", line=line)
    for key in ("conclusion-FOL", "label"):
        if key in rec and not isinstance(rec[key], str):
            raise bad_record(name, f"{key!r} must be a string", line=line)


def eval_folio(path: str | Path, *, out: str | Path | IO[str] | None = None, backend: str = "z3",
               timeout_ms: int = 5_000, limit: int | None = None, unique_names: bool = False,
               finite_domain: int | None = None) -> EvalSummary:
    """Score a FOLIO jsonl file; one JSON line per item (id, gold, predicted, verdict, reason, cause) to ``out``."""
    be = get_backend(backend)
    correct, n, causes = 0, 0, {}
    text = read_text(path, what="FOLIO file")
    with RecordWriter(out) as w:
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            if limit is not None and n >= limit:
                break
            rec = parse_json(line, str(path), line_offset=lineno - 1)
            check_item(rec, str(path), lineno)
            row = solve_item(rec, be, timeout_ms=timeout_ms, unique_names=unique_names,
                             finite_domain=finite_domain)
            n += 1
            if row["predicted"] is not None and row["predicted"] == row["gold"]:  # no prediction is never right
                correct += 1
                row["cause"] = None
            else:
                row["cause"] = _cause(row)
                causes[row["cause"]] = causes.get(row["cause"], 0) + 1
            w.write(row)
    return summarise(correct, n, causes)
