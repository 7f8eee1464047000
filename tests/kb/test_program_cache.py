"""The rule-program cache (holokb.program_cache): a hit is the program parsing gives, keyed by the rule
files' bytes (not their time stamps), and anything odd in an entry means: parse."""
from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from holokb import program_cache as pc
from holokb.reasoning import load_program

REPO = Path(__file__).resolve().parents[2]
RULES = "@prefix ex: <http://example.org/> .\nrule r: ex:q(?x, ?y) :- ex:p(?x, ?y).\n"


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch) -> Path:
    """Every test gets its own cache folder (HOLOKB_CACHE_DIR) and working folder."""
    monkeypatch.setenv("HOLOKB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "cache" / "programs"


class Counting:
    """load_program that counts its calls (a hit must not parse)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, paths):
        self.calls += 1
        return load_program(paths)


def test_a_hit_is_the_parsed_program_and_does_not_parse(cache_home, tmp_path, monkeypatch):
    rules = [str(REPO / "rules" / "owl2rl.hkr")]
    load = Counting()
    first = pc.cached_program(rules, load)
    monkeypatch.chdir(tmp_path / "cache")  # one file named absolutely: the working folder is no part of it
    second = pc.cached_program(rules, load)
    assert load.calls == 1
    assert second == first == load_program(rules)
    assert second.rule_set_hash == first.rule_set_hash and second is not first
    assert len(list(cache_home.iterdir())) == 1


def test_old_entries_go_past_the_cap(cache_home, tmp_path, monkeypatch):
    monkeypatch.setattr(pc, "MAX_ENTRIES", 2)
    for i in range(4):
        f = tmp_path / f"r{i}.hkr"
        f.write_text(RULES)
        pc.cached_program([str(f)], load_program)
    assert len(list(cache_home.glob("program-*.pickle"))) == 2
    assert pc.lookup(cache_home, pc.program_key([str(tmp_path / "r3.hkr")])) is not None


def test_an_edit_that_keeps_size_and_time_stamp_is_a_miss(tmp_path):
    f = tmp_path / "r.hkr"
    f.write_text(RULES)
    load = Counting()
    before = pc.cached_program([str(f)], load)
    st = f.stat()
    f.write_text(RULES.replace("ex:q(", "ex:z("))  # same length
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert f.stat().st_size == st.st_size and f.stat().st_mtime_ns == st.st_mtime_ns
    after = pc.cached_program([str(f)], load)
    assert load.calls == 2
    assert [r.head.predicate for r in after.rules] == ["http://example.org/z"] != \
        [r.head.predicate for r in before.rules]
    assert after == load_program([str(f)])


def test_changed_parser_code_is_a_miss(tmp_path, monkeypatch):
    f = tmp_path / "r.hkr"
    f.write_text(RULES)
    key = pc.program_key([str(f)])
    monkeypatch.setattr(pc, "_code_digest", b"other code")
    assert pc.program_key([str(f)]) not in (None, key)


def test_a_damaged_or_foreign_entry_is_parsed_again_and_never_run(cache_home, tmp_path):
    f = tmp_path / "r.hkr"
    f.write_text(RULES)
    key = pc.program_key([str(f)])
    entry = cache_home / f"program-{key}.pickle"
    entry.parent.mkdir(parents=True)
    marker = tmp_path / "ran"

    class Planted:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    expected = load_program([str(f)])
    for data in (b"not a pickle", pickle.dumps((key, Planted())), pickle.dumps((key, "a string")),
                 pickle.dumps(("another key", expected))):
        entry.write_bytes(data)
        load = Counting()
        assert pc.cached_program([str(f)], load) == expected
        assert load.calls == 1 and not marker.exists()
    assert pc.lookup(cache_home, key) == expected  # the last parse replaced the bad entry


def test_failures_are_not_cached_and_uncacheable_inputs_always_parse(cache_home, tmp_path, monkeypatch):
    from holokb.core import HolokbError

    bad = tmp_path / "bad.hkr"
    bad.write_text("rule r: ex:q(?x) :- .\n")
    for _ in range(2):
        with pytest.raises(HolokbError):
            pc.cached_program([str(bad)], load_program)
    assert not cache_home.exists()
    inc = tmp_path / "inc.hkr"
    (tmp_path / "base.hkr").write_text(RULES)
    inc.write_text('@include "base.hkr" .\n')
    assert pc.program_key([str(inc)]) is None
    load = Counting()
    pc.cached_program([str(inc)], load)
    pc.cached_program([str(inc)], load)
    assert load.calls == 2 and not cache_home.exists()
    blocked = tmp_path / "file"
    blocked.write_text("")  # the cache folder's parent is a file: nothing can be written, parse each time
    monkeypatch.setenv("HOLOKB_CACHE_DIR", str(blocked))
    for _ in range(2):
        assert pc.cached_program([str(tmp_path / "base.hkr")], load) == load_program([str(tmp_path / "base.hkr")])
    assert load.calls == 4


def test_the_path_as_given_and_for_several_files_the_working_folder_are_part_of_the_key(tmp_path, monkeypatch):
    """Diagnostics and origins name the rule file as it was given (several files: one module named after
    the working folder), so another spelling or folder is another entry."""
    (tmp_path / "r.hkr").write_text(RULES)
    (tmp_path / "s.hkr").write_text(RULES.replace("rule r:", "rule s:").replace("ex:q(", "ex:w("))
    assert pc.program_key(["r.hkr"]) != pc.program_key([str(tmp_path / "r.hkr")])
    assert pc.program_key(["r.hkr"]) == pc.program_key(["r.hkr"])
    both = [str(tmp_path / "r.hkr"), str(tmp_path / "s.hkr")]
    here = pc.program_key(both)
    monkeypatch.chdir(tmp_path / "..")
    assert pc.program_key(both) != here


@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "rules").glob("*.hkr")))
def test_every_shipped_rule_file_reads_back_equal(name, cache_home):
    """The restricted unpickler builds everything a real program holds (aggregates, negation, comparisons…)."""
    rules = [str(REPO / "rules" / name)]
    parsed = pc.cached_program(rules, load_program)
    key = pc.program_key(rules)
    assert pc.lookup(cache_home, key) == parsed == load_program(rules)


def test_a_stored_rule_set_text_is_cached_by_its_bytes_and_the_parser_code(cache_home, monkeypatch):
    """``holokb query`` with no rule files parses the rule set the last derive stored: the text's
    program comes back from the cache, equal to parsing it; another text or other parser code misses."""
    from holokb.analysis import analyze
    from holokb.syntax import parse_rules

    calls = []

    def parse(text, file):
        calls.append(text)
        return analyze(parse_rules(text, file=file))

    owl = (REPO / "rules" / "owl2rl.hkr").read_text()
    first = pc.cached_text_program(owl, pc.STORED_RULE_SET, parse)
    again = pc.cached_text_program(owl, pc.STORED_RULE_SET, parse)
    assert len(calls) == 1 and again == first == analyze(parse_rules(owl, file=pc.STORED_RULE_SET))
    assert again is not first
    pc.cached_text_program(RULES, pc.STORED_RULE_SET, parse)  # another text: parsed
    pc.cached_text_program(owl, "<elsewhere>", parse)  # another file name (its origins name it): parsed
    assert len(calls) == 3
    key = pc.text_key(owl, pc.STORED_RULE_SET)
    monkeypatch.setattr(pc, "_code_digest", b"other code")
    assert pc.text_key(owl, pc.STORED_RULE_SET) != key
    assert pc.stored_program(owl) == first  # the public entry point parses the same program
