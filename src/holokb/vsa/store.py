"""The vector index as a cache file beside the ledger (design.md §4: rebuildable, never trusted blindly).

One ``.npz`` file per configuration holds the fact keys and vectors, and the entity keys and vectors
when they were up to date.  ``meta`` inside it records the format, the configuration and a SHA-256 of
every array; a file that fails to open, has another format or configuration, or whose arrays do not
match their checksum is ignored (the caller rebuilds).  Even a sound file is only a hint: loading
diffs its keys against the facts visible now (:meth:`VectorSpace.restore`).
Files are written to a temporary name and renamed, so a reader never sees half a file.
"""
from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .config import Representation, VSAConfig
from .space import VectorSpace

FORMAT = "holokb-vsa-2"  # 2: HRR facts carry their pre-normalisation lengths


@dataclass(frozen=True, slots=True)
class CachedVectors:
    """What a sound cache file holds."""

    keys: tuple[str, ...]
    vectors: np.ndarray
    entity_keys: tuple[str, ...]
    entity_vectors: np.ndarray | None
    norms: np.ndarray | None = None


def _pack_keys(keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
    data = [k.encode("utf-8") for k in keys]
    offsets = np.zeros(len(data) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in data], out=offsets[1:])
    return offsets, np.frombuffer(b"".join(data), dtype=np.uint8)


def _unpack_keys(offsets: np.ndarray, blob: np.ndarray) -> tuple[str, ...]:
    raw = blob.tobytes()
    return tuple(raw[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(len(offsets) - 1))


def _digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(name.encode() + str(a.dtype).encode() + repr(a.shape).encode())
        h.update(memoryview(a).cast("B"))
    return h.hexdigest()


def _config_json(config: VSAConfig) -> dict:
    return {"representation": config.representation.value, "dim": config.dim, "seed": config.seed}


def save(space: VectorSpace, path: str | Path) -> None:
    """Write ``space`` to ``path`` (atomically); entity vectors only when they are up to date."""
    keys, vecs = space.facts.arrays()
    arrays: dict[str, np.ndarray] = {}
    arrays["key_offsets"], arrays["key_blob"] = _pack_keys(keys)
    arrays["vectors"] = vecs
    if space.config.representation is Representation.HRR:
        arrays["norms"] = space.facts.norms(keys)
    if space.entities_fresh:
        ekeys, evecs = space.entities.arrays()
        arrays["entity_offsets"], arrays["entity_blob"] = _pack_keys(ekeys)
        arrays["entity_vectors"] = evecs
    meta = {"format": FORMAT, "config": _config_json(space.config), "sha256": _digest(arrays)}
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez(f, meta=np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8), **arrays)
    os.replace(tmp, target)


def load(path: str | Path, config: VSAConfig) -> CachedVectors | None:
    """The cached vectors in ``path`` for ``config``, or None when the file is missing or unsound."""
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(z["meta"].tobytes().decode("utf-8"))
            arrays = {n: z[n] for n in z.files if n != "meta"}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError):
        return None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("config") != _config_json(config):
        return None
    if meta.get("sha256") != _digest(arrays):
        return None
    try:
        keys = _unpack_keys(arrays["key_offsets"], arrays["key_blob"])
        vecs = arrays["vectors"]
        hdc = config.representation is Representation.HDC
        width, dtype = (config.dim // 64, np.uint64) if hdc else (config.dim, np.float32)
        if vecs.dtype != dtype or vecs.shape != (len(keys), width):
            return None
        norms = None
        if not hdc:
            norms = arrays["norms"]
            if norms.dtype != np.float32 or norms.shape != (len(keys),):
                return None
        ekeys: tuple[str, ...] = ()
        evecs = None
        if "entity_vectors" in arrays:
            ekeys = _unpack_keys(arrays["entity_offsets"], arrays["entity_blob"])
            evecs = arrays["entity_vectors"]
            if evecs.dtype != dtype or evecs.shape != (len(ekeys), width):
                return None
    except (KeyError, ValueError, IndexError, UnicodeDecodeError):
        return None
    return CachedVectors(keys, vecs, ekeys, evecs, norms)
