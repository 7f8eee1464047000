"""Shared fixtures: where the external corpora are, and small helpers."""
from __future__ import annotations

from pathlib import Path

import pytest
from _corpora import ROOT, corpora_root  # noqa: F401  (re-exported for tests)


@pytest.fixture(scope="session")
def corpora() -> Path:
    """The external test corpora; skips the test (with how to get them) when absent."""
    root = corpora_root()
    if root is None:
        pytest.skip("external corpora not found: set HOLOKB_CORPORA or place shared/corpora beside the checkout")
    return root
