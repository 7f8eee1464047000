"""The compiled kernels (engine/kernels.py) give what the numpy paths give: key sets (first
occurrences, membership, release, regrowth), distinct, index probes and index merges.

Each test runs the same operations twice, with the kernels forced on for every input size and
with them off, and compares every answer.  Skipped cleanly only when numba is not installed.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from holokb.engine import kernels
from holokb.engine.keyset import KeySet
from holokb.engine.relation import Relation, SortedIndex, first_rows

if kernels.load() is None:
    pytest.skip(f"compiled kernels unavailable: {kernels.load_error!r}", allow_module_level=True)

I64_MAX = 2**63 - 1
# keys >= 0 anywhere in int64, with many collisions (small values), and near the top of the range
key = st.one_of(st.integers(0, I64_MAX), st.integers(0, 50), st.integers(I64_MAX - 50, I64_MAX))
batches = st.lists(st.lists(key, max_size=400), max_size=6)


def both(fn):
    """Run ``fn`` with the kernels on for every size, then off: (jit answer, numpy answer)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(kernels, "MIN_N", 0)
        m.setattr(kernels, "LOAD_AFTER", 0)
        fast = fn()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(kernels, "JIT", False)
        slow = fn()
    return fast, slow


def _keyset_story(seq, released):
    s, out = KeySet(), []
    for batch in seq:
        arr = np.array(batch, dtype=np.int64)
        out.append(s.add_new(arr).tolist())
        out.append(len(s))
    probe = np.array(sorted({k for b in seq for k in b}) + [7, I64_MAX], dtype=np.int64)
    out.append(s.contains(probe).tolist())
    s.discard(np.array(released, dtype=np.int64))
    out.append(s.contains(probe).tolist())
    out.append(s.add_new(np.array(released + released, dtype=np.int64)).tolist())  # claimed again once
    out.append(len(s))
    return out


@settings(max_examples=120, deadline=None)
@given(batches, st.lists(key, max_size=20))
def test_keyset_kernel_matches_the_vector_rounds(seq, released):
    fast, slow = both(lambda: _keyset_story(seq, released))
    assert fast == slow
    ref = set()  # and both match a Python set
    for batch, mask in zip(seq, fast[0::2]):
        want = []
        for k in batch:
            want.append(k not in ref)
            ref.add(k)
        assert mask == want


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 5))
def test_keyset_kernel_through_regrowth_and_released_slots(seed, rounds):
    def story():
        rng = np.random.default_rng(seed)
        pool = rng.integers(0, 2**62, 20_000)
        s, out = KeySet(), []
        for _ in range(rounds):
            batch = pool[rng.integers(0, int(rng.integers(100, 20_000)), int(rng.integers(17, 30_000)))]
            out.append(s.add_new(batch))
            s.discard(batch[:50])
            out.append(s.contains(pool))
        return [a.tolist() for a in out] + [len(s)]
    fast, slow = both(story)
    assert fast == slow


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 2**62), max_size=400), st.integers(0, 60))
def test_first_occurrence_kernel_matches_numpy_unique(raw, shift):
    k = kernels.load()
    key = np.array(raw, dtype=np.int64) >> shift
    got = np.flatnonzero(k.first_mask(key))
    bits = max(int(key.max()).bit_length() if len(key) else 0, 1)
    assert got.tolist() == sorted(first_rows(key, bits).tolist())
    assert got.tolist() == sorted(np.unique(key, return_index=True)[1].tolist())


def _relation(cols):
    r = Relation(len(cols))
    r.append([np.array(c, dtype=np.int64) for c in cols])
    return r


@settings(max_examples=120, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), min_size=2, max_size=2), max_size=300),
       st.lists(st.integers(0, 60), max_size=6), st.lists(st.integers(0, 35), max_size=200))
def test_index_merge_and_probe_kernels_match_numpy(rows, cuts, probes):
    """A sorted index grown in several appends (merges), then probed: same keys, order, pairs."""
    def story():
        r, out = Relation(2), []
        idx = SortedIndex((0, 1), 6)
        at = 0
        for c in sorted(cuts) + [len(rows)]:
            part = rows[at:max(at, c)]
            at = max(at, c)
            if part:
                r.append([np.array([p[0] for p in part]), np.array([p[1] for p in part])])
            idx.extend(r)
            out += [idx.keys.tolist(), idx.order.tolist()]
        pk = np.array(probes, dtype=np.int64) * 61 // 35  # packed keys that hit and miss
        pos, rws = idx.probe(pk)
        out += [pos.tolist(), rws.tolist(), str(rws.dtype), idx.contains(pk).tolist()]
        return out
    fast, slow = both(story)
    assert fast == slow


def test_probe_cap_holds_on_the_kernel_path(monkeypatch):
    from holokb.engine.relation import IntermediateOverflow

    monkeypatch.setattr(kernels, "MIN_N", 0)
    r = _relation([[1] * 50, list(range(50))])
    idx = r.index((0,), 8)
    with pytest.raises(IntermediateOverflow):
        idx.probe(np.array([1, 1, 1], dtype=np.int64), cap=149)
    assert len(idx.probe(np.array([1, 1, 1], dtype=np.int64), cap=150)[0]) == 150


