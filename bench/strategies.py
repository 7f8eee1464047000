"""The strategy matrix (DS004): intuition {none, hrr, hdc} x solver {z3, cvc5} on ProofWriter, with
every theory's text ingested into ONE shared KB, so the index must find each question's facts
among all of them.

    PYTHONPATH=src HOLOKB_CORPORA=/work/shared/corpora python3 bench/strategies.py --limit 100
    PYTHONPATH=src python3 bench/strategies.py --limit 0          # all 600 dev questions

Each theory is read by the controlled-English reader and its IRIs (entities, classes, relations) are
moved into a namespace of its own (``ex:t17/Bob``), so theories cannot interfere: a rule of one
theory never fires on another's facts, and the KB stays consistent.  Facts go into one ledger (one
document per theory, evidence = the sentence span); all theories' rules form one program.  Every
question is asked through the intuition-to-reasoning loop (:mod:`holokb.intuition`): True =
entailed, False = refuted, Unknown = unknown.  Per strategy x solver: accuracy, median candidate-set
size, median rounds, median / p95 latency; then recall@k, per lane, of the facts the proof needs
(the solver's minimised core under strategy none, for questions it decided).  Questions are taken
evenly over the file (``--limit``) and interleaved across strategies.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _corpora import corpora_root  # noqa: E402

from holokb.analysis import Atom, Const, analyze  # noqa: E402
from holokb.core import AsOf, Evidence, IRI, SpanRecord, Interval  # noqa: E402
from holokb.intuition import IntuitionLoop, LoopSettings, Strategy  # noqa: E402
from holokb.ledger import Ledger  # noqa: E402
from holokb.syntax import Module  # noqa: E402

NS = "http://example.org/"
GOLD = {"A": "True", "B": "False", "C": "Unknown"}
PRED = {"entailed": "True", "refuted": "False", "unknown": "Unknown"}


def rename(obj, ns: str):
    """Every IRI (and IRI string) under ex: moved into the theory's namespace."""
    if isinstance(obj, IRI):
        return IRI(ns + obj.value[len(NS):]) if obj.value.startswith(NS) else obj
    if isinstance(obj, str):
        return ns + obj[len(NS):] if obj.startswith(NS) else obj
    if isinstance(obj, tuple):
        return tuple(rename(x, ns) for x in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.replace(obj, **{f.name: rename(getattr(obj, f.name), ns)
                                           for f in dataclasses.fields(obj) if f.init})
    return obj


def build(records: list[dict], db: Path):
    from holokb.answer.english_planner import EnglishPlanner
    from holokb.ingest.english import EnglishReader

    reader = EnglishReader()
    planner = EnglishPlanner(reader)
    theories: dict[str, int] = {}
    spans: list[SpanRecord] = []
    docs: list[tuple[str, str]] = []
    rules = []
    questions = []
    skipped = 0
    for rec in records:
        ctx = rec["context"]
        if ctx not in theories:
            t = theories[ctx] = len(theories)
            ns = f"{NS}t{t}/"
            doc = f"theory-{t}"
            docs.append((doc, ctx))
            reading = reader.read(ctx)
            for f in reading.facts:
                ev = Evidence(doc, "p0", f.span.start, f.span.end, "english", "1", 1.0)
                spans.append(SpanRecord(rename(f.fact, ns), f.valid, Interval(1, None), (ev,)))
            for r in reading.rules:
                rules.append(dataclasses.replace(rename(r.rule, ns), name=f"t{t}_{r.rule.name}"))
        ns = f"{NS}t{theories[ctx]}/"
        claim = rec["question"].rsplit("?", 1)[-1].strip()
        plan = planner.plan_claim(claim)
        goal = getattr(plan, "goal", None)
        if goal is None or not goal.ground:
            skipped += 1
            continue
        p, s, o = (rename(x.term, ns) for x in (goal.predicate, goal.subject, goal.object))
        atom = Atom(p.value, (Const(s), Const(o)), goal.polarity == "negate")
        questions.append((rec["id"], GOLD[rec["answer"]], atom, claim, theories[ctx]))
    led = Ledger.open(db)
    with led.batch(at=1) as b:
        for doc, text in docs:
            b.add_document(doc, text, chunks=[("p0", 0, len(text))])
        b.bulk(spans)
    preds = {s.fact.predicate.value for s in spans}
    for r in rules:
        preds.add(r.head.predicate)
        preds.update(a.predicate for a in r.body if hasattr(a, "predicate"))
    program = analyze(Module(file=None, rules=tuple(rules)), known_predicates=preds)
    return led, program, questions, len(theories), len(spans), skipped


def lane_recall(led: Ledger, loop: IntuitionLoop, questions, needed: dict, ks=(8, 32, 128)) -> None:
    """recall@k per lane of the facts each decided proof needs."""
    from holokb.ledger_search import LedgerSource
    from holokb.retrieval import StructuredOptions
    from holokb.retrieval.lanes import structured_lane
    from holokb.vsa import VSAConfig
    from holokb.intuition import _goal_terms

    views = loop.visible(AsOf.latest())
    by_chunk: dict[tuple, list[str]] = {}
    for fid, v in views.items():
        for e in v.evidence:
            by_chunk.setdefault((e.document, e.chunk or ""), []).append(fid)
    rows = {}
    for qid, _gold, atom, claim, _t in questions:
        need = needed.get(qid)
        if not need:
            continue
        found: dict[str, list[str]] = {}
        hdc_src = LedgerSource(led, VSAConfig.default("hdc"))
        # BM25: facts evidenced by the top-k chunks for the claim's words
        chunks = [c for c, _ in hdc_src.bm25(claim, max(ks))]
        found["bm25"] = [f for c in chunks for f in sorted(by_chunk.get((c.document, c.chunk), []))]
        st = structured_lane(hdc_src, claim, AsOf.latest(), StructuredOptions(max_facts=max(ks)), max(ks))
        found["structured"] = [fh.fact_id for fh, _ in st.facts]
        for rep in ("hrr", "hdc"):
            src = LedgerSource(led, VSAConfig.default(rep))
            space = src.space(AsOf.latest())
            hits = space.similar_facts(space.term_query(_goal_terms(atom)), max(ks))
            found[rep] = [h.key for h in hits]
        for lane, ids in found.items():
            for k in ks:
                got = set(ids[:k]) & need
                rows.setdefault((lane, k), []).append(len(got) / len(need))
    print("\nrecall@k of the facts a proof needs (solver core under strategy none), per lane:")
    for lane in ("bm25", "structured", "hrr", "hdc"):
        print("  " + lane.ljust(11) + "  ".join(f"@{k}: {statistics.mean(rows.get((lane, k), [0])):.3f}" for k in ks)
              + f"   ({len(rows.get((lane, ks[0]), []))} proofs)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--file", type=Path, default=None, help="ProofWriter JSON (default: corpora proofwriter/dev.json)")
    ap.add_argument("--limit", type=int, default=100, help="questions, taken evenly over the file (0 = all)")
    ap.add_argument("--strategies", default="none,hrr,hdc")
    ap.add_argument("--solvers", default="z3,cvc5")
    ap.add_argument("--initial", type=int, default=32)
    ap.add_argument("--step", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=None, help="one JSON line per question and configuration")
    args = ap.parse_args()
    path = args.file
    if path is None:
        root = corpora_root()
        if root is None:
            sys.exit("ProofWriter not found: set HOLOKB_CORPORA or pass --file")
        path = root / "proofwriter" / "dev.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        led, program, questions, n_theories, n_facts, skipped = build(records, Path(tmp) / "shared.db")
        print(f"# bench/strategies.py: {path.name}: {n_theories} theories, {n_facts} facts, {len(program.rules)} rules "
              f"in one KB (built in {time.perf_counter() - t:.1f} s); {len(questions)} questions planned, {skipped} not; "
              f"loadavg {open('/proc/loadavg').read().split()[:3]}")
        if args.limit and args.limit < len(questions):
            stride = len(questions) / args.limit
            questions = [questions[int(i * stride)] for i in range(args.limit)]
        loop = IntuitionLoop(led, program)
        configs = [(Strategy.parse(s), solver) for s in args.strategies.split(",") for solver in args.solvers.split(",")]
        t = time.perf_counter()
        for st in {s for s, _ in configs if s is not Strategy.NONE}:  # build the indexes outside the timings
            loop.vectors.space(led, LoopSettings(st).vsa_config(), AsOf.latest())
        print(f"indexes built in {time.perf_counter() - t:.1f} s; KB facts visible: {len(loop.visible(AsOf.latest()))}")
        results: dict[tuple, list] = {c: [] for c in configs}
        needed: dict[str, set] = {}
        out = args.out.open("w") if args.out else None
        for qid, gold, atom, claim, _t in questions:
            for st, solver in configs:  # interleaved: every configuration sees the same machine state
                s = LoopSettings(st, solver, initial=args.initial, step=args.step, max_rounds=args.rounds)
                t0 = time.perf_counter()
                r = loop.prove(atom, as_of=AsOf.latest(), settings=s)
                dt = time.perf_counter() - t0
                pred = PRED[r.status]
                results[(st, solver)].append((pred == gold, r.candidates, len(r.rounds), dt))
                if st is Strategy.NONE and r.status != "unknown" and qid not in needed:
                    needed[qid] = {f.key for f in r.solver_result.facts}
                if out:
                    out.write(json.dumps({"id": qid, "strategy": st.value, "solver": solver, "gold": gold,
                                          "predicted": pred, "candidates": r.candidates, "rounds": len(r.rounds),
                                          "stop": r.stop.value, "ms": round(dt * 1000, 2)}) + "\n")
        if out:
            out.close()
        kb_size = len(loop.visible(AsOf.latest()))
        print(f"\n{len(questions)} questions; KB {kb_size} facts; loadavg {os.getloadavg()[0]:.2f}")
        print("strategy solver  accuracy  median-candidates (KB/x)  median-rounds  median-ms  p95-ms")
        for (st, solver), rows in results.items():
            acc = sum(r[0] for r in rows) / len(rows)
            cand = statistics.median(r[1] for r in rows)
            lat = sorted(r[3] for r in rows)
            p95 = lat[max(0, int(round(0.95 * len(lat))) - 1)]
            print(f"{st.value:<8} {solver:<6} {acc:8.4f}  {cand:10.0f} ({kb_size / cand:6.1f}x)  "
                  f"{statistics.median(r[2] for r in rows):13.1f}  {statistics.median(lat) * 1000:9.1f}  {p95 * 1000:7.1f}")
        if needed:
            lane_recall(led, loop, questions, needed)
        led.close()


if __name__ == "__main__":
    main()
