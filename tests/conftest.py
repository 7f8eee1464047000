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
    """The tests marked ``slow`` (the full-corpus runs) run first, in their collected order, so no long
    run starts last.  The README's ``-n auto --dist worksteal`` gives each worker half of this order and
    lets an idle worker take the back half of another's queue: the short tests move, the long ones stay
    where they started.  (Plain ``--dist load`` sends each worker a consecutive eighth first: every slow
    test landed on one worker, which ran them all in sequence while the other went idle for 2-4 min.)"""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
