"""Proof explanations as text, JSON and Graphviz DOT (the CLI and server print these).

Every rendering is deterministic: premises in rule-body order, shared sub-proofs shown once (text
and DOT refer back to them by id).
"""
from __future__ import annotations

import json
from typing import Callable

from ..core import IRI, Literal, RuleFileRef, Term

Short = Callable[[Term], str]


def _atom(predicate: str, args, negated: bool, short: Short) -> str:
    p = short(IRI(predicate))
    sh = lambda a: "?_" if a is None else short(a)  # noqa: E731 - None: any value (a negated premise's ?_)
    if predicate.endswith("#type") and len(args) == 2 and args[1] is not None:
        text = f"{short(args[1])}({sh(args[0])})"
    else:
        text = f"{p}({', '.join(sh(a) for a in args)})"
    return ("not " + text) if negated else text


def render_text(expl, short: Short, quote: Callable[[object], str | None]) -> list[str]:
    """An indented proof tree; input facts show their evidence and the quoted source text."""
    head = _atom(expl.predicate, expl.args, False, short)
    if expl.proof is None:
        note = f" (closure truncated: {expl.limit_hit})" if expl.truncated else ""
        return [f"{head} does not hold at this time{note}"]
    root = expl.proof
    held = getattr(expl, "valid", None) or root.valid
    lines = [f"{head}  holds over {held}  score {root.score:.4f}"]
    seen: set[str] = set()

    def walk(node, prefix: str, last: bool) -> None:
        branch = "└─ " if last else "├─ "
        cont = prefix + ("   " if last else "│  ")
        label = _atom(node.predicate, node.args, node.negated, short)
        if node.id in seen:
            lines.append(f"{prefix}{branch}{label}  (shown above, {node.id[:10]})")
            return
        seen.add(node.id)
        if node.absent:
            lines.append(f"{prefix}{branch}not {label}  absent throughout {node.valid}")
            return
        if node.partial and node.rule is None:
            lines.append(f"{prefix}{branch}{label}  … proof cut by the depth budget (partial)")
            return
        if node.rule is None:
            lines.append(f"{prefix}{branch}{label}  asserted, valid {node.valid}, confidence {node.confidence:g}")
            view = expl.evidence.get(node.id)
            if view is not None:
                lines.append(f"{cont}   fact {view.fact_id[:12]}, recorded {view.system}")
                for e in view.evidence:
                    q = quote(e)
                    where = f"{e.document}" + (f"#{e.chunk}" if e.chunk else "") + (
                        f"[{e.char_start}:{e.char_end}]" if e.char_start is not None else "")
                    lines.append(f"{cont}   from {where}{(' ' + json.dumps(q, ensure_ascii=False)) if q else ''}"
                                 f" ({e.extractor} {e.extractor_version}, confidence {e.confidence:g})")
            elif isinstance(node.key, RuleFileRef):
                lines.append(f"{cont}   stated in the rule files ({node.key.origin or 'rules'})")
            return
        binds = " ".join(f"?{k}={short(v)}" for k, v in node.bindings)
        part = "  (partial)" if node.partial else ""
        lines.append(f"{prefix}{branch}{label}  by rule {node.rule}  valid {node.valid}{part}")
        if binds:
            lines.append(f"{cont}   with {binds}")
        for i, p in enumerate(node.premises):
            walk(p, cont, i == len(node.premises) - 1)

    walk(root, "", True)
    return lines


def _term_json(t: Term | None) -> dict:
    if t is None:
        return {"type": "any"}
    if isinstance(t, IRI):
        return {"type": "uri", "value": t.value}
    assert isinstance(t, Literal)
    d = {"type": "literal", "value": t.lexical, "datatype": t.datatype}
    if t.lang:
        d["lang"] = t.lang
    return d


def to_json(expl) -> dict:
    """``{"fact", "holds", "proof": {nodes by id, root}}`` — a DAG, premises by node id."""
    out: dict = {"fact": {"predicate": expl.predicate, "args": [_term_json(a) for a in expl.args]},
                 "holds": expl.proof is not None, "truncated": expl.truncated, "limitHit": expl.limit_hit}
    held = getattr(expl, "valid", None)
    if held is not None:
        out["valid"] = [held.start, held.end]
    if expl.proof is None:
        return out
    nodes = {}
    for n in expl.proof.nodes():
        d = {"predicate": n.predicate, "args": [_term_json(a) for a in n.args], "negated": n.negated,
             "valid": [n.valid.start, n.valid.end], "rule": n.rule, "partial": n.partial, "score": n.score,
             "confidence": n.confidence, "bindings": {k: _term_json(v) for k, v in n.bindings}, "absent": n.absent,
             "premises": [p.id for p in n.premises]}
        view = expl.evidence.get(n.id)
        if view is not None:
            d["factId"] = view.fact_id
            d["evidence"] = [{"document": e.document, "chunk": e.chunk, "charStart": e.char_start,
                              "charEnd": e.char_end, "extractor": e.extractor,
                              "extractorVersion": e.extractor_version, "confidence": e.confidence}
                             for e in view.evidence]
        nodes[n.id] = d
    out["proof"] = {"root": expl.proof.id, "nodes": nodes}
    return out


def to_dot(expl, short: Short) -> str:
    """Graphviz DOT: one box per distinct proof node, edges from conclusion to premises."""
    lines = ["digraph proof {", "  rankdir=BT;", "  node [shape=box, fontname=\"monospace\"];"]
    if expl.proof is not None:
        for n in expl.proof.nodes():
            label = ("not " if n.absent else "") + _atom(n.predicate, n.args, n.negated, short)
            sub = f"rule {n.rule}" if n.rule else "absent" if n.absent else "asserted"
            style = ", style=dashed" if n.partial else ""
            lines.append(f'  "{n.id[:16]}" [label={json.dumps(label + chr(10) + sub + " " + str(n.valid))}{style}];')
            for p in n.premises:
                lines.append(f'  "{p.id[:16]}" -> "{n.id[:16]}";')
    lines.append("}")
    return "\n".join(lines) + "\n"
