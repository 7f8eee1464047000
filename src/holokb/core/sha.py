"""SHA-256 for the few small digests a warm ``holokb query`` makes (its snapshot's fingerprint,
the rule-file digest, the ledger's content marker) without importing :mod:`hashlib`: hashlib
loads ``_hashlib``, whose OpenSSL start-up is ~3.5 ms CPU of a ~120 ms command, while CPython's
own SHA-256 module loads in ~0.8 ms.  Same digests (SHA-256 is SHA-256; tests/core/test_sha.py);
per call as fast on short inputs (560 vs 574 ns for 60 bytes), slower on long ones (20 kB: 72 vs
13 us), so bulk hashing keeps using hashlib.  Falls back to hashlib where CPython's module is absent.
"""
from __future__ import annotations

try:
    from _sha2 import sha256  # CPython 3.12+
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[no-redef]  # CPython 3.11
    except ImportError:  # another implementation
        from hashlib import sha256  # type: ignore[no-redef]

__all__ = ["sha256"]
