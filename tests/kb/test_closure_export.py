"""Issue 8: a full export carries stored closures (derived facts with proofs); importing it restores
them as stored closures, and export -> import -> export is byte-identical."""
from __future__ import annotations

from holokb.analysis import analyze
from holokb.core import AsOf, parse_instant
from holokb.kb import KnowledgeBase
from holokb.resources import data_dir
from holokb.syntax import parse_rules

T = parse_instant("2026-01-01")


def program():
    path = data_dir("rules") / "example.hkr"
    return analyze(parse_rules(path.read_text(), file=str(path)))


def test_export_import_export_keeps_stored_closures(tmp_path):
    prog = program()
    fresh_at, stale_at = AsOf(parse_instant("2026-01-02"), parse_instant("2026-04-01")), AsOf.latest()
    with KnowledgeBase.open(tmp_path / "a.db") as kb:
        kb.load([data_dir("kb")], at=T)
        _, info = kb.derive_and_store(prog, as_of=fresh_at, computed_at=T + 1)
        kb.derive_and_store(prog, as_of=stale_at, computed_at=T + 2)
        extra = tmp_path / "extra.ttl"
        extra.write_text("<http://example.org/x> <http://example.org/p> <http://example.org/y> .\n")
        kb.load([extra], at=parse_instant("2026-01-05"))  # seen by the latest AsOf only
        assert {c.as_of: c.stale for c in kb.ledger.closures()} == {fresh_at: False, stale_at: True}
        first = kb.export()
        derived = kb.ledger.derived_facts(info)
    assert first.count("a hk:Closure") == 2 and "hk:premise0" in first and "hk:binding0" in first
    dump = tmp_path / "ledger.trig"
    dump.write_text(first)
    with KnowledgeBase.open(tmp_path / "b.db") as kb:
        report = kb.load([dump], at=parse_instant("2026-02-01"))
        assert report.spans_new == kb.stats()["spans"]
        assert kb.export() == first
        assert {c.as_of: c.stale for c in kb.ledger.closures()} == {fresh_at: False, stale_at: True}
        restored = kb.ledger.closure_info(prog.rule_set_hash, fresh_at)
        assert kb.ledger.derived_facts(restored) == derived  # same facts, proofs and bindings
        read = kb.derived_facts(prog, as_of=fresh_at)
        assert read.source == "stored"  # served from the restored closure
        again = kb.load([dump], at=parse_instant("2026-02-02"))  # importing again changes nothing
        assert (again.spans_new, again.spans_closed) == (0, 0) and kb.export() == first
