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


@pytest.fixture(autouse=True, scope="session")
def _program_cache_in_tmp(tmp_path_factory):
    """The rule-program cache (holokb.program_cache) of every command a test runs goes to a temporary
    folder, not the user's ~/.cache (subprocesses inherit the variable)."""
    import os

    old = os.environ.get("HOLOKB_CACHE_DIR")
    os.environ["HOLOKB_CACHE_DIR"] = str(tmp_path_factory.mktemp("holokb-cache"))
    yield
    if old is None:
        os.environ.pop("HOLOKB_CACHE_DIR", None)
    else:
        os.environ["HOLOKB_CACHE_DIR"] = old


def pytest_collection_modifyitems(config, items):
    """The tests marked ``slow`` (the full-corpus runs) run first, in their collected order.  Under
    pytest-xdist (the README's ``-n auto``) the long runs then start at once on every worker and the short
    tests fill in beside them, instead of one long run finishing alone at the end of the suite."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
