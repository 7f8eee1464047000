"""Where the external corpora are (importable as ``_corpora`` from any test module)."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def corpora_root() -> Path | None:
    """``$HOLOKB_CORPORA``, else ``../shared/corpora`` beside the checkout; None when absent."""
    env = os.environ.get("HOLOKB_CORPORA")
    for cand in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "corpora"]:
        if cand.is_dir():
            return cand
    return None
