"""The rule-program cache beside a ledger (holokb.program_cache): a hit is the program parsing gives,
keyed by the rule files' bytes (not their time stamps), and anything odd in an entry means: parse."""
from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from holokb import program_cache as pc
from holokb.reasoning import load_program

REPO = Path(__file__).resolve().parents[2]
RULES = "@prefix ex: <http://example.org/> .\nrule r: ex:q(?x, ?y) :- ex:p(?x, ?y).\n"


class Counting:
    """load_program that counts its calls (a hit must not parse)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, paths):
        self.calls += 1
        return load_program(paths)


def test_a_hit_is_the_parsed_program_and_does_not_parse(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ledger = str(tmp_path / "kb.db")
    rules = [str(REPO / "rules" / "owl2rl.hkr")]
    load = Counting()
    first = pc.cached_program(ledger, rules, load)
    second = pc.cached_program(ledger, rules, load)
    assert load.calls == 1
    assert second == first == load_program(rules)
    assert second.rule_set_hash == first.rule_set_hash and second is not first
    assert len(list((tmp_path / "kb.db.programs").iterdir())) == 1


def test_an_edit_that_keeps_size_and_time_stamp_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "r.hkr"
    f.write_text(RULES)
    ledger = str(tmp_path / "kb.db")
    load = Counting()
    before = pc.cached_program(ledger, [str(f)], load)
    st = f.stat()
    f.write_text(RULES.replace("ex:q(", "ex:z("))  # same length
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert f.stat().st_size == st.st_size and f.stat().st_mtime_ns == st.st_mtime_ns
    after = pc.cached_program(ledger, [str(f)], load)
    assert load.calls == 2
    assert [r.head.predicate for r in after.rules] == ["http://example.org/z"] != \
        [r.head.predicate for r in before.rules]
    assert after == load_program([str(f)])


def test_changed_parser_code_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "r.hkr"
    f.write_text(RULES)
    key = pc.program_key([str(f)])
    monkeypatch.setattr(pc, "_code_digest", b"other code")
    assert pc.program_key([str(f)]) not in (None, key)


def test_a_damaged_or_foreign_entry_is_parsed_again_and_never_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "r.hkr"
    f.write_text(RULES)
    ledger = str(tmp_path / "kb.db")
    key = pc.program_key([str(f)])
    entry = tmp_path / "kb.db.programs" / f"program-{key}.pickle"
    entry.parent.mkdir()
    marker = tmp_path / "ran"

    class Planted:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    expected = load_program([str(f)])
    for data in (b"not a pickle", pickle.dumps((key, Planted())), pickle.dumps((key, "a string")),
                 pickle.dumps(("another key", expected))):
        entry.write_bytes(data)
        load = Counting()
        assert pc.cached_program(ledger, [str(f)], load) == expected
        assert load.calls == 1 and not marker.exists()
    assert pc.lookup(ledger, key) == expected  # the last parse replaced the bad entry


def test_failures_are_not_cached_and_uncacheable_inputs_always_parse(tmp_path, monkeypatch):
    from holokb.core import HolokbError

    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.hkr"
    bad.write_text("rule r: ex:q(?x) :- .\n")
    ledger = str(tmp_path / "kb.db")
    for _ in range(2):
        with pytest.raises(HolokbError):
            pc.cached_program(ledger, [str(bad)], load_program)
    assert not (tmp_path / "kb.db.programs").exists()
    inc = tmp_path / "inc.hkr"
    (tmp_path / "base.hkr").write_text(RULES)
    inc.write_text('@include "base.hkr" .\n')
    assert pc.program_key([str(inc)]) is None
    load = Counting()
    pc.cached_program(ledger, [str(inc)], load)
    pc.cached_program(ledger, [str(inc)], load)
    pc.cached_program(":memory:", [str(bad.with_name("base.hkr"))], load)
    pc.cached_program(str(tmp_path / "missing" / "kb.db"), [str(tmp_path / "base.hkr")], load)
    assert load.calls == 4
    assert not (tmp_path / "missing").exists()  # no folder is made for a ledger that has none


def test_the_path_as_given_is_part_of_the_key(tmp_path, monkeypatch):
    """Diagnostics and origins name the rule file as it was given, so another spelling is another entry."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.hkr").write_text(RULES)
    assert pc.program_key(["r.hkr"]) != pc.program_key([str(tmp_path / "r.hkr")])
    assert pc.program_key(["r.hkr"]) == pc.program_key(["r.hkr"])
