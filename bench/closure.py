"""Closure benchmark: holokb.engine vs clingo, DuckDB 2.x (semi-naive SQL, recursive CTE), Nemo
(``nemo-python``, module ``nmo_python``), pyDatalog.

Run:  cd /work/main && PYTHONPATH=src python3 bench/closure.py [--quick] [--rdfs] [--linear] [--proofs] [--cap S]
Prints one table, a row as soon as it is measured: median seconds of 3 runs, each run in a
forked child capped at 120 s ("timeout" when a run passes it; 60 s with --quick), systems run
round-robin so load changes hit all alike; pyDatalog one run capped at 60 s.  The last column is peer time / holokb time measured in the same run (> 1:
holokb is faster).  Then proof-recording overhead (same path, with vs without: medians of 7
alternating runs, wall and CPU) and bytes per derived tuple.  Workloads: transitive closure on chains of 1,000 and 2,000 nodes and a random
graph (10k nodes / 20k edges); RDFS rules over 100k and 1M synthetic triples; a linear recursion
of 100,000 steps (``b(x+1) :- b(x), x < 100000``: per-iteration overhead).  ``--rdfs`` runs
only the RDFS rows and the proof/memory lines, ``--linear`` only the linear recursion (and its proof line),
``--proofs`` only the proof/memory lines.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from holokb.analysis import check_program  # noqa: E402
from holokb.analysis.program import Atom, Const, Program, Rule, Var  # noqa: E402
from holokb.core import IRI, Limits  # noqa: E402
from holokb.engine import Database, TermDictionary, closure  # noqa: E402

# The engine's transitive-closure plan imports scipy on first use (0.3-0.7 s here, more than the chain
# closure itself); the peers' imports and connections happen before their timers start, so the
# children forked from here find scipy loaded too.  A cold process pays it once.
import scipy.sparse.csgraph  # noqa: E402,F401

# Likewise numba and the engine's compiled kernels (engine/kernels.py, loaded on the first input
# past 50k keys): importing numba and loading the cached machine code costs a cold process
# ~0.5-1 s (a first compile after an edit, several seconds).  Loaded once here, timed, and
# printed at the start so the cost is on record beside the rows that leave it out.
from holokb.engine import kernels  # noqa: E402

_t = time.perf_counter()
KERNELS = kernels.JIT and kernels.load() is not None  # HOLOKB_JIT=0: the numpy paths (a before/after run)
KERNEL_LOAD_S = time.perf_counter() - _t

RUNS = 3
QUICK = "--quick" in sys.argv
RDFS_ONLY = "--rdfs" in sys.argv
LINEAR_ONLY = "--linear" in sys.argv
PROOFS_ONLY = "--proofs" in sys.argv
LINEAR_STEPS = 100_000


def V(n):
    return Var(n)


def tc_program() -> Program:
    return check_program((
        Rule("base", Atom("path", (V("x"), V("y"))), (Atom("edge", (V("x"), V("y"))),)),
        Rule("step", Atom("path", (V("x"), V("z"))), (Atom("path", (V("x"), V("y"))), Atom("edge", (V("y"), V("z"))))),
    ))


SC, SP, DOM, RNG, TYPE = (IRI("http://www.w3.org/2000/01/rdf-schema#" + n) for n in
                          ("subClassOf", "subPropertyOf", "domain", "range", "type"))


def rdfs_program() -> Program:
    c = {k: Const(v) for k, v in dict(sc=SC, sp=SP, dom=DOM, rng=RNG, type=TYPE).items()}
    t = lambda s, p, o: Atom("t", (s, p, o))  # noqa: E731
    x, y, z, p, q = V("x"), V("y"), V("z"), V("p"), V("q")
    return check_program((
        Rule("sc_trans", t(x, c["sc"], z), (t(x, c["sc"], y), t(y, c["sc"], z))),
        Rule("sp_trans", t(x, c["sp"], z), (t(x, c["sp"], y), t(y, c["sp"], z))),
        Rule("sp_inherit", t(x, q, z), (t(x, p, z), t(p, c["sp"], q))),
        Rule("domain", t(x, c["type"], y), (t(x, p, z), t(p, c["dom"], y))),
        Rule("range", t(z, c["type"], y), (t(x, p, z), t(p, c["rng"], y))),
        Rule("type_inherit", t(x, c["type"], z), (t(x, c["type"], y), t(y, c["sc"], z))),
    ))


# -- workloads as integer edge lists -------------------------------------------------------
def chain(n):
    return np.arange(n - 1), np.arange(1, n)


def random_graph(nodes, edges, seed=7):
    rng = np.random.default_rng(seed)
    s, o = rng.integers(0, nodes, edges), rng.integers(0, nodes, edges)
    pairs = np.unique(np.stack([s, o], 1), axis=0)
    return pairs[:, 0], pairs[:, 1]


def rdfs_triples(n, seed=11):
    """~n triples: a class tree (depth 6), a property tree with domains/ranges, typed instances."""
    rng = np.random.default_rng(seed)
    n_cls, n_prop = 400, 60
    n_inst = max(n // 6, 10)
    base = 5  # ids 0..4: sc, sp, dom, rng, type
    cls = base + np.arange(n_cls)
    prop = base + n_cls + np.arange(n_prop)
    inst0 = base + n_cls + n_prop
    trip = []
    parent = np.maximum((np.arange(n_cls) - 1) // 3, 0)
    trip += [(cls[i], 0, cls[parent[i]]) for i in range(1, n_cls)]
    pparent = np.maximum((np.arange(n_prop) - 1) // 3, 0)
    trip += [(prop[i], 1, prop[pparent[i]]) for i in range(1, n_prop)]
    for i in range(n_prop):
        trip.append((prop[i], 2, cls[rng.integers(0, n_cls)]))
        trip.append((prop[i], 3, cls[rng.integers(0, n_cls)]))
    meta = np.array(trip, dtype=np.int64)
    k = n - len(meta)
    n_type = k // 3
    ti = np.stack([inst0 + rng.integers(0, n_inst, n_type), np.full(n_type, 4), cls[rng.integers(n_cls // 2, n_cls, n_type)]], 1)
    m = k - n_type
    pi = np.stack([inst0 + rng.integers(0, n_inst, m), prop[rng.integers(n_prop // 2, n_prop, m)], inst0 + rng.integers(0, n_inst, m)], 1)
    allt = np.unique(np.concatenate([meta, ti, pi]), axis=0)
    return allt, inst0 + n_inst


# -- holokb -----------------------------------------------------------------------------------
def _dict(n_ids, named=()):
    d = TermDictionary()
    for i, term in enumerate(named):
        d.seed(term, i)
    for i in range(len(named), n_ids):
        d.seed(IRI(f"http://b/{i}"), i)
    return d


#: CPU seconds (this process, all threads) of the last closure a holokb runner timed: the proof
#: lines report it beside the wall time (robust to the other load on a shared machine).
_CPU = [0.0]


def _timed(fn):
    """(wall seconds, result) of ``fn()``; its CPU seconds go to :data:`_CPU`."""
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    _CPU[0] = time.process_time() - c0
    return dt, out


def run_holokb_tc(s, o, n, record=False):
    db = Database(_dict(n))
    db.add_ids("edge", [s, o])
    dt, m = _timed(lambda: closure(tc_program(), db, record_proofs=record))
    return dt, m.stats.derived, m


def run_holokb_rdfs(trip, n_ids, record=False):
    db = Database(_dict(n_ids, (SC, SP, DOM, RNG, TYPE)))
    db.add_ids("t", [trip[:, 0], trip[:, 1], trip[:, 2]])
    dt, m = _timed(lambda: closure(rdfs_program(), db, record_proofs=record))
    return dt, m.relations[("t", False)].size, m


def run_holokb_linear(steps, record=False):
    from holokb.analysis import analyze
    from holokb.core import Literal
    from holokb.syntax import parse_rules

    prog = analyze(parse_rules(f"@prefix b: <http://b/> . rule s: b:b(?y) :- b:b(?x), ?x < {steps}, ?y = ?x + 1."),
                   rdf_types=False)
    db = Database()
    db.add("http://b/b", (Literal.of(0),))
    dt, m = _timed(lambda: closure(prog, db, limits=Limits.unbounded(), record_proofs=record))
    return dt, m.relations[("http://b/b", False)].size


# -- DuckDB -----------------------------------------------------------------------------------
def duck_tc_cte(s, o):
    import duckdb
    con = duckdb.connect()
    con.execute("create table edge(a bigint, b bigint)")
    con.execute("insert into edge select * from (select unnest(?) a, unnest(?) b)", [s.tolist(), o.tolist()])
    t0 = time.perf_counter()
    n = con.execute("""with recursive path(a, b) as (select a, b from edge union select p.a, e.b from path p
                       join edge e on p.b = e.a) select count(*) from path""").fetchone()[0]
    return time.perf_counter() - t0, n


def duck_tc_seminaive(s, o):
    import duckdb
    con = duckdb.connect()
    con.execute("create table edge(a bigint, b bigint)")
    con.execute("insert into edge select * from (select unnest(?) a, unnest(?) b)", [s.tolist(), o.tolist()])
    t0 = time.perf_counter()
    con.execute("create table path as select distinct a, b from edge")
    con.execute("create table delta as select * from path")
    while True:
        con.execute("""create or replace table new as select distinct d.a, e.b from delta d join edge e on d.b = e.a
                       where not exists (select 1 from path p where p.a = d.a and p.b = e.b)""")
        k = con.execute("select count(*) from new").fetchone()[0]
        if k == 0:
            break
        con.execute("insert into path select * from new")
        con.execute("create or replace table delta as select * from new")
    n = con.execute("select count(*) from path").fetchone()[0]
    return time.perf_counter() - t0, n


RDFS_SQL = [
    "select d.s, 0 p, t.o from {d} d join t on d.p = 0 and t.p = 0 and d.o = t.s",
    "select t.s, 0 p, d.o from t join {d} d on d.p = 0 and t.p = 0 and t.o = d.s",
    "select d.s, 1 p, t.o from {d} d join t on d.p = 1 and t.p = 1 and d.o = t.s",
    "select t.s, 1 p, d.o from t join {d} d on d.p = 1 and t.p = 1 and t.o = d.s",
    "select d.s, t.o p, d.o from {d} d join t on t.p = 1 and d.p = t.s",
    "select t.s, d.o p, t.o from t join {d} d on d.p = 1 and t.p = d.s",
    "select d.s, 4 p, t.o from {d} d join t on t.p = 2 and d.p = t.s",
    "select t.s, 4 p, d.o from t join {d} d on d.p = 2 and t.p = d.s",
    "select d.o, 4 p, t.o from {d} d join t on t.p = 3 and d.p = t.s",
    "select t.o, 4 p, d.o from t join {d} d on d.p = 3 and t.p = d.s",
    "select d.s, 4 p, t.o from {d} d join t on d.p = 4 and t.p = 0 and d.o = t.s",
    "select t.s, 4 p, d.o from t join {d} d on t.p = 4 and d.p = 0 and t.o = d.s",
]


def duck_rdfs(trip):
    import duckdb
    con = duckdb.connect()
    con.execute("create table t(s bigint, p bigint, o bigint)")
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        np.savetxt(f, trip, fmt="%d", delimiter=",")
    con.execute(f"insert into t select * from read_csv('{f.name}', header=false, columns={{'s':'BIGINT','p':'BIGINT','o':'BIGINT'}})")
    os.unlink(f.name)
    t0 = time.perf_counter()
    con.execute("create table delta as select * from t")
    while True:
        union = " union ".join(q.format(d="delta") for q in RDFS_SQL)
        con.execute(f"""create or replace table new as select * from ({union}) c
                        where not exists (select 1 from t where t.s = c.s and t.p = c.p and t.o = c.o)""")
        k = con.execute("select count(*) from new").fetchone()[0]
        if k == 0:
            break
        con.execute("insert into t select * from new")
        con.execute("create or replace table delta as select * from new")
    n = con.execute("select count(*) from t").fetchone()[0]
    return time.perf_counter() - t0, n


def duck_linear(steps):
    import duckdb
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    t0 = time.perf_counter()
    n = con.execute(f"WITH RECURSIVE b(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM b WHERE x < {steps}) "
                    "SELECT count(*) FROM b").fetchone()[0]
    return time.perf_counter() - t0, n


# -- Nemo (nemo-python) -------------------------------------------------------------------------
def nemo_run(facts: str, rules: str, out: str):
    import nmo_python

    t0 = time.perf_counter()
    engine = nmo_python.NemoEngine(nmo_python.load_string(facts + rules + f"\n@output {out} .\n"))
    engine.reason()
    n = sum(1 for _ in engine.result(out))
    return time.perf_counter() - t0, n


def nemo_tc(s, o):
    facts = "".join(f"edge({a},{b}).\n" for a, b in zip(s.tolist(), o.tolist()))
    return nemo_run(facts, "path(?X,?Y) :- edge(?X,?Y).\npath(?X,?Z) :- path(?X,?Y), edge(?Y,?Z).", "path")


NEMO_RDFS = """t(?X,0,?Z) :- t(?X,0,?Y), t(?Y,0,?Z).
t(?X,1,?Z) :- t(?X,1,?Y), t(?Y,1,?Z).
t(?X,?Q,?Z) :- t(?X,?P,?Z), t(?P,1,?Q).
t(?X,4,?C) :- t(?X,?P,?Z), t(?P,2,?C).
t(?Z,4,?C) :- t(?X,?P,?Z), t(?P,3,?C).
t(?X,4,?D) :- t(?X,4,?C), t(?C,0,?D)."""


def nemo_rdfs(trip):
    facts = "".join(f"t({a},{b},{c}).\n" for a, b, c in trip.tolist())
    return nemo_run(facts, NEMO_RDFS, "t")


def nemo_linear(steps):
    return nemo_run("b(0).\n", f"b(?Y) :- b(?X), ?X < {steps}, ?Y = ?X + 1.", "b")


def clingo_linear(steps):
    return clingo_run("b(0).", f"b(X+1) :- b(X), X < {steps}.")


# -- clingo -----------------------------------------------------------------------------------
def clingo_run(facts: str, rules: str):
    import clingo
    t0 = time.perf_counter()
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], facts + rules)
    ctl.ground([("base", [])])
    n = 0
    with ctl.solve(yield_=True) as h:
        for m in h:
            n = len(m.symbols(atoms=True))
    return time.perf_counter() - t0, n


def clingo_tc(s, o):
    facts = "".join(f"edge({a},{b})." for a, b in zip(s.tolist(), o.tolist()))
    return clingo_run(facts, "path(X,Y):-edge(X,Y). path(X,Z):-path(X,Y),edge(Y,Z).")


def clingo_rdfs(trip):
    facts = "".join(f"t({a},{b},{c})." for a, b, c in trip.tolist())
    rules = """t(X,0,Z):-t(X,0,Y),t(Y,0,Z). t(X,1,Z):-t(X,1,Y),t(Y,1,Z). t(X,Q,Z):-t(X,P,Z),t(P,1,Q).
               t(X,4,C):-t(X,P,Z),t(P,2,C). t(Z,4,C):-t(X,P,Z),t(P,3,C). t(X,4,D):-t(X,4,C),t(C,0,D)."""
    return clingo_run(facts, rules)


# -- pyDatalog (subprocess, capped) -------------------------------------------------------------
PYD = """
import sys, time
from pyDatalog import pyDatalog
pyDatalog.create_terms('edge, path, X, Y, Z')
n = int(sys.argv[1])
for i in range(n - 1):
    + edge(i, i + 1)
