"""The columnar import of plain triple files writes exactly the rows of the general record path."""
from __future__ import annotations

import gzip
import sqlite3

import pytest

from holokb.core import AsOf, DataSyntaxError, Fact, Interval, SpanRecord
from holokb.core.terms import IRI
from holokb.ledger import Ledger
from holokb.rdf import import_file, read_records
from holokb.rdf.parse import Source, parse_plain, parse_quads

AT = 1_767_225_600_000
EX = "http://ex.org/"

# Duplicates, canonically equal literals ("01" = "1", case-folded strings, language-tag case),
# blank nodes (labelled and anonymous), and a term first seen as object then as subject.
TRICKY = f"""<{EX}a> <{EX}p> <{EX}b> .
<{EX}a> <{EX}p> <{EX}b> .
<{EX}b> <{EX}q> "01"^^<http://www.w3.org/2001/XMLSchema#integer> .
<{EX}b> <{EX}q> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .
<{EX}c> <{EX}name> "Straße" .
<{EX}c> <{EX}name> "STRASSE" .
<{EX}c> <{EX}label> "hi"@EN .
<{EX}c> <{EX}label> "hi"@en .
_:x <{EX}p> _:y .
_:y <{EX}p> [ <{EX}r> "2.50"^^<http://www.w3.org/2001/XMLSchema#decimal> ] .
<{EX}d> <{EX}p> "x"^^<{EX}opaque> .
<{EX}d> <{EX}when> "2026-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
"""


def rows(path) -> dict:
    """Every stored row of the fact tables, and the file's consistency checks."""
    db = sqlite3.connect(path)
    try:
        out = {t: db.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
               for t in ("terms", "facts", "spans", "qualifiers", "evidence", "meta")}
        out["schema"] = db.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
        out["fk"] = db.execute("PRAGMA foreign_key_check").fetchall()
        out["integrity"] = db.execute("PRAGMA integrity_check").fetchall()
        return out
    finally:
        db.close()


def general_import(ledger: Ledger, path, *, source_id: str) -> int:
    """The record path import_file took before the columnar fast path."""
    recs = read_records(path, at=AT, source_id=source_id)
    return ledger.bulk_assert((SpanRecord(r.fact, r.valid, Interval.always(), r.evidence) for r in recs), at=AT)


def load_both(tmp_path, path, *, prepare=None) -> tuple[dict, dict, int, int]:
    out = []
    def fast_import(led: Ledger, path, *, source_id: str) -> int:
        return import_file(led, path, at=AT, source_id=source_id)

    for name, load in (("fast", fast_import), ("general", general_import)):
        with Ledger.open(tmp_path / f"{name}.db") as led:
            if prepare is not None:
                prepare(led)
            n = load(led, path, source_id="sample")
        out.append((rows(tmp_path / f"{name}.db"), n))
    return out[0][0], out[1][0], out[0][1], out[1][1]


def test_tricky_plain_file_gives_the_same_rows_as_the_record_path(tmp_path):
    f = tmp_path / "x.nt"
    f.write_text(TRICKY.replace("[ ", "_:z .\n_:z ").replace(" ] .", " ."), encoding="utf-8")
    fast, general, n_fast, n_general = load_both(tmp_path, f)
    assert fast == general
    assert n_fast == n_general == len(fast["spans"])
    assert fast["fk"] == [] and fast["integrity"] == [("ok",)]
    # Canonically equal literals share a term and a fact: 13 triples, 9 distinct facts.
    assert len(fast["facts"]) == 9


def test_turtle_with_anonymous_blank_nodes_matches_the_record_path(tmp_path):
    f = tmp_path / "x.ttl"
    f.write_text(TRICKY, encoding="utf-8")
    fast, general, _, _ = load_both(tmp_path, f)
    assert fast == general
    assert any(r[2].startswith("https://w3id.org/holokb/.well-known/genid/") for r in fast["terms"])


def test_fact_hashes_are_fact_ids(tmp_path):
    f = tmp_path / "x.ttl"
    f.write_text(TRICKY, encoding="utf-8")
    with Ledger.open(tmp_path / "kb.db") as led:
        import_file(led, f, at=AT, source_id="sample")
        visible = list(led.facts(AsOf.latest(), about=IRI(EX + "c")))
    db = sqlite3.connect(tmp_path / "kb.db")
    stored = {h.hex() for (h,) in db.execute("SELECT hash FROM facts")}
    db.close()
    assert visible and all(v.fact_id == v.fact.id and v.fact.id in stored for v in visible)
    recs = read_records(f, at=AT, source_id="sample")
    assert {r.fact.id for r in recs} == stored


def test_lubm_sample_matches_the_record_path(tmp_path, corpora):
    src = corpora / "lubm" / "lubm_1_0_seed0.nt.gz"
    lines = gzip.decompress(src.read_bytes()).splitlines(keepends=True)[:5000]
    f = tmp_path / "lubm.nt"
    f.write_bytes(b"".join(lines + lines[:100]))  # the repeated tail must be dropped
    fast, general, n, _ = load_both(tmp_path, f)
    assert fast == general
    assert n == len(fast["spans"]) == len(fast["facts"]) <= 5000


