"""Loopback load test of ``holokb serve``: 16 concurrent clients for 30 s mixing point queries, the
14 LUBM queries and the answer path; then the same with a concurrent writer loading batches, while
readers check that no batch is ever seen in part.

Run:  PYTHONPATH=src python3 bench/serve.py [--seconds 30] [--clients 16] [--workers 2] [--batch 50]

The KB is LUBM(1,0) (100,543 triples, from $HOLOKB_CORPORA) plus the example KB (kb/) with
rules/example.hkr.  The server is a real ``holokb serve`` process on 127.0.0.1; the clients are
threads of this process with one keep-alive connection each, every loop bounded by the deadline.
Mix per client loop: point query, LUBM query (q01…q14 in turn), answer — ``/answer`` when the server
offers it, else ``/explain`` of the demo fact (the proof path the answer builds on); it says which.

Peer in the same run: the same point query on a bare in-process pyoxigraph store of the same
snapshot (no HTTP, no ledger, no process hop) — the ratio is what the HTTP face costs.

Writer phase: a client POSTs /load every ``--interval`` s (default 2), each batch ``--batch`` triples
``ex:batchK ex:member ex:itemK_i``; readers add a grouped count of members per batch and count any
batch whose count differs from the batch size ("partial batches seen", which must be 0).  After each
write the writer reads its batch back with a point lookup: it must see the whole batch, and the
answer's X-Holokb-Ledger-Version must be at least the version the write returned ("stale reads
after a write", which must be 0); the time from sending the write to that read is "write→visible".

Output: per kind — requests, throughput, p50/p95/p99 ms, errors; the load average beside it.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from holokb.core import parse_instant  # noqa: E402
from holokb.kb import KnowledgeBase  # noqa: E402

CORPORA = Path(os.environ.get("HOLOKB_CORPORA", ROOT.parent / "shared" / "corpora"))
LUBM = CORPORA / "lubm"
TOKEN = "bench-token"
POINT = ("SELECT ?p ?o WHERE { <http://www.Department0.University0.edu/GraduateStudent%d> ?p ?o }")
MEMBER = "http://example.org/member"
CHECK = f"SELECT ?b (COUNT(?x) AS ?n) WHERE {{ ?b <{MEMBER}> ?x }} GROUP BY ?b"


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


class Client:
    """One keep-alive connection; ``get`` returns (status, body, ms)."""

    def __init__(self, port: int):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers: dict[str, str] = {}

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        t0 = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=headers or {})
            r = self.conn.getresponse()
            data = r.read()
            status = r.status
            self.headers = {k.lower(): v for k, v in r.getheaders()}
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            data, status = b"", 0
        return status, data, (time.perf_counter() - t0) * 1000


def sparql_path(q: str) -> str:
    return "/sparql?" + urllib.parse.urlencode({"query": q})


def run_phase(port: int, seconds: float, clients: int, lubm_queries: list[str], answer: tuple[str, str],
              writer: dict | None, weights: list[float] | None = None) -> dict:
    stats: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    partial = [0]
    checks = [0]
    stale = [0]
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def reader(k: int) -> None:
        c = Client(port)
        rnd = random.Random(k)
        i = 0
        while time.monotonic() < end:
            kinds = [("point", sparql_path(POINT % rnd.randrange(0, 100))),
                     ("lubm", sparql_path(lubm_queries[(k + i) % len(lubm_queries)])),
                     ("answer", answer[1])]
            if weights is not None:  # one request per loop, its kind drawn by weight
                kinds = rnd.choices(kinds, weights=weights)
            if writer is not None and (weights is None or i % 5 == 0):  # first, so loops check batches even when the rest is slow
                kinds.insert(0, ("batch-check", sparql_path(CHECK)))
            for kind, path in kinds:
                if time.monotonic() >= end:
                    break
                status, body, ms = c.request("GET", path, headers={"Accept": "application/sparql-results+json"})
                with lock:
                    if status == 200:
                        stats[kind].append(ms)
                    else:
                        errors[kind] += 1
                        errors[f"{kind} {status}"] += 1  # which status (0: connection failed)
                        if errors[f"{kind} {status}"] == 1 and status >= 500:  # say why, once per kind and status
                            print(f"  first {kind} {status}: {body[:300]!r}", file=sys.stderr)
                if kind == "batch-check" and status == 200:
                    rows = json.loads(body)["results"]["bindings"]
                    bad = sum(1 for b in rows if int(b["n"]["value"]) != writer["batch"])
                    with lock:
                        partial[0] += bad
                        checks[0] += 1
            i += 1

    def write_loop() -> None:
        c = Client(port)
        k = 0
        while time.monotonic() < end:
            lines = "".join(f"<http://example.org/batch{writer['tag']}_{k}> <{MEMBER}> "
                            f"<http://example.org/item{writer['tag']}_{k}_{i}> .\n" for i in range(writer["batch"]))
            status, wbody, ms = c.request("POST", "/load", body=lines.encode(),
                                      headers={"Content-Type": "application/n-triples",
                                               "Authorization": f"Bearer {TOKEN}"})
            with lock:
                if status == 200:
                    stats["write"].append(ms)
                else:
                    errors["write"] += 1
                    errors[f"write {status}"] += 1
            if status == 200:  # read it back at once: the whole batch, labelled with the write's version or later
                version = json.loads(wbody).get("version", 0)  # servers before the version label: 0
                q = f"SELECT ?x WHERE {{ <http://example.org/batch{writer['tag']}_{k}> <{MEMBER}> ?x }}"
                st, body, ms2 = c.request("GET", sparql_path(q), headers={"Accept": "application/sparql-results+json"})
                seen = len(json.loads(body)["results"]["bindings"]) if st == 200 else -1
                with lock:
                    stats["write→visible"].append(ms + ms2)
                    if seen != writer["batch"] or int(c.headers.get("x-holokb-ledger-version", -1)) < version:
                        stale[0] += 1
            k += 1
            time.sleep(writer["interval"])

    threads = [threading.Thread(target=reader, args=(k,)) for k in range(clients)]
    if writer is not None:
        threads.append(threading.Thread(target=write_loop))
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    return {"stats": stats, "errors": errors, "wall": wall, "partial": partial[0], "checks": checks[0],
            "stale": stale[0]}


def report(title: str, res: dict, answer_label: str) -> None:
    print(f"\n== {title}  (wall {res['wall']:.1f} s, load average {loadavg()})")
    print(f"{'kind':<12} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7}")
    total = 0
    for kind in ("point", "lubm", "answer", "batch-check", "write", "write→visible"):
        xs = res["stats"].get(kind, [])
        if not xs and not res["errors"].get(kind):
            continue
        total += len(xs) if kind != "write→visible" else 0  # a span of two requests, not one
        label = answer_label if kind == "answer" else kind
        print(f"{label:<12} {len(xs):>9} {len(xs) / res['wall']:>8.1f} {pct(xs, 50):>8.1f} {pct(xs, 95):>8.1f} "
              f"{pct(xs, 99):>8.1f} {res['errors'].get(kind, 0):>7}")
    print(f"{'all':<12} {total:>9} {total / res['wall']:>8.1f}")
    by_status = {k: v for k, v in res["errors"].items() if " " in k}
    if by_status:
        print("errors by status: " + ", ".join(f"{k}: {v}" for k, v in sorted(by_status.items())))
    if res["checks"]:
        print(f"partial batches seen: {res['partial']} in {res['checks']} checks; stale reads after a write: "
              f"{res['stale']} in {len(res['stats'].get('write', []))} writes")


def peer_point(db: Path) -> float:
    """Median ms of the point query on a bare in-process pyoxigraph store of the same snapshot."""
    import pyoxigraph as ox

    from holokb.core import AsOf
    from holokb.sparql.nquads import NQuadsWriter
    from holokb.sparql.snapshot import snapshot_quads

    with KnowledgeBase.open(db) as kb:
        quads, _, _ = snapshot_quads(kb.ledger, AsOf.latest(), None, None)
    store = ox.Store()
    store.bulk_extend(ox.parse(NQuadsWriter(deskolemise=True).encode(quads), format=ox.RdfFormat.N_QUADS))
    times = []
    for i in range(300):
        t0 = time.perf_counter()
        list(store.query(POINT % (i % 100)))
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--mix", default="round", help="'round': every client loop sends a point query, a LUBM "
                    "query and an answer in turn (the slowest kind sets the pace); 'P:L:A' (e.g. 8:1:1): each "
                    "request's kind drawn with these weights")
    ap.add_argument("--fast-workers", type=int, default=None, help="passed to holokb serve (0: no fast lane)")
    ap.add_argument("--nice", type=int, default=None, help="passed to holokb serve (0: general workers not niced)")
    args = ap.parse_args()
    if not (LUBM / "lubm_1_0_seed0.nt.gz").exists():
        sys.exit(f"LUBM not found under {LUBM}: set HOLOKB_CORPORA")
    queries = [(LUBM / "queries" / f"q{i:02d}.rq").read_text() for i in range(1, 15)]
    with tempfile.TemporaryDirectory(prefix="holokb-bench-serve-") as tmp:
        db = Path(tmp) / "kb.db"
        t0 = time.perf_counter()
        with KnowledgeBase.open(db) as kb:
            kb.load([LUBM / "lubm_1_0_seed0.nt.gz"], at=parse_instant("2026-01-01"))
            kb.load([ROOT / "kb"], at=parse_instant("2026-01-01"))
        print(f"ledger: LUBM(1,0) + kb/ loaded in {time.perf_counter() - t0:.1f} s; load average {loadavg()}")
        peer = peer_point(db)
        print(f"peer: bare pyoxigraph point query median {peer:.3f} ms (in-process, no HTTP)")
        port = free_port()
        lanes = [*(["--fast-workers", str(args.fast_workers)] if args.fast_workers is not None else []),
                 *(["--nice", str(args.nice)] if args.nice is not None else [])]
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HOLOKB_WRITE_TOKEN": TOKEN}
        proc = subprocess.Popen([sys.executable, "-m", "holokb", "serve", "--db", str(db), "--port", str(port),
                                 "--workers", str(args.workers), *lanes, "--rules", str(ROOT / "rules" / "example.hkr"),
                                 "--quiet", "--timeout", "30", "--max-pending", "256"],
                                cwd=tmp, env=env, stderr=open(Path(tmp) / "server.err", "w"), text=True)
        try:
            c = Client(port)
            t0 = time.monotonic()
            while c.request("GET", "/healthz")[0] != 200:
                if proc.poll() is not None or time.monotonic() - t0 > 120:
                    sys.exit(f"server did not start: {(Path(tmp) / 'server.err').read_text()[-2000:]}")
                time.sleep(0.2)
            print(f"server up in {time.monotonic() - t0:.1f} s with {args.workers} workers "
                  f"{' '.join(lanes) or '(server defaults for lanes)'}; code from {ROOT}")
            paths = json.loads(c.request("GET", "/openapi.json")[1])["paths"]
            if "/answer" in paths:
                answer = ("answer", "/answer?" + urllib.parse.urlencode(
                    {"question": "Is the token of the support console expired?", "valid": "2026-04-01"}))
            else:
                answer = ("explain", "/explain?" + urllib.parse.urlencode(
                    {"fact": "ex:expired(ex:supportConsoleToken)", "valid": "2026-04-01"}))
            # warm every worker's snapshot and closures outside the measurement: each kind sent by
            # `workers` clients at once, so every worker gets each (sequential requests alternate workers)
            for path in (sparql_path(queries[0]), answer[1], sparql_path(queries[0]), answer[1]):
                warm = [threading.Thread(target=Client(port).request, args=("GET", path)) for _ in range(args.workers)]
                for t in warm:
                    t.start()
                for t in warm:
                    t.join()
            weights = None if args.mix == "round" else [float(x) for x in args.mix.split(":")]
            print(f"mix: {args.mix}")
            res = run_phase(port, args.seconds, args.clients, queries, answer, None, weights)
            report(f"{args.clients} readers, {args.seconds:g} s", res, answer[0])
            point_p50 = pct(res["stats"]["point"], 50)
            print(f"point query p50 over HTTP with {args.clients} clients / bare pyoxigraph: {point_p50:.1f} ms / "
                  f"{peer:.3f} ms = {point_p50 / peer:.0f}x")
            res = run_phase(port, args.seconds, args.clients, queries, answer,
                            {"batch": args.batch, "interval": args.interval, "tag": "w"}, weights)
            report(f"{args.clients} readers + 1 writer ({args.batch} triples every {args.interval:g} s)", res,
                   answer[0])
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
            err = (Path(tmp) / "server.err").read_text(errors="replace").strip()
            if err:  # what the server (and its workers) said on stderr: crashes, replacements
                print("server stderr (last 3000 chars):\n" + err[-3000:])


if __name__ == "__main__":
    main()