path(X, Y) <= edge(X, Y)
path(X, Z) <= path(X, Y) & edge(Y, Z)
t0 = time.perf_counter()
k = len(path(X, Y))
print(time.perf_counter() - t0, k)
"""


def pydatalog_chain(n, cap=60):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(PYD)
    try:
        out = subprocess.run([sys.executable, f.name, str(n)], capture_output=True, text=True, timeout=cap)
        dt, k = out.stdout.split()
        return float(dt), int(k)
    except subprocess.TimeoutExpired:
        return None, None
    finally:
        os.unlink(f.name)


def _child(fn, conn) -> None:
    try:
        conn.send(fn())
    except BaseException as e:  # noqa: BLE001 - the parent prints what failed
        conn.send(("error", f"{type(e).__name__}: {e}"))
    conn.close()


def capped(fn, cap):
    """Run ``fn`` in a forked child; its (seconds, tuples) or None when it passes ``cap`` seconds."""
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(fn, send))
    proc.start()
    send.close()
    try:
        if recv.poll(cap):
            try:
                res = recv.recv()
            except EOFError:  # the child died (e.g. out of memory)
                res = ("error", f"child exited with {proc.exitcode}")
            proc.join()
            return res
        return None
    finally:
        if proc.is_alive():
            proc.kill()
            proc.join()


def measure(systems, cap, runs=RUNS):
    """Round-robin runs of every system (so a change in machine load hits all of them alike):
    [(system, median seconds | "timeout" | "error", tuples)]."""
    times = {name: [] for name, _ in systems}
    result = {name: None for name, _ in systems}
    for _ in range(runs):
        for name, fn in systems:
            if isinstance(result[name], str):
                continue
            res = capped(fn, cap)
            if res is None:
                result[name] = "timeout"
            elif res[0] == "error":
                result[name] = "error"
                print(f"  {name}: {res[1]}", file=sys.stderr, flush=True)
            else:
                times[name].append(res[0])
                result[name] = res[1]
    out = []
    for name, _ in systems:
        r = result[name]
        out.append((name, r if isinstance(r, str) else statistics.median(times[name]),
                    None if isinstance(r, str) else r))
    return out


HEADER = f"{'workload':<16} {'system':<30} {'median s':>10} {'tuples':>10} {'holokb speed-up':>16}"


def report(name, system, t, k, base) -> None:
    """Print one row now (flushed); the last column is this peer's time / holokb's time."""
    ts = t if isinstance(t, str) else f"{t:10.3f}"
    ratio = ""
    if system != "holokb" and not isinstance(t, str) and not isinstance(base, (str, type(None))):
        ratio = f"{t / base:15.2f}x"
    print(f"{name:<16} {system:<30} {ts:>10} {str(k):>10} {ratio:>16}", flush=True)


def measure_row(name, systems, cap):
    """Measure one workload's systems (holokb first) and print their rows with ratios to holokb."""
    rows = measure(systems, cap)
    for system, t, k in rows:
        report(name, system, t, k, rows[0][1])
    return rows


