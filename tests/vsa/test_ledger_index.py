"""The ledger's vector index: incremental on assert and retract, cached beside the file, and a stale
or corrupt cache file costs a rebuild, never a wrong neighbour."""
from __future__ import annotations

import pytest

from holokb import AsOf
from holokb.core import IRI, Fact, parse_instant
from holokb.vectors import IndexSource, VectorCache, cache_path
from holokb.vsa import UnknownEntityError, VSAConfig

from _example import example_kb

EX = "http://example.org/"
AT = parse_instant("2026-01-01")
CFG = VSAConfig.default("hdc", dim=2048)


@pytest.fixture()
def kb(tmp_path):
    k = example_kb(tmp_path)
    yield k
    k.close()


def _neighbours(cache, kb, entity="AchillesIDE"):
    space, info = cache.space(kb.ledger, CFG, AsOf.latest())
    return space.similar_entities(IRI(EX + entity), 5), info


def test_asserts_and_retractions_update_the_index_incrementally(kb):
    cache = VectorCache(disk=False)
    _, info = _neighbours(cache, kb)
    assert info.source is IndexSource.BUILT
    _, info = _neighbours(cache, kb)
    assert info.source is IndexSource.MEMORY
    f = Fact(IRI(EX + "NewTool"), IRI(EX + "uses"), IRI(EX + "libsandbox"))
    kb.assert_fact(f, at=AT + 10)
    near, info = _neighbours(cache, kb, "NewTool")
    assert info.source is IndexSource.UPDATED and (info.encoded, info.removed) == (1, 0)
    kb.retract(f, at=AT + 20)
    space, info = cache.space(kb.ledger, CFG, AsOf.latest())
    assert info.source is IndexSource.UPDATED and (info.encoded, info.removed) == (0, 1)
    assert not space.has_entity(IRI(EX + "NewTool"))
    fresh, _ = _neighbours(VectorCache(disk=False), kb)
    assert _neighbours(cache, kb)[0] == fresh


def test_the_cache_file_is_used_checked_and_rebuilt_when_damaged(kb):
    first, info = _neighbours(VectorCache(), kb)
    path = cache_path(kb.ledger, CFG)
    assert info.source is IndexSource.BUILT and path.exists()
    again, info = _neighbours(VectorCache(), kb)
    assert info.source is IndexSource.DISK and info.encoded == 0 and again == first
    path.write_bytes(path.read_bytes()[:200])  # torn file
    again, info = _neighbours(VectorCache(), kb)
    assert info.source is IndexSource.BUILT and again == first


def test_a_stale_cache_file_is_brought_up_to_date_from_the_ledger(kb):
    _neighbours(VectorCache(), kb)
    kb.assert_fact(Fact(IRI(EX + "NewTool"), IRI(EX + "uses"), IRI(EX + "libindex")), at=AT + 10)
    near, info = _neighbours(VectorCache(), kb, "NewTool")
    assert info.source is IndexSource.DISK and info.encoded == 1
    assert near == _neighbours(VectorCache(disk=False), kb, "NewTool")[0]


def test_similar_to_an_unknown_entity_is_a_clear_error(kb):
    with pytest.raises(UnknownEntityError):
        kb.similar(IRI(EX + "Nobody"), as_of=AsOf.latest())
    with pytest.raises(UnknownEntityError):  # not yet recorded at this system time
        kb.similar(IRI(EX + "AchillesIDE"), as_of=AsOf.at(AT - 1))


def test_similar_is_deterministic_and_finds_the_other_tool(kb):
    a = kb.similar(IRI(EX + "AchillesIDE"), as_of=AsOf.latest(), k=3)
    b = kb.similar(IRI(EX + "AchillesIDE"), as_of=AsOf.latest(), k=3)
    assert a.entities == b.entities and a.entities[0].entity == IRI(EX + "HermesCLI")
    f = kb.similar(IRI(EX + "AchillesIDE"), as_of=AsOf.latest(), k=2, facts=True,
                   config=VSAConfig.default("hrr", dim=512))
    assert {x.fact.subject for x in f.facts} == {IRI(EX + "AchillesIDE")}
