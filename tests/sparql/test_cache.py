"""The snapshot cache: warm latest snapshot on disk beside the ledger, rebuilt when stale."""
from __future__ import annotations

import json

from holokb.core import AsOf, Fact, Interval
from holokb.sparql import SnapshotCache, run_query

from _sparql_kb import EX, T1, T2, ex

Q = f"SELECT ?x WHERE {{ ?x <{EX}uses> ?y }}"


def names(r):
    return [row[0].value for row in r.rows]


def folders(tmp_path, kind="snapshot"):
    return sorted(p.name for p in (tmp_path / "kb.db.sparql").glob(f"{kind}-*"))


def test_second_query_reuses_the_warm_snapshot(kb, cache, tmp_path):
    first = run_query(kb, Q, as_of=AsOf.latest(), cache=cache)
    second = run_query(kb, Q, as_of=AsOf.latest(), cache=cache)
    assert first.snapshot_built and not second.snapshot_built
    assert first.rows == second.rows
    assert len(folders(tmp_path)) == 1


def test_a_write_makes_the_snapshot_stale_and_it_is_rebuilt(kb, cache, tmp_path):
    run_query(kb, Q, as_of=AsOf.latest(), cache=cache)
    old = folders(tmp_path)
    kb.assert_fact(Fact(ex("dave"), ex("uses"), ex("shell")), at=T2 + 5)
    r = run_query(kb, Q, as_of=AsOf.latest(), cache=cache)
    assert r.snapshot_built and EX + "dave" in names(r)
    assert len(folders(tmp_path)) == 1 and folders(tmp_path) != old  # the stale directory is pruned
    kb.retract(Fact(ex("dave"), ex("uses"), ex("shell")), at=T2 + 10)
    r = run_query(kb, Q, as_of=AsOf.latest(), cache=cache)
    assert r.snapshot_built and EX + "dave" not in names(r)


def test_a_new_process_opens_the_disk_cache_without_rebuilding(kb, cache):
    built = run_query(kb, Q, as_of=AsOf.latest(), cache=cache)
    fresh = SnapshotCache()  # what another process sees: nothing in memory
    r = run_query(kb, Q, as_of=AsOf.latest(), cache=fresh)
    assert built.snapshot_built and not r.snapshot_built and r.rows == built.rows


def test_a_disk_cache_with_a_wrong_fingerprint_is_not_trusted(kb, cache, tmp_path):
    run_query(kb, Q, as_of=AsOf.latest(), cache=cache)
    meta = tmp_path / "kb.db.sparql" / folders(tmp_path)[0] / "meta.json"
    doc = json.loads(meta.read_text())
    doc["fingerprint"] = "0" * 64
    meta.write_text(json.dumps(doc))
    r = run_query(kb, Q, as_of=AsOf.latest(), cache=SnapshotCache())
    assert r.snapshot_built and names(r) == [EX + "alice", EX + "carol"]
    assert len(folders(tmp_path)) == 1  # the untrusted copy was replaced, not reused
    meta = tmp_path / "kb.db.sparql" / folders(tmp_path)[0] / "meta.json"
    meta.unlink()  # a half-built directory (killed before meta.json was written)
    r = run_query(kb, Q, as_of=AsOf.latest(), cache=SnapshotCache())
    assert r.snapshot_built and names(r) == [EX + "alice", EX + "carol"]


def test_changing_the_rules_rebuilds(kb, cache, program):
    a = run_query(kb, Q, as_of=AsOf.latest(), cache=cache)
    b = run_query(kb, Q, as_of=AsOf.latest(), cache=cache, rules_program=program)
    c = run_query(kb, Q, as_of=AsOf.latest(), cache=cache, rules_program=program)
    assert a.snapshot_built and b.snapshot_built and not c.snapshot_built