def main() -> None:
    cap = 60 if QUICK else 120
    if "--cap" in sys.argv:  # a shorter cap per run keeps a full run bounded on a busy machine
        cap = int(sys.argv[sys.argv.index("--cap") + 1])
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; cap {cap} s per run", flush=True)
    print(f"compiled kernels: {'loaded in %.2f s before the runs (a cold process pays it once)' % KERNEL_LOAD_S if KERNELS else 'off or unavailable (numpy paths)'}",
          flush=True)
    if PROOFS_ONLY:
        proofs_and_memory(cap)
        return
    print(HEADER, flush=True)
    if LINEAR_ONLY or not (QUICK or RDFS_ONLY):
        name = f"linear {LINEAR_STEPS // 1000}k steps"
        systems = [("holokb", lambda: run_holokb_linear(LINEAR_STEPS)),
                   ("duckdb recursive CTE", lambda: duck_linear(LINEAR_STEPS)),
                   ("clingo", lambda: clingo_linear(LINEAR_STEPS)),
                   ("nemo", lambda: nemo_linear(LINEAR_STEPS))]
        measure_row(name, systems, cap)
        if LINEAR_ONLY:
            linear_proofs(cap)
            return
    tc = [("chain 1,000", *chain(1000), 1000), ("chain 2,000", *chain(2000), 2000)]
    if not QUICK:
        tc.append(("random 10k/20k", *random_graph(10_000, 20_000), 10_000))
    if RDFS_ONLY:
        tc = []
    for name, s, o, n in tc:
        systems = [("holokb", lambda: run_holokb_tc(s, o, n)[:2]),
                   ("duckdb recursive CTE", lambda: duck_tc_cte(s, o)),
                   ("duckdb semi-naive SQL", lambda: duck_tc_seminaive(s, o)),
                   ("clingo", lambda: clingo_tc(s, o)),
                   ("nemo", lambda: nemo_tc(s, o))]
        rows = measure_row(name, systems, cap)
        if n == 1000:
            t, k = pydatalog_chain(n)
            report(name, "pyDatalog (1 run, cap 60 s)", "timeout" if t is None else t, k, rows[0][1])
    sizes = [100_000] if QUICK else [100_000, 1_000_000]
    for size in sizes:
        trip, n_ids = rdfs_triples(size)
        name = f"RDFS {size // 1000}k"
        systems = [("holokb", lambda: run_holokb_rdfs(trip, n_ids)[:2]),
                   ("duckdb semi-naive SQL", lambda: duck_rdfs(trip)),
                   ("clingo", lambda: clingo_rdfs(trip)),
                   ("nemo", lambda: nemo_rdfs(trip))]
        measure_row(name, systems, cap)
    print(flush=True)
    proofs_and_memory(cap)


