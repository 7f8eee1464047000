"""Top-k search against brute force, determinism under insertion order, incremental = rebuilt,
the sketch-filtered search's recall, and the cache file's checks."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from holokb.core import IRI, Literal
from holokb.vsa import FactRecord, Representation, VSAConfig, VectorSpace, load, save
from holokb.vsa.index import VectorIndex
from holokb.vsa.encode import FactEncoder
from holokb.vsa.codebook import Codebook

EX = "http://example.org/"


def _records(n: int, seed: int = 0) -> list[FactRecord]:
    rng = random.Random(seed)
    ents = [IRI(f"{EX}e{i}") for i in range(max(4, n // 3))]
    preds = [IRI(f"{EX}p{i}") for i in range(5)]
    out = {}
    for i in range(n):
        o = rng.choice(ents) if rng.random() < 0.7 else Literal.of(rng.randint(0, 9))
        r = FactRecord(f"{seed:08x}{i:056x}", rng.choice(ents), rng.choice(preds), o, rng.random() < 0.1)
        out[r.key] = r
    return list(out.values())


def _brute(space: VectorSpace, q, k):
    keys = sorted(space.records)
    sims = space.encoder.similarity(space.facts.vectors(keys), getattr(q, "vector", q))
    if space.config.representation is Representation.HRR:
        sims = np.round(sims, 6)
    order = sorted(range(len(keys)), key=lambda i: (-sims[i], keys[i]))[:k]
    return [(keys[i], float(sims[i])) for i in order]


@pytest.mark.parametrize("rep", ["hdc", "hrr"])
@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 60), k=st.integers(1, 12), seed=st.integers(0, 10**6))
def test_exact_search_is_brute_force_with_key_tie_breaks(rep, n, k, seed):
    space = VectorSpace(VSAConfig.default(rep, dim=256))
    recs = _records(n, seed)
    space.add(recs)
    q = space.term_query([recs[0].subject])
    got = [(h.key, h.score) for h in space.similar_facts(q, k)]
    assert got == _brute(space, q, k)


@pytest.mark.parametrize("rep", ["hdc", "hrr"])
def test_results_do_not_depend_on_insertion_order_or_on_the_way_facts_arrived(rep):
    recs = _records(80, 3)
    cfg = VSAConfig.default(rep, dim=512)
    a = VectorSpace(cfg)
    a.add(recs)
    b = VectorSpace(cfg)
    shuffled = recs[:]
    random.Random(1).shuffle(shuffled)
    extra = _records(30, 99)
    for r in shuffled[:40]:
        b.add([r])
    b.add(extra)          # facts that will be retracted again
    b.add(shuffled[40:])
    b.remove([r.key for r in extra if r.key not in {x.key for x in recs}])
    e = recs[0].subject
    assert a.similar_entities(e, 10) == b.similar_entities(e, 10)
    q = a.term_query([recs[1].predicate, recs[2].object])
    assert a.similar_facts(q, 15) == b.similar_facts(q, 15)
    assert np.array_equal(a.entity_vector(e), b.entity_vector(e))


def test_removed_facts_are_never_returned_and_their_entities_update():
    space = VectorSpace(VSAConfig.default("hdc", dim=512))
    recs = _records(40, 5)
    space.add(recs)
    gone = recs[:10]
    space.remove([r.key for r in gone])
    q = space.term_query([gone[0].subject])
    assert not {h.key for h in space.similar_facts(q, 100)} & {r.key for r in gone}
    fresh = VectorSpace(space.config)
    fresh.add(recs[10:])
    for e in sorted({r.subject for r in recs[10:]}, key=lambda t: t.value)[:5]:
        assert np.array_equal(space.entity_vector(e), fresh.entity_vector(e))


def test_structurally_alike_entities_are_nearest():
    space = VectorSpace(VSAConfig.default("hdc"))
    t = lambda x: IRI(EX + x)  # noqa: E731
    space.add([FactRecord("1", t("ide"), t("uses"), t("libindex")), FactRecord("2", t("ide"), t("a"), t("Tool")),
               FactRecord("3", t("cli"), t("uses"), t("libindex")), FactRecord("4", t("cli"), t("a"), t("Tool")),
               FactRecord("5", t("alice"), t("locatedIn"), t("lab")), FactRecord("6", t("bob"), t("locatedIn"), t("lab"))])
    assert space.similar_entities(t("ide"), 1)[0].key == EX + "cli"
    assert space.similar_entities(t("alice"), 1)[0].key == EX + "bob"


@pytest.mark.parametrize("rep", ["hdc", "hrr"])
def test_sketch_filtered_search_finds_the_exact_top_10(rep):
    cfg = VSAConfig.default(rep, dim=1024 if rep == "hrr" else 2048)
    exact = VectorSpace(cfg)
    fast = VectorSpace(VSAConfig(cfg.representation, cfg.dim, cfg.seed, sketch_bits=1024, candidates=300,
                                 exact_below=0))
    recs = _records(3000, 11)
    exact.add(recs)
    fast.add(recs)
    hits = total = 0
    for r in recs[:40]:
        q = exact.entity_facts_query(r.subject).vector  # a bare vector: the sketch kernel
        want = exact.similar_facts(q, 10)
        got = fast.similar_facts(q, 10)
        cutoff = want[-1].score
        hits += sum(1 for h in got if h.score >= cutoff)  # ties at the cut-off count as found
        total += len(want)
        assert all(g in want or g.score <= cutoff for g in got)  # scores are exact, never invented
    assert hits / total >= 0.95


@pytest.mark.parametrize("rep", ["hdc", "hrr"])
@settings(max_examples=12, deadline=None)
@given(n=st.integers(30, 400), k=st.integers(1, 15), seed=st.integers(0, 10**6), pick=st.integers(0, 10**6),
       terms=st.booleans(), cut=st.booleans(), gone=st.integers(0, 20), split=st.integers(0, 400))
def test_structural_search_equals_brute_force(rep, n, k, seed, pick, terms, cut, gone, split):
    """The structural path (candidates from shared components, exact re-rank) against brute force: the
    same hits, scores and order — all k of them, or, with ``above`` = the noise floor, every brute-force
    hit above the floor (those are what callers keep)."""
    cfg = VSAConfig.default(rep, dim=1024)
    space = VectorSpace(VSAConfig(cfg.representation, cfg.dim, cfg.seed, 256, cfg.candidates, exact_below=0))
    recs = _records(n, seed)
    space.add(recs[:split])  # two batches: terms numbered (and their bits kept) in steps
    space.add(recs[split:])
    space.remove([r.key for r in recs[:gone]])
    r = recs[gone + pick % (len(recs) - gone)] if len(recs) > gone else recs[-1]
    q = space.term_query([r.subject, r.predicate]) if terms else space.entity_facts_query(r.subject) \
        if space.has_entity(r.subject) else space.term_query([r.object])
    floor = space.encoder.noise_floor()
    got = [(h.key, h.score) for h in space.similar_facts(q, k, above=floor if cut else None)]
    want = _brute(space, q, k)
    if cut:
        assert [g for g in got if g[1] > floor] == [w for w in want if w[1] > floor]
    else:
        assert got == want


def test_structural_search_is_used_and_matches_brute_force_on_a_larger_index():
    """Above ``exact_below`` with components, the structural path answers (it is not the sketch kernel:
    that one is given 1 candidate here and could not be exact): every hit above the noise floor."""
    cfg = VSAConfig(Representation.HDC, 2048, 0, sketch_bits=64, candidates=1, exact_below=100)
    space = VectorSpace(cfg)
    recs = _records(2000, 7)
    space.add(recs)
    floor = space.encoder.noise_floor()
    above = 0
    for r in recs[:30]:
        for q in (space.term_query([r.subject, r.predicate]), space.entity_facts_query(r.subject)):
            want = [w for w in _brute(space, q, 10) if w[1] > floor]
            assert [(h.key, h.score) for h in space.similar_facts(q, 10, above=floor) if h.score > floor] == want
            above += len(want)
    assert above >= 300  # most of the 600 hits carry signal: the test compares something


def test_index_add_replaces_an_existing_key_and_compacts_after_many_removals():
    enc = FactEncoder(Codebook(VSAConfig.default("hdc", dim=128)))
    idx = VectorIndex(enc, capacity=16)
    rng = np.random.default_rng(0)
    vecs = rng.integers(0, 2**63, size=(3000, 2), dtype=np.uint64)
    keys = [f"k{i:05d}" for i in range(3000)]
    idx.add(keys, vecs)
    idx.add(["k00001"], vecs[2:3])
    assert np.array_equal(idx.vector("k00001"), vecs[2])
    idx.remove(keys[:2500])
    assert len(idx) == 500 and idx.keys() == keys[2500:]
    assert idx.search(vecs[2999], 1)[0].key == "k02999"


# -- the cache file ----------------------------------------------------------------------------------

def test_cache_round_trip_reuses_vectors_and_entities(tmp_path):
    cfg = VSAConfig.default("hrr", dim=256)
    space = VectorSpace(cfg)
    recs = _records(50, 2)
    space.add(recs)
    space.refresh_entities()
    save(space, tmp_path / "x.npz")
    c = load(tmp_path / "x.npz", cfg)
    assert c is not None and len(c.keys) == len(recs) and c.entity_vectors is not None
    again = VectorSpace(cfg)
    assert again.restore(recs, c.keys, c.vectors, c.entity_keys, c.entity_vectors, c.norms) == 0
    assert again.entities_fresh
    e = recs[0].subject
    assert again.similar_entities(e, 5) == space.similar_entities(e, 5)


def test_a_stale_cache_is_diffed_against_the_current_facts(tmp_path):
    cfg = VSAConfig.default("hdc", dim=512)
    old = VectorSpace(cfg)
    recs = _records(60, 4)
    old.add(recs[:50])
    save(old, tmp_path / "x.npz")
    c = load(tmp_path / "x.npz", cfg)
    now = recs[10:]  # ten retracted, ten asserted since the file was written
    space = VectorSpace(cfg)
    assert space.restore(now, c.keys, c.vectors, c.entity_keys, c.entity_vectors) == 10
    fresh = VectorSpace(cfg)
    fresh.add(now)
    q = fresh.term_query([recs[0].subject, recs[12].subject])
    assert space.similar_facts(q, 20) == fresh.similar_facts(q, 20)
    assert set(space.records) == set(fresh.records)
    e = recs[12].subject
    assert np.array_equal(space.entity_vector(e), fresh.entity_vector(e))


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_a_corrupt_cache_file_is_ignored(tmp_path, damage):
    cfg = VSAConfig.default("hdc", dim=512)
    space = VectorSpace(cfg)
    space.add(_records(30, 1))
    path = tmp_path / "x.npz"
    save(space, path)
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        i = data.find(b"vectors.npy")
        data[i + 400] ^= 0xFF  # inside the stored vectors (uncompressed npz)
    elif damage == "garbage":
        data = bytearray(b"not a cache" * 10)
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    assert load(path, cfg) is None


def test_a_cache_of_another_configuration_is_ignored(tmp_path):
    cfg = VSAConfig.default("hdc", dim=512)
    space = VectorSpace(cfg)
    space.add(_records(10, 1))
    save(space, tmp_path / "x.npz")
    assert load(tmp_path / "x.npz", VSAConfig.default("hdc", dim=512, seed=1)) is None
    assert load(tmp_path / "x.npz", VSAConfig.default("hrr", dim=512)) is None
    assert load(tmp_path / "missing.npz", cfg) is None


def test_configuration_errors_are_holokb_errors():
    from holokb.core import InvalidValueError
    for bad in (dict(dim=100), dict(dim=0), dict(dim=128, sketch_bits=256)):
        with pytest.raises(InvalidValueError):
            VSAConfig(Representation.HDC, **bad)
    with pytest.raises(InvalidValueError):
        Representation.parse("dense")


@pytest.mark.parametrize("rep", [Representation.HDC, Representation.HRR])
def test_over_its_budget_the_structural_search_gives_way_to_the_sketch_kernel(rep):
    cfg = VSAConfig(rep, 2048, 0, sketch_bits=64, candidates=50, exact_below=100, structural_budget=0)
    space = VectorSpace(cfg)
    recs = _records(600, 8)
    space.add(recs)
    q = space.term_query([recs[0].subject, recs[0].predicate])
    # the sketch kernel's answer (HRR candidates scored from term ids with components, from vectors without)
    assert space.similar_facts(q, 10) == space.similar_facts(q.vector, 10)
    e = space.entity_facts_query(recs[3].subject)
    assert space.similar_facts(e, 10) == space.similar_facts(e.vector, 10)
    roomy = VectorSpace(VSAConfig(rep, 2048, 0, 64, 50, 100, structural_budget=10_000))
    roomy.add(recs)
    floor = space.encoder.noise_floor()
    exact = [w for w in _brute(roomy, q, 10) if w[1] > floor]
    assert [(h.key, h.score) for h in roomy.similar_facts(q, 10, above=floor) if h.score > floor] == exact


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 40), st.integers(0, 30)), min_size=1, max_size=5), st.integers(0, 2**16))
def test_postings_merged_on_add_equal_postings_sorted_afresh_and_searches_agree(steps, seed):
    """Facts added after the postings exist are merged into them (not re-sorted); removed rows stay in
    them, filtered as dead.  The merged arrays are the ones a fresh sort gives, and the structural search
    over them equals brute force."""
    from holokb.vsa.structure import Postings
    cfg = VSAConfig(Representation.HDC, 1024, 0, sketch_bits=64, candidates=50, exact_below=10, structural_budget=10_000)
    space = VectorSpace(cfg)
    pool = _records(200, seed)
    rng = random.Random(seed)
    at = 0
    for add, drop in steps:
        batch = pool[at:at + add]
        at += add
        space.add(batch)
        space.remove(rng.sample(sorted(space.records), min(drop, len(space.records) // 2)))
        if not space.records:
            continue
        r = space.records[sorted(space.records)[0]]
        q = space.term_query([r.subject, r.predicate])
        floor = space.encoder.noise_floor()
        want = [w for w in _brute(space, q, 10) if w[1] > floor]
        got = [(h.key, h.score) for h in space.similar_facts(q, 10, above=floor) if h.score > floor]
        assert got == want
        idx = space.facts
        if idx._postings is not None:
            fresh = Postings(idx._comp[:len(idx._keys)])
            for role in range(3):
                assert idx._postings._sorted[role].tolist() == fresh._sorted[role].tolist()
                assert idx._postings._order[role].tolist() == fresh._order[role].tolist()
