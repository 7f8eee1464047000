"""LogicalDeduction (BIG-bench ordering puzzles): text → FormalProposal → one entailment per option.

Every object gets an Int position ``1..N`` (all distinct); axis 1 is leftmost / oldest / cheapest /
finished first.  Each sentence becomes one named assertion; each option becomes the goal of the
same proposal, and the option whose goal is entailed is the prediction.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import IO, Any

from ..core.errors import SolverError
from ..core.inputs import bad_record, read_json
from .backend import Backend, get_backend
from .eval_common import EvalSummary, RecordWriter, summarise
from .proposal import gate_proposal

_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7}
_NUM = {"three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_INTRO = re.compile(r"there (?:are|were) (\w+) [\w\s-]+?: (.*?)\.(?:\s|$)", re.S)


class PuzzleParseError(SolverError):
    """A sentence the deduction parser does not understand."""


def _objects(text: str) -> tuple[int, list[str]]:
    m = _INTRO.search(text) or re.search(r"sells (\w+) [\w\s-]+?: (.*?)\.(?:\s|$)", text, re.S)
    if not m:
        raise PuzzleParseError(f"no object list in: {text[:80]!r}")
    n = _NUM.get(m.group(1))
    items = re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group(2))
    objs = [re.sub(r"^(an?|the)\s+", "", i.strip()) for i in items if i.strip()]
    if n is None or len(objs) != n:
        raise PuzzleParseError(f"expected {m.group(1)} objects, found {objs}")
    return n, objs


def _pos(i: int) -> dict:
    return {"op": "const", "name": f"o{i}"}


def _int(k: int) -> dict:
    return {"op": "int", "value": k}


def _find(objs: list[str], phrase: str) -> int:
    p = re.sub(r"^(the|an?)\s+", "", phrase.strip().lower())
    for i, o in sorted(enumerate(objs), key=lambda io: -len(io[1])):
        if p == o.lower():
            return i
    raise PuzzleParseError(f"unknown object {phrase!r} (known: {objs})")


def sentence_expr(sentence: str, objs: list[str], n: int) -> dict:
    """One ordering sentence as a FormalProposal expression over positions ``o<i>``."""
    s = sentence.strip().rstrip(".")
    s = re.sub(r"^[A-G]\)\s*", "", s)
    m = re.match(r"^(.+?) (?:is|are|finished) (.+)$", s)
    if not m:
        raise PuzzleParseError(f"cannot read {sentence!r}")
    x, rest = _find(objs, m.group(1)), m.group(2)
    rel = re.match(r"^(?:to the (left|right) of|(older|newer|less expensive|more expensive|cheaper) than|"
                   r"(above|below)) (.+)$", rest)
    if rel:
        y = _find(objs, rel.group(4))
        word = rel.group(1) or rel.group(2) or rel.group(3)
        op = "<" if word in ("left", "older", "less expensive", "cheaper", "above") else ">"
        return {"op": op, "args": [_pos(x), _pos(y)]}
    r = rest.removeprefix("the ")
    fixed = {"leftmost": 1, "rightmost": n, "oldest": 1, "newest": n, "cheapest": 1, "most expensive": n,
             "first": 1, "last": n}
    if r in fixed:
        return {"op": "=", "args": [_pos(x), _int(fixed[r])]}
    m2 = re.match(r"^(\w+) from the (left|right)$", r)
    if m2 and m2.group(1) in _ORD:
        k = _ORD[m2.group(1)]
        return {"op": "=", "args": [_pos(x), _int(k if m2.group(2) == "left" else n + 1 - k)]}
    m3 = re.match(r"^(\w+)-(newest|oldest|cheapest|most expensive|to-last)$", r)
    if m3 and m3.group(1) in _ORD:
        k = _ORD[m3.group(1)]
        from_end = m3.group(2) in ("newest", "most expensive", "to-last")
        return {"op": "=", "args": [_pos(x), _int(n + 1 - k if from_end else k)]}
    if r in _ORD:
        return {"op": "=", "args": [_pos(x), _int(_ORD[r])]}
    raise PuzzleParseError(f"cannot read {sentence!r}")


def puzzle_proposal(record: dict[str, Any]) -> tuple[dict, list[dict]]:
    """The proposal (declarations + assertions) for one record and the goal expression per option."""
    context = record["context"]
    body = context.split("\n\n", 1)[-1]
    n, objs = _objects(body)
    intro_end = _INTRO.search(body) or re.search(r"sells (\w+) [\w\s-]+?: (.*?)\.(?:\s|$)", body, re.S)
    if intro_end is None:
        raise PuzzleParseError("no sentence introducing the objects")
    sentences = [s for s in re.split(r"(?<=\.)\s+", body[intro_end.end():].strip()) if s]
    decls = [{"kind": "const", "name": f"o{i}", "resultSort": "Int"} for i in range(n)]
    asserts = [{"assertionId": f"range_{i}", "role": "axiom",
                "expr": {"op": "and", "args": [{"op": "<=", "args": [_int(1), _pos(i)]},
                                               {"op": "<=", "args": [_pos(i), _int(n)]}]}} for i in range(n)]
    asserts.append({"assertionId": "distinct_positions", "role": "axiom",
                    "expr": {"op": "distinct", "args": [_pos(i) for i in range(n)]}})
    for k, s in enumerate(sentences):
        asserts.append({"assertionId": f"s{k + 1}", "role": "fact", "comment": s,
                        "expr": sentence_expr(s, objs, n)})
    proposal = {"schemaVersion": "holoproof.formal-proposal.v1", "proposalId": str(record.get("id", "item")),
                "declarations": decls, "assertions": asserts}
    goals = [sentence_expr(o, objs, n) for o in record["options"]]
    return proposal, goals


def solve_record(record: dict[str, Any], backend: Backend, *, timeout_ms: int = 5_000) -> dict[str, Any]:
    """Predict one record: the option whose goal the constraints entail."""
    gold = record.get("answer")
    try:
        proposal, goals = puzzle_proposal(record)
    except PuzzleParseError as e:
        return {"id": record.get("id"), "gold": gold, "predicted": None, "verdict": "parse_error", "reason": str(e)}
    entailed, reasons = [], []
    ctx = None
    for letter, goal in zip("ABCDEFG", goals):
        g = gate_proposal({**proposal, "queryPlan": {"verificationMode": "entailment", "goal": goal}})
        if not g.ok:
            return {"id": record.get("id"), "gold": gold, "predicted": None, "verdict": g.status,
                    "reason": "; ".join(d.message for d in g.diagnostics)}
        if ctx is None:
            ctx = backend.context(timeout_ms=timeout_ms)
            ctx.load(g.smtlib)
        ctx.push()
        ctx.add(f"hp_internal_neg_goal_{letter}", f"(not {g.goal})")
        r = ctx.check(model_for=())
        ctx.pop()
        if r.status == "unsat":
            entailed.append(letter)
            reasons.append(" ".join(n for n in r.core if not n.startswith("hp_internal_")))
    if len(entailed) == 1:
        return {"id": record.get("id"), "gold": gold, "predicted": entailed[0], "verdict": "entailed",
                "reason": "core: " + reasons[0]}
    verdict = "none_entailed" if not entailed else "several_entailed"
    return {"id": record.get("id"), "gold": gold, "predicted": entailed[0] if entailed else None,
            "verdict": verdict, "reason": ",".join(entailed)}


def check_records(records: Any, name: str) -> None:
    """The file's shape: a JSON list of objects with a ``context`` string and a list of ``options`` strings."""
    if not isinstance(records, list):
        raise bad_record(name, f"expected a JSON list of puzzles, got {type(records).__name__}",
                         hint="a logical-deduction file is [{\"id\": …, \"context\": …, \"options\": […], \"answer\": …}, …]")
    for k, r in enumerate(records):
        if not isinstance(r, dict):
            raise bad_record(name, f"item {k}: expected an object, got {type(r).__name__}")
        if not isinstance(r.get("context"), str):
            raise bad_record(name, f"item {k}: 'context' must be a string")
        opts = r.get("options")
        if not isinstance(opts, list) or not all(isinstance(o, str) for o in opts):
            raise bad_record(name, f"item {k}: 'options' must be a list of strings")


def eval_deduction(path: str | Path, *, out: str | Path | IO[str] | None = None, backend: str = "z3",
                   limit: int | None = None) -> EvalSummary:
    """Score the LogicalDeduction file at ``path`` (JSON list); one JSON line per item to ``out``."""
    records = read_json(path, what="logical-deduction file")
    check_records(records, str(path))
    if limit is not None:
        records = records[:limit]
    be = get_backend(backend)
    correct, causes = 0, {}
    with RecordWriter(out) as w:
        for rec in records:
            row = solve_record(rec, be)
            w.write(row)
            if row["predicted"] is not None and row["predicted"] == row["gold"]:  # no prediction is never right
                correct += 1
            else:
                causes[row["verdict"]] = causes.get(row["verdict"], 0) + 1
    return summarise(correct, len(records), causes)