def run_generic_tc(s, o, n, record):
    """Chain closure forced onto the generic semi-naive path (a max_derived budget disables the
    transitive plan), with or without proof recording."""
    db = Database(_dict(n))
    db.add_ids("edge", [s, o])
    dt, m = _timed(lambda: closure(tc_program(), db, record_proofs=record, limits=Limits(None, 10**12, None, None, None)))
    return dt, m.stats.derived


#: Runs per side of a proof-recording line (short closures: one slow wall run moves a median of 3).
PROOF_RUNS = 7


def proof_ratio(label: str, run, cap) -> None:
    """Print the cost of proof recording on one workload: ``run(record)`` timed with and without
    proofs, each run in a child forked from this same process state, the two alternating, medians
    of :data:`PROOF_RUNS` — wall time and the closure's CPU time (all threads), with the load.

    (Two readings of the same code once disagreed, 1.39x and 0.91x on linear 100k: medians of 3
    wall times of a 0.1 s closure, where one slow run of the side without proofs — 0.161 s against
    the 0.113 s its row had measured a minute before — turned the ratio.  The CPU medians read
    1.35-1.38x both times.)"""
    load0 = os.getloadavg()[0]
    got = {False: [], True: []}
    for _ in range(PROOF_RUNS):
        for record in (False, True):
            res = capped(lambda: (*run(record)[:2], _CPU[0]), cap)
            if res is None or res[0] == "error":
                print(f"proof recording, {label}: {'timeout' if res is None else res[1]}", flush=True)
                return
            got[record].append(res)
    (w0, c0), (w1, c1) = ((statistics.median(r[0] for r in got[k]), statistics.median(r[2] for r in got[k]))
                          for k in (False, True))
    print(f"proof recording, {label} ({got[True][0][1]} tuples): wall {w1:.3f} s with vs {w0:.3f} s without = "
          f"{w1 / w0:.2f}x; CPU {c1:.3f} vs {c0:.3f} s = {c1 / c0:.2f}x "
          f"(medians of {PROOF_RUNS}, alternating; load {load0:.1f} -> {os.getloadavg()[0]:.1f})", flush=True)


def linear_proofs(cap) -> None:
    """Proof-recording overhead on the linear recursion (the fused small-delta loop)."""
    proof_ratio(f"linear {LINEAR_STEPS // 1000}k", lambda record: run_holokb_linear(LINEAR_STEPS, record), cap)


def proofs_and_memory(cap) -> None:
    """Proof-recording overhead on the same path and bytes per derived tuple."""
    linear_proofs(cap)
    s, o = chain(1000)
    proof_ratio("chain 1,000 (generic semi-naive)", lambda record: run_generic_tc(s, o, 1000, record), cap)
    trip, n_ids = rdfs_triples(100_000)
    proof_ratio("RDFS 100k", lambda record: run_holokb_rdfs(trip, n_ids, record), cap)
    for label, record in (("without proofs", False), ("with proofs", True)):
        _, k, m = run_holokb_rdfs(trip, n_ids, record)
        derived = m.stats.derived
        print(f"memory, RDFS 100k {label}: {m.nbytes() / derived:.1f} B per derived tuple in columns, "
              f"{m.nbytes(indexes=True) / derived:.1f} B with indexes and dedup keys "
              f"({derived} derived; proof tables not counted)", flush=True)


if __name__ == "__main__":
    main()