def test_small_inputs_stay_on_numpy(monkeypatch):
    """Below MIN_N nothing asks for the kernels, and numba is loaded only after LOAD_AFTER inputs
    past MIN_N went the numpy way (the test suite, the CLI and small closures never import it)."""
    calls = []
    monkeypatch.setattr(kernels, "load", lambda: calls.append(1))
    monkeypatch.setattr(kernels, "_kernels", None)
    monkeypatch.setattr(kernels, "_work", 0)
    monkeypatch.setattr(kernels, "_loader", None)
    monkeypatch.setattr(kernels, "LOAD_AFTER", 2 * kernels.MIN_N)
    s = KeySet()
    s.add_new(np.arange(kernels.MIN_N - 1, dtype=np.int64))
    s.contains(np.arange(100, dtype=np.int64))
    s.add_new(np.arange(2 * kernels.MIN_N, dtype=np.int64))
    assert calls == []
    s.contains(np.arange(kernels.MIN_N, dtype=np.int64))
    kernels._loader.join(30)  # the load runs beside the caller (see the background tests below)
    assert calls == [1]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**20 - 1), st.integers(0, 7), st.integers(0, 2**20 - 1)), max_size=300),
       st.integers(1, 4), st.booleans())
def test_claim_new_packs_inside_the_kernel_like_pack_widths(rows, parts, readonly):
    """Relation.claim_new hands the key columns to the kernel (packed there, read-only views
    among them): the same marks as packing with pack_widths then the vector key set."""
    def story():
        r, out = Relation(3), []
        r.rekey([np.zeros(0, np.int64)] * 3, (20, 3, 20))
        for part in np.array_split(np.array(rows, dtype=np.int64).reshape(-1, 3), parts):
            cols = [part[:, i].copy() for i in range(3)]
            if readonly:
                cols[1].flags.writeable = False
            out.append(r.claim_new(cols, (20, 3, 20)).tolist())
        return out
    fast, slow = both(story)
    assert fast == slow
    seen, want = set(), []
    for t in rows:
        want.append(t not in seen)
        seen.add(t)
    assert sum(fast, []) == want


def test_load_falls_back_to_no_cache_then_to_numpy(monkeypatch):
    """No writable cache directory: numba's cache locator raises at definition; the kernels are
    compiled per process instead.  numba itself failing: load() answers None (numpy paths)."""
    compiled = kernels.load()  # stands in for a per-process compile (seconds) of the same kernels
    tried = []

    def no_cache(cache):
        tried.append(cache)
        if cache:
            raise RuntimeError("cannot cache function: no locator available")
        return compiled
    monkeypatch.setattr(kernels, "load_error", None)
    monkeypatch.setattr(kernels, "_kernels", None)
    monkeypatch.setattr(kernels, "_build", no_cache)
    assert kernels.load() is compiled and tried == [True, False]

    def broken(cache):
        raise ImportError("numba")
    monkeypatch.setattr(kernels, "_kernels", None)
    monkeypatch.setattr(kernels, "_build", broken)
    assert kernels.load() is None and kernels.get(10**9) is None
    assert isinstance(kernels.load_error, ImportError)


def test_the_kernels_are_built_without_the_prefetch_hint_when_llvm_refuses_it(monkeypatch):
    """An LLVM that rejects ``llvm.prefetch`` costs the hint, not the kernels."""
    compiled = kernels.load()
    calls = []

    def define(cache, prefetching):
        calls.append(prefetching)
        if prefetching:
            raise RuntimeError("Intrinsic has incorrect argument type!")
        return compiled
    monkeypatch.setattr(kernels, "_define", define)
    monkeypatch.setattr(kernels, "_warm", lambda k: k)
    assert kernels._build(True) is compiled and calls == [True, False]


def _slow_loader(monkeypatch, compiled):
    """Stand-in for numba's load: blocks until released, then hands back the compiled kernels."""
    release = __import__("threading").Event()

    def build(cache):
        release.wait(30)
        return compiled
    monkeypatch.setattr(kernels, "_kernels", None)
    monkeypatch.setattr(kernels, "_loader", None)
    monkeypatch.setattr(kernels, "_work", 0)
    monkeypatch.setattr(kernels, "MIN_N", 10)
    monkeypatch.setattr(kernels, "LOAD_AFTER", 100)
    monkeypatch.setattr(kernels, "BACKGROUND", True)
    monkeypatch.setattr(kernels, "_build", build)
    monkeypatch.setattr(kernels, "_warm", lambda k: k)
    return release


def test_past_the_threshold_the_load_runs_beside_the_caller(monkeypatch):
    """Crossing LOAD_AFTER starts the load in a thread; the caller stays on numpy (None) until
    the kernels are ready, so no evaluation pays the load (seconds) inside its deadline."""
    compiled = kernels.load()
    release = _slow_loader(monkeypatch, compiled)
    assert kernels.get(50) is None and kernels._loader is None  # below the threshold: no load
    assert kernels.get(60) is None and kernels._loader is None  # reaches it: counted, numpy
    assert kernels.get(60) is None  # past it: the loader starts, the caller goes on
    loader = kernels._loader
    assert loader is not None and loader.is_alive()
    assert kernels.get(10**6) is None and kernels._loader is loader  # one loader, still numpy
    release.set()
    loader.join(30)
    assert kernels.get(10**6) is compiled
    assert kernels.get(5) is None  # small inputs stay on numpy either way


def test_a_child_forked_during_the_load_keeps_numpy(monkeypatch):
    import multiprocessing as mp
    compiled = kernels.load()
    release = _slow_loader(monkeypatch, compiled)
    assert kernels.get(200) is None and kernels.get(200) is None and kernels._loader.is_alive()
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as pool:
        in_child = pool.apply(_child_state)
    release.set()
    kernels._loader.join(30)
    assert in_child == (False, None, None)
    assert kernels.get(10**6) is compiled


def _child_state():
    return kernels._kernels, kernels._loader, kernels.get(10**6)
