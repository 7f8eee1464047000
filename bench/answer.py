"""Answering and ingestion speed: kb.answer on a 100k-fact KB (1k chunks) vs the same questions through
kb.prove, and ingestion throughput of the controlled-English reader.

    PYTHONPATH=src python3 bench/answer.py [--facts 100000] [--chunks 1000] [--questions 60] [--runs 3]
                                           [--prove 10] [--sentences 10000]

1. Builds the KB with ``kb.ingest`` of Context Units (``--facts`` units spread over ``--chunks`` paragraphs,
   plus two versioned policy documents for DS005's question) and reports the ingestion rate.
2. Asks three kinds of questions, interleaved, ``--runs`` times each: a value (``p(s, ?o)``), a ground yes/no
   (half true, half not provable) and DS005's check with a version.  Prints median and p95 per kind, and the
   first ``--prove`` ground yes/no questions through ``kb.prove`` (z3 over the goal's neighbourhood) in the same
   run, with the ratio of the medians prove/answer over those same questions.
3. Reads ``--sentences`` generated controlled-English sentences with ``kb.ingest`` (the reader's extraction,
   then validation and one batch) and reports sentences per second, extraction alone and end to end.

Figures depend on the machine's load: the load average is printed beside them.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from holokb.analysis import analyze  # noqa: E402
from holokb.answer import QueryPlan, Verdict  # noqa: E402
from holokb.core import AsOf  # noqa: E402
from holokb.ingest.context_units import ContextUnitExtractor  # noqa: E402
from holokb.ingest.pipeline import IngestBudget  # noqa: E402
from holokb.kb import KnowledgeBase  # noqa: E402
from holokb.syntax import parse_rules  # noqa: E402

AT = 1_767_225_600_000


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def build(kb: KnowledgeBase, n_facts: int, n_chunks: int, rng: random.Random) -> list[tuple[int, int, int]]:
    per = max(1, n_facts // n_chunks)
    facts, paras = [], []
    for c in range(n_chunks):
        units = []
        for j in range(per):
            s, r, o = rng.randrange(n_facts // 5), rng.randrange(50), rng.randrange(n_facts // 10)
            facts.append((s, r, o))
            units.append(f"## Context Unit c{c}u{j}\nSubject: e{s}\nRelation: rel{r}\nObject: o{o}")
        paras.append("\n".join(units))
    text = "\n\n".join(paras)
    t0 = time.perf_counter()
    r = kb.ingest(text, doc_id="bulk", at=AT, extractor=ContextUnitExtractor(),
                  budget=IngestBudget(max_facts_per_chunk=per + 1, timeout_s=3600))
    dt = time.perf_counter() - t0
    print(f"ingest (context units): {r.facts} facts in {r.chunks_ingested} chunks, {dt:.1f} s = "
          f"{r.facts / dt:,.0f} facts/s (extract {dict(r.durations)[_phase('extract')]:.1f} s, "
          f"commit {dict(r.durations)[_phase('commit')]:.1f} s)  load {load()}")
    for v, minutes in (("v1.0", 30), ("v2.0", 15)):
        kb.ingest(f"## Context Unit {v}\nSubject: session token\nRelation: expires after\nObject: {minutes} minutes\n",
                  doc_id=f"spec-{v}", at=AT, extractor=ContextUnitExtractor(), version=v)
    return facts


def _phase(name: str):
    from holokb.ingest import Phase

    return Phase(name)


def questions(facts: list[tuple[int, int, int]], n: int, rng: random.Random) -> dict[str, list[dict]]:
    known = set(facts)
    value, yes_no = [], []
    for _ in range(n):
        s, r, o = rng.choice(facts)
        value.append({"goal": {"subject": f"ex:e{s}", "predicate": f"ex:rel{r}", "object": "?x"}, "form": "list",
                      "world": "closed"})
        if len(yes_no) % 2 == 0:
            yes_no.append((s, r, o))
        else:
            while (s, r, o) in known:
                o = rng.randrange(len(facts) // 10)
            yes_no.append((s, r, o))
    check = {"version": "v2.0", "goal": {"subject": "session token", "predicate": "expires after", "object": "?d"},
             "params": {"inactivityMinutes": 20},
             "check": {"tests": [{"left": {"param": "inactivityMinutes", "unit": "minutes"}, "op": ">", "right": "?d"}],
                       "derives": {"subject": "session token", "predicate": "session expired"}, "yesWhen": "fails"}}
    return {"value (list, closed world)": value,
            "yes/no ground": [{"goal": {"subject": f"ex:e{s}", "predicate": f"ex:rel{r}", "object": f"ex:o{o}"}}
                              for s, r, o in yes_no],
            "DS005 check (v2.0)": [check] * n,
            "_prove": [f"ex:rel{r}(ex:e{s}, ex:o{o})" for s, r, o in yes_no]}


def bench_answers(kb: KnowledgeBase, qs: dict[str, list], runs: int, n_prove: int) -> None:
    times: dict[str, list[float]] = {k: [] for k in qs}
    verdicts: dict[str, dict[str, int]] = {k: {} for k in qs if not k.startswith("_")}
    program = analyze(parse_rules("@prefix ex: <http://example.org/> .\nvocabulary: "
                                  + ", ".join(f"ex:rel{r}/2" for r in range(50)) + "."))
    plans = {k: [QueryPlan.from_json(p) for p in v] for k, v in qs.items() if not k.startswith("_")}
    n = len(qs["_prove"])
    for _ in range(runs):
        for i in range(n):  # interleaved: every kind sees the same machine state
            for k, ps in plans.items():
                t0 = time.perf_counter()
                a = kb.answer(ps[i], as_of=AsOf.latest())
                times[k].append(time.perf_counter() - t0)
                verdicts[k][a.verdict.value] = verdicts[k].get(a.verdict.value, 0) + 1
            if i < n_prove:  # prove takes seconds here: a subset, interleaved with the answers
                t0 = time.perf_counter()
                r = kb.prove(program, qs["_prove"][i], as_of=AsOf.latest())
                times["_prove"].append(time.perf_counter() - t0)
                yes = plans["yes/no ground"][i]
                if r.status == "entailed":
                    assert kb.answer(yes, as_of=AsOf.latest()).verdict is Verdict.SUPPORTED
    print(f"answer latency over {runs} runs × {n} questions (ms)  load {load()}")
    for k, xs in times.items():
        if not xs:  # --prove 0
            continue
        name = f"kb.prove, first {n_prove} yes/no" if k == "_prove" else k
        ms = [x * 1000 for x in xs]
        extra = "" if k.startswith("_") else f"   verdicts {verdicts[k]}"
        print(f"  {name:<34} median {statistics.median(ms):7.2f}  p95 {pct(ms, 0.95):7.2f}{extra}")
    if not n_prove:
        return
    same = [times["yes/no ground"][r * n + i] for r in range(runs) for i in range(n_prove)]
    a = statistics.median(same)
    p = statistics.median(times["_prove"])
    print(f"  ratio prove / answer on the yes/no questions (medians): {p / a:.2f}")


def bench_reader(n: int, rng: random.Random) -> None:
    try:
        from holokb.ingest.english import EnglishExtractor
    except ImportError:
        print("reader: not installed, skipped")
        return
    from holokb.ingest import DocumentInput, chunk_paragraphs

    adj = ["red", "big", "round", "kind", "young", "cold", "nice", "green"]
    names = ["the bear", "the cat", "the dog", "the mouse", "the lion", "the rabbit", "Bob", "Anne", "Erin", "Fiona"]
    verbs = ["chases", "likes", "sees", "visits", "eats", "needs"]
    sents = [(f"{rng.choice(names).capitalize()} is {rng.choice(adj)}." if i % 2 else
              f"{rng.choice(names).capitalize()} {rng.choice(verbs)} {rng.choice(names)}.") for i in range(n)]
    text = "\n\n".join(" ".join(sents[i:i + 10]) for i in range(0, n, 10))
    doc = DocumentInput("s", text, chunk_paragraphs(text))
    t0 = time.perf_counter()
    got = sum(e.sentences for e in EnglishExtractor().extract(doc))
    ex = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as d, KnowledgeBase.open(Path(d) / "r.db") as kb:
        t0 = time.perf_counter()
        r = kb.ingest(text, doc_id="s", at=AT)
        full = time.perf_counter() - t0
    print(f"reader: {got} sentences; extraction alone {got / ex:,.0f} sentences/s; kb.ingest end to end "
          f"{r.sentences / full:,.0f} sentences/s ({r.facts} facts, {len(r.skipped)} skipped)  load {load()}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=100_000)
    ap.add_argument("--chunks", type=int, default=1_000)
    ap.add_argument("--questions", type=int, default=60)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--prove", type=int, default=10, help="how many of the yes/no questions also go through kb.prove")
    ap.add_argument("--sentences", type=int, default=10_000)
    args = ap.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as d, KnowledgeBase.open(Path(d) / "kb.db") as kb:
        facts = build(kb, args.facts, args.chunks, rng)
        bench_answers(kb, questions(facts, args.questions, rng), args.runs, min(args.prove, args.questions))
    bench_reader(args.sentences, rng)


if __name__ == "__main__":
    main()
