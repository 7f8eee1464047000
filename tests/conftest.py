"""Shared fixtures: where the external corpora are, and small helpers."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def corpora_root() -> Path | None:
    """``$HOLOKB_CORPORA``, else ``../shared/corpora`` beside the checkout; None when absent."""
    env = os.environ.get("HOLOKB_CORPORA")
    for cand in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "corpora"]:
        if cand.is_dir():
            return cand
    return None


@pytest.fixture(scope="session")
def corpora() -> Path:
    """The external test corpora; skips the test (with how to get them) when absent."""
    root = corpora_root()
    if root is None:
        pytest.skip("external corpora not found: set HOLOKB_CORPORA or place shared/corpora beside the checkout")
    return root
