"""`holokb query` finds the warm snapshot by the rule files' digest without parsing them, and a
changed rule file, a changed ledger or a changed parser never serves the old answer."""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest
from _cli import holokb

from holokb.sparql.rules_index import RulesEntry, lookup, remember, rule_digest

EX = "http://example.org/"
DATA = f"""@prefix ex: <{EX}> .
ex:alice ex:uses ex:editor .
ex:editor ex:provides ex:search .
"""
RULE = f"""@prefix ex: <{EX}> .
rule cap: ex:hasCapability(?x, ?z) :- ex:uses(?x, ?y), ex:provides(?y, ?z).
"""
Q = f"SELECT ?x ?c WHERE {{ ?x <{EX}hasCapability> ?c }}"


@contextlib.contextmanager
def _cwd(path: Path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A ledger with DATA loaded and the rule file r.hkr beside it."""
    (tmp_path / "data.ttl").write_text(DATA)
    (tmp_path / "r.hkr").write_text(RULE)
    holokb("load", "data.ttl", "--db", "kb.db", "--at", "2026-01-01", cwd=tmp_path)
    return tmp_path


def add_bob(cwd: Path) -> None:
    """A write after the snapshot was built: ex:bob uses the editor too."""
    (cwd / "more.ttl").write_text(f"@prefix ex: <{EX}> .\nex:bob ex:uses ex:editor .\n")
    holokb("load", "more.ttl", "--db", "kb.db", "--at", "2026-01-02", cwd=cwd)


def edit_rule(cwd: Path) -> None:
    """The rule now concludes the tool, not the capability."""
    (cwd / "r.hkr").write_text(RULE.replace("ex:hasCapability(?x, ?z)", "ex:hasCapability(?x, ?y)"))


def query(cwd: Path) -> tuple[list[str], bool]:
    p = holokb("query", Q, "--rules", "r.hkr", "--db", "kb.db", "--format", "tsv", cwd=cwd)
    return p.stdout.splitlines()[1:], "snapshot rebuilt" in p.stderr


def test_the_digest_finds_the_warm_snapshot_and_changes_are_never_served_stale(project):
    rows, built = query(project)
    assert built and rows == [f"<{EX}alice>\t<{EX}search>"]
    db = str(project / "kb.db")
    with _cwd(project):
        assert lookup(db, rule_digest(["r.hkr"])) is not None
    assert lookup(db, rule_digest([project / "r.hkr"])) is None  # spelled otherwise: its own digest
    # the same files: found by digest, not rebuilt, same bytes
    assert query(project) == (rows, False)
    # an edited rule file: a new digest, parsed, rebuilt, the new answer
    edit_rule(project)
    rows2, built = query(project)
    assert built and rows2 == [f"<{EX}alice>\t<{EX}editor>"]
    # a write to the ledger: the digest still names the program, but the snapshot key holds the ledger
    # marker, so it is rebuilt and shows the new fact
    add_bob(project)
    rows3, built = query(project)
    assert built and rows3 == [f"<{EX}alice>\t<{EX}editor>", f"<{EX}bob>\t<{EX}editor>"]
    assert query(project) == (rows3, False)


def test_an_entry_that_names_another_program_finds_no_snapshot(project):
    """A wrong or tampered entry can only cost a parse: it names a program hash, and the snapshot key
    (that hash + the ledger marker) must still match a snapshot built for it."""
    rows, _ = query(project)
    with _cwd(project):
        digest = rule_digest(["r.hkr"])
    db = str(project / "kb.db")
    entry = lookup(db, digest)
    assert entry is not None and entry.rules == 1
    remember(db, digest, RulesEntry("0" * 64, entry.rule_set_hash, 1))
    assert query(project) == (rows, False)  # parsed; the real program's snapshot is on disk
    assert lookup(db, digest).program == entry.program  # and the entry is right again


def test_files_that_include_others_are_not_digested(tmp_path):
    (tmp_path / "a.hkr").write_text('@include "b.hkr" .\n')
    (tmp_path / "b.hkr").write_text(RULE)
    assert rule_digest([tmp_path / "a.hkr"]) is None
    assert rule_digest([tmp_path / "b.hkr"]) is not None
    assert rule_digest([tmp_path / "missing.hkr"]) is None
    assert rule_digest([]) is None
    # a folder is its .hkr files: adding one changes the digest
    d = tmp_path / "rules"
    d.mkdir()
    (d / "one.hkr").write_text(RULE)
    before = rule_digest([d])
    (d / "two.hkr").write_text(f"@prefix ex: <{EX}> .\n")
    assert before is not None and rule_digest([d]) not in (None, before)
    # an unreadable entry is a miss
    db = str(tmp_path / "kb.db")
    remember(db, before, RulesEntry("p", "h", 1))
    assert lookup(db, before) == RulesEntry("p", "h", 1)
    (Path(db + ".sparql") / f"rules-{before[:16]}.json").write_text("{not json")
    assert lookup(db, before) is None
    (Path(db + ".sparql") / f"rules-{before[:16]}.json").write_text(json.dumps({"digest": "x"}))
    assert lookup(db, before) is None


def test_a_changed_parser_changes_the_digest(tmp_path, monkeypatch):
    from holokb.sparql import rules_index

    (tmp_path / "r.hkr").write_text(RULE)
    before = rule_digest([tmp_path / "r.hkr"])
    stamp = rules_index._code_stamp()
    assert any(name == "holokb.lark" for name, _, _ in stamp) and any(name == "parser.py" for name, _, _ in stamp)
    monkeypatch.setattr(rules_index, "_code_stamp", lambda: [*stamp[:-1], [stamp[-1][0], stamp[-1][1] + 1, stamp[-1][2]]])
    assert rule_digest([tmp_path / "r.hkr"]) != before


def test_after_derive_the_first_query_builds_from_the_stored_closure_and_never_from_a_stale_one(project):
    holokb("derive", "--rules", "r.hkr", "--db", "kb.db", "--show", "0", cwd=project)
    with _cwd(project):
        digest = rule_digest(["r.hkr"])
    assert lookup(str(project / "kb.db"), digest) is not None  # derive recorded what the digest names
    rows, built = query(project)
    assert built and rows == [f"<{EX}alice>\t<{EX}search>"]
    # a write after derive: the stored closure is stale, so it is closed again, with the new fact
    add_bob(project)
    rows, built = query(project)
    assert built and rows == [f"<{EX}alice>\t<{EX}search>", f"<{EX}bob>\t<{EX}search>"]
    # derive again and edit the rule file: the new digest is unknown, the rules are parsed
    holokb("derive", "--rules", "r.hkr", "--db", "kb.db", "--show", "0", cwd=project)
    edit_rule(project)
    rows, built = query(project)
    assert built and rows == [f"<{EX}alice>\t<{EX}editor>", f"<{EX}bob>\t<{EX}editor>"]


def query_last_derive(cwd: Path) -> tuple[list[str], bool, bool]:
    """A query naming no rule files (no ./rules either): rows, rebuilt?, and whether the rules were parsed.
    A query that neither parsed nor built must not have imported the Ledger class either (the last
    derive's rule set found by its hash from the markers' read, ``ledger.marker.last_rule_set``)."""
    import subprocess
    import sys

    code = ("import sys\nfrom holokb.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code\nsys.stderr.write('@@ledger=' + str('holokb.ledger.store' in sys.modules))\n"
            "sys.stderr.write('@@parsed=' + str('holokb.syntax' in sys.modules))\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    p = subprocess.run([sys.executable, "-c", code, "query", Q, "--db", "kb.db", "--format", "tsv"], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "rules: closed under the rule set of the last `holokb derive` on this ledger" in p.stderr
    built, parsed = "snapshot rebuilt" in p.stderr, p.stderr.endswith("@@parsed=True")
    if not built and not parsed:
        assert "@@ledger=False" in p.stderr
    return p.stdout.splitlines()[1:], built, parsed


def test_without_rule_files_the_last_derives_rule_set_is_found_by_its_text(project):
    from holokb.ledger import Ledger
    from holokb.sparql.rules_index import stored_digest

    holokb("derive", "--rules", "r.hkr", "--db", "kb.db", "--show", "0", cwd=project)
    rows, built, parsed = query_last_derive(project)
    assert rows == [f"<{EX}alice>\t<{EX}search>"] and built and parsed
    db = str(project / "kb.db")
    with Ledger.open(db) as led:
        (info,) = led.closures()
        text = led.rule_set(info.rule_set_hash)
    entry = lookup(db, stored_digest(text))
    assert entry is not None and entry.rule_set_hash == info.rule_set_hash and entry.rules == 1
    # the next query finds the snapshot by the stored text's digest: no parse, no build, same rows
    assert query_last_derive(project) == (rows, False, False)
    # a write after derive: the snapshot key holds the ledger marker, and the stored closure is stale
    add_bob(project)
    rows, built, _ = query_last_derive(project)
    assert built and rows == [f"<{EX}alice>\t<{EX}search>", f"<{EX}bob>\t<{EX}search>"]
    # a derive under another rule set: that is now the last derive's rule set, and its answer is served
    edit_rule(project)
    holokb("derive", "--rules", "r.hkr", "--db", "kb.db", "--show", "0", cwd=project)
    rows, built, parsed = query_last_derive(project)
    assert built and parsed and rows == [f"<{EX}alice>\t<{EX}editor>", f"<{EX}bob>\t<{EX}editor>"]
    assert query_last_derive(project) == (rows, False, False)
    # the first rule set derived again (no fact written since): the newest closure decides, not a record
    (project / "r.hkr").write_text(RULE)
    holokb("derive", "--rules", "r.hkr", "--db", "kb.db", "--show", "0", cwd=project)
    rows, _, _ = query_last_derive(project)
    assert rows == [f"<{EX}alice>\t<{EX}search>", f"<{EX}bob>\t<{EX}search>"]
    assert query_last_derive(project) == (rows, False, False)
    edit_rule(project)
    holokb("derive", "--rules", "r.hkr", "--db", "kb.db", "--show", "0", cwd=project)
    assert query_last_derive(project)[0] == [f"<{EX}alice>\t<{EX}editor>", f"<{EX}bob>\t<{EX}editor>"]


def query_modules(cwd: Path) -> tuple[list[str], bool, bool, bool]:
    """`query` with r.hkr: rows, rebuilt?, whether the Ledger class and the KB's term classes
    (holokb.core.terms), hashlib (OpenSSL's start-up; core.sha) or rdflib were imported."""
    import subprocess
    import sys

    code = ("import sys\nfrom holokb.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code\nsys.stderr.write('@@ledger=' + str('holokb.ledger.store' in sys.modules)"
            " + ',' + str(any(m in sys.modules for m in ('holokb.core.terms', 'hashlib', 'rdflib'))))\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    p = subprocess.run([sys.executable, "-c", code, "query", Q, "--rules", "r.hkr", "--db", "kb.db", "--format", "tsv"],
                       cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    ledger, terms = p.stderr.rpartition("@@ledger=")[2].split(",")
    return p.stdout.splitlines()[1:], "snapshot rebuilt" in p.stderr, ledger == "True", terms == "True"


def test_a_warm_query_checks_the_ledger_markers_without_the_ledger_class(project):
    rows, built, ledger, terms = query_modules(project)
    assert built and ledger and terms and rows == [f"<{EX}alice>\t<{EX}search>"]
    # warm: the markers alone (ledger.marker), and the result read with no KB term class
    assert query_modules(project) == (rows, False, False, False)
    add_bob(project)  # a write moves the markers: built again, with the new row
    rows2, built, ledger, terms = query_modules(project)
    assert built and ledger and rows2 == rows + [f"<{EX}bob>\t<{EX}search>"]
    assert query_modules(project) == (rows2, False, False, False)
