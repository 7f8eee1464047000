"""Fixtures for the HTTP face's tests (helpers live in _serving.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from _corpora import ROOT
from _serving import load_db


@pytest.fixture(scope="session")
def example_db(tmp_path_factory) -> Path:
    """The example KB (kb/) loaded at 2026-01-01 (a read-only fixture: copy it before writing)."""
    return load_db(tmp_path_factory.mktemp("example") / "kb.db", [ROOT / "kb"])


@pytest.fixture
def writable_db(example_db, tmp_path) -> Path:
    """A private copy of the example ledger for tests that write."""
    db = tmp_path / "kb.db"
    shutil.copy(example_db, db)
    return db