@pytest.mark.parametrize("text", [
    f"<{EX}g> {{ <{EX}a> <{EX}p> <{EX}b> . }}\n",  # a named graph: graph qualifier
    f"<{EX}a> <https://w3id.org/holokb/validFrom> \"2026-01-01\"^^<http://www.w3.org/2001/XMLSchema#date> .\n",
    f"<https://w3id.org/holokb/fact/00> <{EX}p> <{EX}b> .\n",
])
def test_files_needing_the_mapping_are_not_plain(text):
    assert parse_plain(Source(text.encode(), "TRIG", "t.trig")) is None


def test_named_graph_file_still_imports_with_its_qualifier(tmp_path):
    f = tmp_path / "g.trig"
    f.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n<{EX}g> {{ <{EX}a> <{EX}p> <{EX}b> . }}\n", encoding="utf-8")
    fast, general, n, _ = load_both(tmp_path, f)
    assert fast == general and n == 2
    assert len(fast["qualifiers"]) == 1


def test_ledger_with_facts_takes_the_general_path_with_the_same_rows(tmp_path):
    f = tmp_path / "x.ttl"
    f.write_text(TRICKY, encoding="utf-8")

    def prepare(led: Ledger) -> None:
        with led.batch(at=AT - 10) as b:
            b.assert_fact(Fact(IRI(EX + "a"), IRI(EX + "p"), IRI(EX + "b")))

    fast, general, n_fast, n_general = load_both(tmp_path, f, prepare=prepare)
    assert fast == general and n_fast == n_general == len(fast["spans"]) - 1


def test_functional_predicate_supersedes_as_in_the_record_path(tmp_path):
    f = tmp_path / "x.nt"
    f.write_text(f"<{EX}a> <{EX}loc> <{EX}y> .\n<{EX}b> <{EX}loc> <{EX}y> .\n", encoding="utf-8")

    def declare(led: Ledger) -> None:
        with led.batch(at=AT - 10) as b:
            b.declare_predicate(IRI(EX + "loc"), functional=True)

    def declare_and_assert(led: Ledger) -> None:
        declare(led)
        with led.batch(at=AT - 5) as b:
            b.assert_fact(Fact(IRI(EX + "a"), IRI(EX + "loc"), IRI(EX + "x")))

    fast, general, _, _ = load_both(tmp_path, f, prepare=declare)
    assert fast == general and len(fast["spans"]) == 2
    (tmp_path / "fast.db").unlink()
    (tmp_path / "general.db").unlink()
    fast, general, _, _ = load_both(tmp_path, f, prepare=declare_and_assert)
    assert fast == general
    assert [s[5] for s in fast["spans"]] == [AT, None, None]  # a loc x closed by a loc y (system_to; v6 has no span_id column)


def test_declared_terms_are_reused_and_foreign_keys_hold(tmp_path):
    f = tmp_path / "x.nt"
    f.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n<{EX}b> <{EX}p> <{EX}a> .\n", encoding="utf-8")

    def prepare(led: Ledger) -> None:
        with led.batch(at=AT - 10) as b:
            b.declare_predicate(IRI(EX + "p"))

    fast, general, _, _ = load_both(tmp_path, f, prepare=prepare)
    assert fast == general
    assert [r[2] for r in fast["terms"]] == [EX + "p", EX + "a", EX + "b"]
    assert fast["fk"] == []
    with Ledger.open(tmp_path / "fast.db") as led:
        assert led._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


@pytest.mark.parametrize("bad", [
    f"<{EX}a> <{EX}p> \"x\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
    f"<{EX}a> <{EX}p> <{EX}b>\n",
])
def test_bad_file_raises_like_the_quad_parser_and_changes_nothing(tmp_path, bad):
    f = tmp_path / "bad.nt"
    f.write_text(f"<{EX}a> <{EX}p> <{EX}c> .\n" + bad, encoding="utf-8")
    with pytest.raises(DataSyntaxError) as quad_err:
        list(parse_quads(Source(f.read_bytes(), "N_TRIPLES", str(f))))
    with Ledger.open(tmp_path / "kb.db") as led:
        marker = led.change_marker()
        with pytest.raises(DataSyntaxError) as fast_err:
            import_file(led, f, at=AT)
        assert led.change_marker() == marker
        assert list(led.visible(AsOf.latest())) == []
    assert str(fast_err.value) == str(quad_err.value)
    assert fast_err.value.diagnostics[0].location.line in (2, 3)  # 3: the missing dot seen at EOF


def test_small_chunks_store_the_same_rows_as_one_chunk(tmp_path, corpora):
    from holokb.rdf.parse import plain_chunks

    data = b"".join(gzip.decompress((corpora / "lubm" / "lubm_1_0_seed0.nt.gz").read_bytes())
                    .splitlines(keepends=True)[:3000])
    src = Source(data, "N_TRIPLES", "lubm")
    parts = list(plain_chunks(src, chunk=7))
    whole = parse_plain(src)
    assert len(parts) == 3000 // 7 + 1
    assert [t for p in parts for t in p.terms] == list(whole.terms)
    assert [i for p in parts for i in p.spo] == whole.spo
    for name, chunks in (("small", parts), ("one", [whole])):
        with Ledger.open(tmp_path / f"{name}.db") as led:
            led.bulk_assert_plain(((c.terms, c.spo) for c in chunks), at=AT)
    assert rows(tmp_path / "small.db") == rows(tmp_path / "one.db")
