"""Which rule program some rule files are, without parsing them: a digest of their bytes, kept
beside the snapshot caches, names the program hash a warm snapshot was built for.

``holokb query`` is one process per query.  Parsing and checking the rule files (about 0.6 s for
OWL 2 RL, lark included) is needed only to *build* a snapshot; when the snapshot is already on
disk, the query needs only the program's hash to find it.  So a build records::

    kb.db.sparql/rules-<digest[:16]>.json   {"digest": …, "program": program_hash, "rule_set_hash": …,
                                             "rules": number of rules}

and a later query with the same rule files looks the digest up instead of parsing.  The digest
covers every rule file's path and bytes (folders expanded by ``core.inputs.rule_files``) and a
stamp of the code that turns text into a program (the grammar and the syntax, analysis and
bridge modules: size and mtime), so an edited rule file or an updated parser gives a new digest,
and a new digest is a miss: the rules are parsed and the snapshot's own key (program hash +
ledger marker) decides as before.  Files that ``@include`` others are not digested (the included
files are known only by parsing): those queries always parse.  Like the snapshots, an entry is
a cache: missing or unreadable ⇒ parse; never the only copy of anything.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, NamedTuple

from ..core.sha import sha256  # not hashlib: see core.sha

FORMAT = 1
_PKG = Path(__file__).resolve().parents[1]
_CODE = ("syntax", "analysis")


class RulesEntry(NamedTuple):
    """What a digest names: the program hash (the snapshot key's ``rules``), its rule-set hash and rule count."""

    program: str
    rule_set_hash: str
    rules: int


def _code_stamp() -> list:
    from ..resources import data_dir

    files = [p for d in _CODE for p in sorted((_PKG / d).glob("*.py"))]
    files += [_PKG / "bridge.py", _PKG / "reasoning.py", data_dir("grammar") / "holokb.lark"]
    out = []
    for p in files:
        st = p.stat()
        out.append([p.name, st.st_size, st.st_mtime_ns])
    return out


def rule_digest(paths: Iterable[str | Path]) -> str | None:
    """The digest of the rule files named (folders: their ``.hkr`` files, sorted), or None when
    it cannot stand for the program: a path is missing, nothing is named, or a file includes others."""
    from ..core.inputs import InputError, rule_files

    try:
        files = rule_files(paths)
    except InputError:
        return None  # the parser reports it
    if not files:
        return None
    h = sha256(json.dumps([FORMAT, _code_stamp()]).encode())
    for f in files:
        try:
            data = f.read_bytes()
        except OSError:
            return None
        if b"@include" in data:
            return None
        name = f"{f}\0{f.resolve()}".encode("utf-8")  # as given too: the program's origins name it so
        h.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def stored_digest(text: str) -> str:
    """The digest that names the program parsed from a rule set stored in the ledger (``holokb query``
    with no rule files uses the rule set of the last ``holokb derive``): its text and the code stamp."""
    h = sha256(json.dumps([FORMAT, _code_stamp(), "<stored rule set>"]).encode())
    h.update(text.encode("utf-8"))
    return h.hexdigest()


def set_digest(rule_set_hash: str) -> str:
    """The digest that names the program parsed from the ledger's rule set ``rule_set_hash`` (the
    text the ledger keeps under that hash, which :func:`stored_digest` reads): known from the
    hash alone, so a query naming no rule files finds the last derive's program with no ledger
    read beyond the markers (``ledger.marker.last_rule_set``)."""
    return sha256(json.dumps([FORMAT, _code_stamp(), "<stored rule set hash>", rule_set_hash]).encode()).hexdigest()


def _entry_path(ledger_path: str, digest: str) -> Path:
    return Path(ledger_path + ".sparql") / f"rules-{digest[:16]}.json"


def lookup(ledger_path: str, digest: str) -> RulesEntry | None:
    """The entry a build recorded for ``digest`` beside this ledger, or None."""
    try:
        doc = json.loads(_entry_path(ledger_path, digest).read_text(encoding="utf-8"))
        if doc.get("digest") != digest:
            return None
        return RulesEntry(str(doc["program"]), str(doc["rule_set_hash"]), int(doc["rules"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def remember(ledger_path: str, digest: str, entry: RulesEntry) -> None:
    """Record ``entry`` for ``digest`` (written whole or not at all; a refusal of the disk is ignored)."""
    target = _entry_path(ledger_path, digest)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"digest": digest, **entry._asdict()}, sort_keys=True), encoding="utf-8")
        os.replace(tmp, target)
    except OSError:
        pass


def remember_program(ledger_path: str, digest: str | None, program: object) -> None:
    """Record what ``digest`` names for a parsed, checked ``program`` (nothing when there is no digest)."""
    if digest is None:
        return
    from .snapshot import program_hash

    remember(ledger_path, digest, RulesEntry(program_hash(program), program.rule_set_hash,  # type: ignore[attr-defined]
                                             len(program.rules)))  # type: ignore[attr-defined]
