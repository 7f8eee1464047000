"""Running the holokb command line as a user does: a fresh interpreter with this tree's sources first."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def holokb(*args: str, cwd: Path, ok: int = 0, timeout: float = 600) -> subprocess.CompletedProcess:
    """``python -m holokb ARGS`` in ``cwd``; asserts the exit code is ``ok``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-m", "holokb", *args], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=timeout)
    assert p.returncode == ok, (p.returncode, p.stderr)
    return p
