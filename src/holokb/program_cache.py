"""Parsed and checked rule programs kept in a per-user cache folder, so that ``holokb derive`` with the
same rule files does not parse them again (OWL 2 RL: ~0.15 s of parsing and checking, plus importing
lark, against ~5 ms to read the entry back).  The folder is ``$HOLOKB_CACHE_DIR``, else
``$XDG_CACHE_HOME/holokb``, else ``~/.cache/holokb`` (subfolder ``programs``); an entry depends on
the rule files only, not on a ledger, so a fresh ledger with the same rules hits too.

An entry is keyed by content, never by a file's time stamp: the SHA-256 of the entry format, the
Python version, the bytes of the code that turns rule text into a program (the syntax, analysis
and core packages, bridge.py, reasoning.py, this module, the grammar) and, per rule file (folders
expanded by :func:`holokb.core.inputs.rule_files`), its path as given, its resolved path and its
bytes; for several files also the working folder (their program names it).  An edited rule file or
changed parser code is a new key, so a miss: the files are parsed as before.  Files that
``@include`` others are not cached (the included files are known only by parsing).  Like every
cache here, an entry is never the only copy of anything: missing, unreadable, damaged or refused ⇒
parse; a folder that cannot be written ⇒ no cache.  At most :data:`MAX_ENTRIES` entries are kept
(the least recently written go first).

Entries are pickles read with an unpickler that only builds classes of holokb's own modules and a
few plain builtins, so a planted file cannot run code (:class:`_ProgramUnpickler`).
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
#: Entries kept in the cache folder; writing one more removes the oldest.
MAX_ENTRIES = 64
_PKG = Path(__file__).resolve().parent
_CODE_DIRS = ("syntax", "analysis", "core")
_CODE_FILES = ("bridge.py", "reasoning.py", "program_cache.py")
#: The builtins an entry may name (containers and numbers the program's dataclasses hold).
_BUILTINS = frozenset({"frozenset", "set", "tuple", "list", "dict", "complex", "bytes", "bytearray", "slice"})
_code_digest: bytes | None = None
#: Modules whose dataclasses and enums an entry may build.
_VALUE_MODULES = ("holokb.core.", "holokb.syntax.", "holokb.analysis.")


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
    if len(files) > 1:  # several files are one synthetic module named after the working folder
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


def text_key(text: str, file: str) -> str:
    """The key of the program parsed from rule ``text`` under the file name ``file`` (a rule set the
    ledger keeps: ``holokb query`` with no rule files closes under the last derive's)."""
    h = hashlib.sha256(f"holokb-program-text\0{FORMAT}\0{sys.version}\0".encode())
    h.update(_code())
    for part in (os.fsencode(file), text.encode("utf-8", "surrogatepass")):
        h.update(len(part).to_bytes(8, "big") + part)
    return h.hexdigest()


def cache_dir() -> Path:
    """The folder entries live in (see the module doc)."""
    env = os.environ.get("HOLOKB_CACHE_DIR")
    if env:
        return Path(env) / "programs"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "holokb" / "programs"


def _entry(folder: Path, key: str) -> Path:
    return folder / f"program-{key}.pickle"


class _ProgramUnpickler(pickle.Unpickler):
    """Builds only the value classes a program is made of (dataclasses and enums of holokb's core,
    syntax and analysis packages) and plain builtins; any other global refuses the entry."""

    def find_class(self, module: str, name: str):  # noqa: ANN201 (pickle's protocol)
        if module == "builtins" and name in _BUILTINS:
            return super().find_class(module, name)
        if module == "decimal" and name == "Decimal":
            return super().find_class(module, name)
        if module.startswith(_VALUE_MODULES) and "." not in name:
            import dataclasses
            import enum

            found = super().find_class(module, name)
            if isinstance(found, type) and (dataclasses.is_dataclass(found) or issubclass(found, enum.Enum)):
                return found
        raise pickle.UnpicklingError(f"global {module}.{name} is not allowed in a program entry")


def lookup(folder: Path, key: str) -> "Program | None":
    """The program stored under ``key`` in ``folder``, or None (missing, damaged or refused)."""
    from .analysis import Program

    try:
        data = _entry(folder, key).read_bytes()
        found = _ProgramUnpickler(io.BytesIO(data)).load()
    except Exception:  # noqa: BLE001 — any failure to read a cache entry means: parse
        return None
    if not isinstance(found, tuple) or len(found) != 2 or found[0] != key or not isinstance(found[1], Program):
        return None
    return found[1]


def remember(folder: Path, key: str, program: "Program") -> None:
    """Store ``program`` under ``key`` (written whole or not at all; a refusal of the disk is ignored),
    then drop the oldest entries past :data:`MAX_ENTRIES`."""
    target = _entry(folder, key)
    try:
        data = pickle.dumps((key, program), protocol=pickle.HIGHEST_PROTOCOL)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
        entries = sorted(folder.glob("program-*.pickle"), key=lambda p: (p.stat().st_mtime_ns, p.name))
        for old in entries[:max(0, len(entries) - MAX_ENTRIES)]:
            old.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        pass


def cached_text_program(text: str, file: str, load: Callable[[str, str], "Program"], *,
                        folder: Path | None = None) -> "Program":
    """``load(text, file)``, or the program an earlier call stored for the same text and file name."""
    return _through(text_key(text, file), lambda: load(text, file), folder)


#: The file name a stored rule set is parsed under (its diagnostics and origins name it).
STORED_RULE_SET = "<stored rule set>"


def stored_program(text: str) -> "Program":
    """The program of a rule set the ledger keeps (the canonical text ``holokb derive`` stored), from
    the cache when an earlier process parsed the same text (OWL 2 RL: ~0.5 s of parsing, lark's
    grammar included, against a few ms to read the entry)."""

    def parse(text: str, file: str) -> "Program":
        from .analysis import analyze
        from .syntax import parse_rules  # lark loads here, not when a cached program is used

        return analyze(parse_rules(text, file=file))

    return cached_text_program(text, STORED_RULE_SET, parse)


def cached_program(paths: list, load: Callable[[list], "Program"], *, folder: Path | None = None) -> "Program":
    """``load(paths)``, or the program an earlier call stored for the same rule files in ``folder``
    (default :func:`cache_dir`).  Failures of ``load`` propagate and are not cached."""
    key = program_key(paths)
    if key is None:
        return load(paths)
    return _through(key, lambda: load(paths), folder)


def _through(key: str, make: Callable[[], "Program"], folder: Path | None) -> "Program":
    """The program stored under ``key``, else ``make()`` stored under it (a failure is not)."""
    folder = cache_dir() if folder is None else folder
    hit = lookup(folder, key)
    if hit is not None:
        return hit
    program = make()
    remember(folder, key, program)
    return program