def test_past_snapshots_live_in_memory_only_and_the_lru_is_bounded(kb, tmp_path):
    cache = SnapshotCache(size=2)
    times = [AsOf(T1, T1), AsOf(T2, T2), AsOf(T2 + 1, T2 + 1)]
    for t in times:
        assert run_query(kb, Q, as_of=t, cache=cache).snapshot_built
    assert not (tmp_path / "kb.db.sparql").exists()
    assert not run_query(kb, Q, as_of=times[2], cache=cache).snapshot_built
    assert run_query(kb, Q, as_of=times[0], cache=cache).snapshot_built  # evicted (size 2)


def test_the_ledger_view_is_cached_and_invalidated_too(kb, cache, tmp_path):
    q = "SELECT (COUNT(*) AS ?n) WHERE { ?s a <https://w3id.org/holokb/Span> }"
    a = run_query(kb, q, as_of=AsOf.latest(), cache=cache, ledger_view=True)
    b = run_query(kb, q, as_of=AsOf.latest(), cache=SnapshotCache(), ledger_view=True)
    assert a.snapshot_built and not b.snapshot_built and len(folders(tmp_path, "ledger")) == 1
    kb.assert_fact(Fact(ex("erin"), ex("uses"), ex("shell")), at=T2 + 5, valid=Interval(T1, None))
    c = run_query(kb, q, as_of=AsOf.latest(), cache=cache, ledger_view=True)
    assert c.snapshot_built and int(c.rows[0][0].value) == int(a.rows[0][0].value) + 1


def test_each_rule_set_keeps_its_own_warm_copy(kb, cache, program, tmp_path):
    run_query(kb, Q, as_of=AsOf.latest(), cache=cache)
    run_query(kb, Q, as_of=AsOf.latest(), cache=cache, rules_program=program)
    assert len(folders(tmp_path)) == 2
    fresh = SnapshotCache()
    assert not run_query(kb, Q, as_of=AsOf.latest(), cache=fresh).snapshot_built
    assert not run_query(kb, Q, as_of=AsOf.latest(), cache=fresh, rules_program=program).snapshot_built


def test_another_process_reads_the_warm_copy_and_prints_the_same_bytes(kb, cache, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    import holokb

    mine = run_query(kb, Q, as_of=AsOf.latest(), cache=cache)  # this process keeps the store open
    code = (
        "import sys; from holokb.kb import KnowledgeBase; from holokb.core import AsOf; "
        "from holokb.sparql import run_query\n"
        f"with KnowledgeBase.open({str(tmp_path / 'kb.db')!r}) as kb:\n"
        f"    r = run_query(kb, {Q!r}, as_of=AsOf.latest())\n"
        "    sys.stdout.write(str(r.snapshot_built) + '\\n' + r.serialize('json'))\n"
    )
    src = str(Path(holokb.__file__).resolve().parent.parent)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    built, _, body = out.stdout.partition("\n")
    assert built == "False" and body == mine.serialize("json")


def test_a_disk_copy_asked_for_again_is_promoted_to_memory_with_the_same_answers(kb, cache, tmp_path):
    built = run_query(kb, Q, as_of=AsOf.latest(), cache=cache)  # builds the disk copy
    fresh = SnapshotCache()  # another process: opens the disk copy (RocksDB), no copy in memory yet
    first = run_query(kb, Q, as_of=AsOf.latest(), cache=fresh)
    (snap,) = fresh._lru.values()
    assert not snap.in_memory and snap.location is not None
    second = run_query(kb, Q, as_of=AsOf.latest(), cache=fresh)
    (snap,) = fresh._lru.values()
    assert snap.in_memory and not second.snapshot_built
    assert built.rows == first.rows == second.rows
    assert len(second.rows) == 2
    kb.assert_fact(Fact(ex("dave"), ex("uses"), ex("shell")), at=T2 + 5)  # the promoted copy is keyed too
    r = run_query(kb, Q, as_of=AsOf.latest(), cache=fresh)
    assert r.snapshot_built and EX + "dave" in names(r)
    stay = SnapshotCache(promote=False)
    run_query(kb, Q, as_of=AsOf.latest(), cache=stay)
    run_query(kb, Q, as_of=AsOf.latest(), cache=stay)
    assert not next(iter(stay._lru.values())).in_memory
