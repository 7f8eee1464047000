"""Fixtures for the ledger tests: a fresh ledger file."""
from __future__ import annotations

from pathlib import Path

import pytest

from holokb.ledger import Ledger


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "kb.db"


@pytest.fixture
def ledger(db_path: Path):
    led = Ledger.open(db_path)
    yield led
    led.close()
