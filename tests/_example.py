"""The shipped example KB (kb/) loaded into a fresh ledger, for tests that need real facts and text."""
from __future__ import annotations

import shutil
from pathlib import Path

from holokb import KnowledgeBase
from holokb.core import parse_instant
from holokb.resources import data_dir

#: System time of the load.
LOADED_AT = parse_instant("2026-01-01")


def example_kb(folder: Path) -> KnowledgeBase:
    """Copy kb/ into ``folder`` and load it into ``folder/kb.db`` at :data:`LOADED_AT` (no shapes)."""
    shutil.copytree(data_dir("kb"), folder / "kb")
    kb = KnowledgeBase.open(folder / "kb.db")
    kb.load([folder / "kb"], at=LOADED_AT)
    return kb
