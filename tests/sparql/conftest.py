"""Fixtures for the SPARQL tests (data and constants in _sparql_kb.py)."""
from __future__ import annotations

import pytest
from _sparql_kb import DATA, RULES, T1, T2, ex

from holokb.analysis import analyze
from holokb.core import Fact
from holokb.kb import KnowledgeBase
from holokb.sparql import SnapshotCache
from holokb.syntax import parse_rules


@pytest.fixture()
def kb(tmp_path):
    data = tmp_path / "data.trig"
    data.write_text(DATA, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb.db") as k:
        k.load([data], at=T1)
        k.retract(Fact(ex("bob"), ex("uses"), ex("shell")), at=T2)
        yield k


@pytest.fixture()
def program():
    return analyze(parse_rules(RULES))


@pytest.fixture()
def cache():
    return SnapshotCache(size=4)
