"""Parsed and checked rule programs kept beside a ledger, so that ``holokb derive`` with the same rule
files does not parse them again (OWL 2 RL: ~0.15 s of parsing and checking, plus importing lark,
against ~5 ms to read the entry back).

An entry is keyed by content, never by a file's time stamp: the SHA-256 of the entry format, the
Python version, the bytes of the code that turns rule text into a program (the syntax, analysis
and core packages, bridge.py, reasoning.py, the grammar), the working folder and, per rule file
(folders expanded by :func:`holokb.core.inputs.rule_files`), its path as given, its resolved path
and its bytes.  An edited rule file or changed parser code is a new key, so a miss: the files are
parsed as before.  Files that ``@include`` others are not cached (the included files are known only
by parsing).  Like every cache here, an entry is never the only copy of anything: missing,
unreadable, damaged or refused ⇒ parse.

Entries are pickles under ``<ledger>.programs/``, read with an unpickler that only builds classes of
holokb's own modules and a few plain builtins, so a planted file cannot run code
(:class:`_ProgramUnpickler`).
"""
from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:
    from .analysis import Program

FORMAT = 1
_PKG = Path(__file__).resolve().parent
_CODE_DIRS = ("syntax", "analysis", "core")
_CODE_FILES = ("bridge.py", "reasoning.py", "program_cache.py")
#: The builtins an entry may name (containers and numbers the program's dataclasses hold).
_BUILTINS = frozenset({"frozenset", "set", "tuple", "list", "dict", "complex", "bytes", "bytearray", "slice"})
_code_digest: bytes | None = None


def _code() -> bytes:
    """SHA-256 of the code that turns rule text into a program (read once per process)."""
    global _code_digest
    if _code_digest is None:
        from .resources import data_dir

        files = [p for d in _CODE_DIRS for p in sorted((_PKG / d).glob("*.py"))]
        files += [_PKG / f for f in _CODE_FILES] + sorted(data_dir("grammar").glob("*"))
        h = hashlib.sha256()
        for p in files:
            data = p.read_bytes()
            name = p.relative_to(p.parents[1]).as_posix().encode()
            h.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
        _code_digest = h.digest()
    return _code_digest


def program_key(paths: Iterable[str | os.PathLike[str]]) -> str | None:
    """The key of the program the rule files named make, or None when it cannot be cached: nothing
    named, a path missing or unreadable, or a file that includes others."""
    from .core.inputs import InputError, rule_files

    try:
        files = rule_files(paths)
        code = _code()
    except (InputError, OSError):
        return None  # the parser reports it
    if not files:
        return None
    h = hashlib.sha256(f"holokb-program\0{FORMAT}\0{sys.version}\0".encode())
    h.update(code)
    cwd = os.fsencode(os.getcwd())
    h.update(len(cwd).to_bytes(8, "big") + cwd)
    for f in files:
        try:
            data = f.read_bytes()
            name = os.fsencode(f"{f}\0{f.resolve()}")
        except (OSError, RuntimeError):
            return None
        if b"@include" in data:
            return None
        h.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def _entry(ledger_path: str, key: str) -> Path:
    return Path(ledger_path + ".programs") / f"program-{key}.pickle"


class _ProgramUnpickler(pickle.Unpickler):
    """Builds only holokb classes and plain builtins; any other global refuses the entry."""

    def find_class(self, module: str, name: str):  # noqa: ANN201 (pickle's protocol)
        if module == "builtins" and name in _BUILTINS:
            return super().find_class(module, name)
        if module == "decimal" and name == "Decimal":
            return super().find_class(module, name)
        if module.startswith("holokb.") and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        raise pickle.UnpicklingError(f"global {module}.{name} is not allowed in a program entry")


def lookup(ledger_path: str, key: str) -> "Program | None":
    """The program stored under ``key`` beside the ledger, or None (missing, damaged or refused)."""
    from .analysis import Program

    try:
        data = _entry(ledger_path, key).read_bytes()
        found = _ProgramUnpickler(io.BytesIO(data)).load()
    except Exception:  # noqa: BLE001 — any failure to read a cache entry means: parse
        return None
    if not isinstance(found, tuple) or len(found) != 2 or found[0] != key or not isinstance(found[1], Program):
        return None
    return found[1]


def remember(ledger_path: str, key: str, program: "Program") -> None:
    """Store ``program`` under ``key`` (written whole or not at all; a refusal of the disk is ignored)."""
    target = _entry(ledger_path, key)
    try:
        data = pickle.dumps((key, program), protocol=pickle.HIGHEST_PROTOCOL)
        target.parent.mkdir(exist_ok=True)  # beside the ledger only: never a missing parent folder
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        pass


def cached_program(ledger_path: str | None, paths: list, load: Callable[[list], "Program"]) -> "Program":
    """``load(paths)``, or the program an earlier call stored for the same rule files beside the ledger
    at ``ledger_path`` (``None`` or ``:memory:``: no cache).  Failures of ``load`` propagate, uncached."""
    if not ledger_path or ledger_path == ":memory:":
        return load(paths)
    key = program_key(paths)
    if key is None:
        return load(paths)
    hit = lookup(ledger_path, key)
    if hit is not None:
        return hit
    program = load(paths)
    remember(ledger_path, key, program)
    return program
