"""KnowledgeBase.load: the columnar path (no shapes, plain files) stores exactly what the gated record path does."""
from __future__ import annotations

from pathlib import Path

import pytest

from holokb.core import ShapeViolationError, parse_instant
from holokb.kb import KnowledgeBase
from holokb.resources import data_dir

AT = parse_instant("2026-01-01")


def write(tmp: Path) -> list[Path]:
    a = tmp / "a.ttl"
    a.write_text("@prefix ex: <http://example.org/> .\n"
                 "ex:alice ex:knows ex:bob ; ex:age 41 ; ex:name \"Alice\" .\n_:x ex:likes ex:alice .\n")
    b = tmp / "b.nt"
    b.write_text("<http://example.org/bob> <http://example.org/knows> <http://example.org/alice> .\n"
                 "<http://example.org/alice> <http://example.org/age> \"041\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n")
    return [a, b]


def test_plain_path_and_gated_path_store_the_same_ledger(tmp_path):
    files = write(tmp_path)
    empty_shapes = tmp_path / "shapes.ttl"
    empty_shapes.write_text("@prefix sh: <http://www.w3.org/ns/shacl#> .\n")
    with KnowledgeBase.open(tmp_path / "fast.db") as fast, \
            KnowledgeBase.open(tmp_path / "gated.db", shapes=[empty_shapes]) as gated:
        assert fast.gate is None and gated.gate is not None
        fast.load(files, at=AT)
        gated.load(files, at=AT)
        assert fast.export() == gated.export()
        # "041" and 41 are one xsd:integer value: five distinct facts from six statements
        s1, s2 = fast.stats(), gated.stats()
        assert s1["facts"] == s2["facts"] == 5 and s1["spans"] == s2["spans"] and s1["terms"] == s2["terms"]


def test_a_bad_second_file_rolls_back_the_whole_plain_load(tmp_path):
    files = write(tmp_path)
    bad = tmp_path / "c.nt"
    bad.write_text("<http://example.org/a> <http://example.org/b> .\n")
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        with pytest.raises(SyntaxError):
            kb.load(files + [bad], at=AT)
        assert kb.stats()["facts"] == 0 and kb.stats()["terms"] == 0


def test_shapes_still_gate_loads(tmp_path):
    bad = tmp_path / "p.ttl"
    bad.write_text("@prefix ex: <http://example.org/> .\nex:carol a ex:Person .\n")
    with KnowledgeBase.open(tmp_path / "kb.db", shapes=[data_dir("shapes")]) as kb:
        with pytest.raises(ShapeViolationError):
            kb.load([bad], at=AT)
        assert kb.stats()["facts"] == 0
