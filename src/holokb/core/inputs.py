"""Reading input files with coded diagnostics instead of Python exceptions.

Every command that reads a file the user named goes through these helpers, so a missing file, a
folder, a permission problem, bytes that are not UTF-8 or JSON that does not parse each become one
:class:`InputError` with a stable code, the file (and line:column where there is one) and a hint.
A UTF-8 byte-order mark at the start of a text file is dropped: editors on some systems write one,
and no holokb format gives it a meaning.

>>> import os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "q.rq")
>>> _ = open(p, "wb").write(b"\\xef\\xbb\\xbfSELECT * {}")
>>> read_text(p)
'SELECT * {}'
"""
from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

from .errors import Diagnostic, DiagnosticError, Location

#: A named file does not exist.
NOT_FOUND = "HK601"
#: A folder was given where a file is read.
IS_FOLDER = "HK602"
#: The file exists but may not be read.
PERMISSION = "HK603"
#: The bytes are not UTF-8.
NOT_UTF8 = "HK604"
#: The file name's extension says nothing holokb can read.
UNKNOWN_EXTENSION = "HK605"
#: Something in the file is larger than a parser can hold.
TOO_LARGE = "HK606"
#: Any other operating-system failure while reading.
UNREADABLE = "HK607"
#: The file is not valid JSON.
NOT_JSON = "HK608"
#: The JSON parses but does not have the shape the command reads.
BAD_RECORD = "HK609"

BOM = "\ufeff"


class InputError(DiagnosticError):
    """An input file could not be read; ``diagnostics`` say which, where and what to do."""


def input_error(code: str, file: str, message: str, *, line: int = 1, column: int = 1,
                hint: str | None = None, source_line: str | None = None) -> InputError:
    """One coded :class:`InputError` located at ``file:line:column``."""
    d = Diagnostic(code, message, Location(file, line, column), hint=hint, source_line=source_line)
    return InputError(f"{file}:{line}:{column}: {message}", (d,))


def os_error(e: OSError, file: str | os.PathLike[str] | None = None, *, what: str = "file") -> InputError:
    """Map an :class:`OSError` raised while reading ``file`` to a coded :class:`InputError`."""
    name = str(file if file is not None else (e.filename or "<input>"))
    if isinstance(e, FileNotFoundError) or e.errno == errno.ENOENT:
        return not_found(name, what=what)
    if isinstance(e, IsADirectoryError) or e.errno == errno.EISDIR:
        return input_error(IS_FOLDER, name, f"is a folder, not a {what}",
                           hint="name a file inside it (commands that take folders say so in --help)")
    if isinstance(e, PermissionError) or e.errno in (errno.EACCES, errno.EPERM):
        return input_error(PERMISSION, name, f"permission denied reading this {what}",
                           hint="check the file's permissions (ls -l) or run as a user who may read it")
    return input_error(UNREADABLE, name, f"cannot read this {what}: {e.strerror or e}",
                       hint="check that the disk or mount is healthy and the path is a regular file")


def not_found(path: str | os.PathLike[str], *, what: str = "file or folder") -> InputError:
    """The coded error for a named path that does not exist."""
    return input_error(NOT_FOUND, str(path), f"no such {what}", hint=_missing_hint(str(path)))


def rule_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """``.hkr`` files named, and those under folders named, in sorted order (a missing one: InputError)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out.extend(sorted(p.rglob("*.hkr")))
        elif p.exists():
            out.append(p)
        else:
            raise not_found(p, what="rule file or folder")
    return out


def _missing_hint(name: str) -> str:
    parent = Path(name).parent
    if str(parent) not in ("", ".") and not parent.is_dir():
        return f"the folder {parent}/ does not exist either (paths are relative to {Path.cwd()})"
    return f"check the spelling; paths are relative to the current folder {Path.cwd()}"


def read_bytes(path: str | os.PathLike[str], *, what: str = "file") -> bytes:
    """The bytes of ``path``; every OS failure is a coded :class:`InputError`."""
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise os_error(e, path, what=what) from None
    except MemoryError:
        raise input_error(TOO_LARGE, str(path), f"this {what} does not fit in memory",
                          hint="split it into smaller files") from None


def decode_utf8(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped), or a located :class:`InputError`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, column = position(data, e.start)
        bad = data[e.start:e.end].hex(" ")
        start = data.rfind(b"\n", 0, e.start) + 1
        end = data.find(b"\n", e.start)
        shown = data[start:end if end >= 0 else len(data)].decode("utf-8", "replace")
        raise input_error(NOT_UTF8, name, f"not UTF-8 text: byte(s) {bad} cannot be decoded", line=line,
                          column=column, source_line=printable(shown[:200]),
                          hint="save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8 FILE)") from None
    return text[1:] if text.startswith(BOM) else text


def read_text(path: str | os.PathLike[str], *, what: str = "file") -> str:
    """The UTF-8 text of ``path`` (byte-order mark dropped); failures are coded :class:`InputError`."""
    return decode_utf8(read_bytes(path, what=what), str(path))


def read_json(path: str | os.PathLike[str], *, what: str = "JSON file") -> Any:
    """The JSON value in ``path``; a syntax error names its line and column."""
    return parse_json(read_text(path, what=what), str(path))


def parse_json(text: str, name: str, *, line_offset: int = 0) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        lines = text.splitlines()
        src = lines[e.lineno - 1] if 0 < e.lineno <= len(lines) else None
        raise input_error(NOT_JSON, name, f"not valid JSON: {e.msg}", line=e.lineno + line_offset,
                          column=e.colno, source_line=printable(src[:200]) if src else None,
                          hint="check the file is JSON (a JSON-lines file has one object per line)") from None
    except RecursionError:
        raise input_error(TOO_LARGE, name, "JSON nested too deeply", line=1 + line_offset,
                          hint="flatten the structure") from None


def iter_json_lines(path: str | os.PathLike[str], *, what: str = "JSON-lines file") -> Iterator[tuple[int, Any]]:
    """(line number, value) for every non-blank line of a JSON-lines file."""
    text = read_text(path, what=what)
    for i, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield i, parse_json(line, str(path), line_offset=i - 1)


def bad_record(file: str, message: str, *, line: int = 1, hint: str | None = None) -> InputError:
    """A JSON value of the wrong shape for the reader (a list where an object is expected, ...)."""
    return input_error(BAD_RECORD, file, message, line=line, hint=hint)


def position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based (line, column in characters) of byte ``offset`` in ``data``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, len(data[line_start:offset].decode("utf-8", "replace")) + 1


def printable(text: str) -> str:
    """``text`` with invisible and control characters spelled as ``U+XXXX`` (tabs kept), so a
    message never shows a character the reader cannot see."""
    out = []
    for ch in text:
        o = ord(ch)
        if ch == "\t" or (o >= 0x20 and o != 0x7F and not (0x80 <= o < 0xA0) and ch not in _INVISIBLE):
            out.append(ch)
        else:
            out.append(f"U+{o:04X}")
    return "".join(out)


_INVISIBLE = frozenset("\ufeff\u200b\u200c\u200d\u2060\u00ad\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufffe")
