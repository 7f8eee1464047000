"""ledger.pipeline: chunks read and hashed by a forked worker are the in-process chunks, failures
end as the in-process run ends, and a load through it writes byte-identical ledgers."""
from __future__ import annotations

import os
import sqlite3
import threading

import pytest

from holokb.core import Fact, HolokbError, IRI, Literal
from holokb.core.terms import XSD
from holokb.ledger import pipeline
from holokb.ledger.canon import canon_of
from holokb.ledger.pipeline import forked_chunks

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                                reason="the forked worker needs fork() and two cores")

EX = "http://example.org/"


@pytest.fixture(autouse=True)
def _single_thread():
    if threading.active_count() != 1:
        pytest.skip("another thread runs in this test process: the pipeline would not fork")
    assert pipeline.can_fork()


def _terms() -> list:
    return [IRI(EX + "a"), IRI(EX + "p"), Literal("Hi"), Literal("01", XSD + "integer"), Literal("1", XSD + "integer"),
            Literal("x", lang="EN"), IRI(EX + "b"), Literal("2.5", XSD + "double")]


def _source(n_chunks: int = 4, fail_at: int | None = None, crash_at: int | None = None, parent: int = 0):
    def chunks():
        terms = _terms()
        for k in range(n_chunks):
            if k == fail_at:
                raise HolokbError(f"bad chunk {k}")
            if k == crash_at and os.getpid() != parent:
                os._exit(3)  # the child dies without a word
            new = terms if k == 0 else [IRI(f"{EX}n{k}")]
            last = len(terms) + k - 1 if k else 2
            yield new, [0, 1, last, 6, 1, 3, 0, 1, 4, 0, 1, 7] if k else [0, 1, 2, 0, 1, 5]
    return chunks


def _terms_of(chunk) -> list:
    """A chunk's terms as Terms (the worker's come packed)."""
    terms = list(chunk[0])
    pipeline.unpack_terms(terms)
    return terms


def _plain(chunks) -> list:
    return [(_terms_of(c), list(c[1])) for c in chunks]


@pytest.mark.parametrize("hashes", [True, False])
def test_forked_chunks_are_the_source_chunks_with_their_encodings_and_fact_hashes(hashes):
    src = _source()
    got = list(forked_chunks(src, hashes=hashes))
    assert _plain(got) == _plain(src())
    assert all(len(c) == 4 for c in got)  # every chunk came from the worker
    assert all(not isinstance(t, (IRI, Literal)) for c in got for t in c[0])  # packed: fields only
    terms = [t for c in got for t in _terms_of(c)]
    assert [e for c in got for e in c[2]] == [canon_of(t) for t in terms]
    for _, spo, _, every in got:
        triples = list(zip(spo[0::3], spo[1::3], spo[2::3]))
        if not hashes:  # left to the parent
            assert every is None
            continue
        assert every == b"".join(bytes.fromhex(Fact(terms[s], terms[p], terms[o]).id) for s, p, o in triples)
    # Rebuilt terms are equal, hash equal and are of the same classes as the source's.
    assert [type(t) for t in terms] == [type(t) for c in src() for t in c[0]]
    assert {hash(t) for t in terms} == {hash(t) for c in src() for t in c[0]}


def test_a_failing_source_raises_its_in_process_error_after_the_chunks_before_it():
    got = []
    with pytest.raises(HolokbError, match="bad chunk 2"):
        for c in forked_chunks(_source(fail_at=2)):
            got.append(c)
    assert _plain(got) == _plain(_source(n_chunks=2)())
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # the worker was reaped


def test_a_crashed_worker_is_replaced_by_the_in_process_source():
    got = list(forked_chunks(_source(crash_at=2, parent=os.getpid())))
    assert _plain(got) == _plain(_source()())
    assert [len(c) for c in got] == [4, 4, 2, 2]  # two from the worker, the rest read here


def test_stopping_early_stops_the_worker():
    it = forked_chunks(_source(n_chunks=50))
    next(it)
    it.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def _nt(n: int, bad_line: int | None = None) -> bytes:
    lines = []
    for i in range(n):
        s = f"<{EX}s{i % 97}>" if i % 5 else f"_:b{i % 13}"
        o = [f"<{EX}o{i % 31}>", f'"label {i % 200}"', f'"{i % 7:02d}"^^<{XSD}integer>', '"Ab"@EN',
             f'"{i / 7!r}"^^<{XSD}double>'][i % 5]
        lines.append(f"{s} <{EX}p{i % 11}> {o} ." if i != bad_line else f"{s} <{EX}p> \"open .")
    return ("\n".join(lines) + "\n").encode()


def _dump(path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return list(db.iterdump())
    finally:
        db.close()


@pytest.mark.parametrize("how", ["kb", "import_file"])
def test_a_forked_load_writes_the_same_ledger_as_the_in_process_load(tmp_path, monkeypatch, how):
    from holokb.kb import KnowledgeBase
    from holokb.ledger import Ledger
    from holokb.rdf.load import import_file

    data = _nt(12_000)
    assert len(data) >= pipeline.FORK_MIN_BYTES
    f = tmp_path / "big.nt"
    f.write_bytes(data)

    def load(db, forked: bool) -> None:
        monkeypatch.setattr(pipeline, "FORK_MIN_BYTES", 1 if forked else 1 << 62)
        calls = []
        real = os.fork
        monkeypatch.setattr(os, "fork", lambda: (calls.append(1), real())[1])
        if how == "kb":
            with KnowledgeBase.open(db) as kb:
                kb.load([f], at=1000)
        else:
            with Ledger.open(db) as led:
                import_file(led, f, at=1000)
        monkeypatch.setattr(os, "fork", real)
        assert calls == ([1] if forked else [])

    load(tmp_path / "forked.db", True)
    load(tmp_path / "inproc.db", False)
    forked, inproc = _dump(tmp_path / "forked.db"), _dump(tmp_path / "inproc.db")
    assert forked == inproc and any(line.startswith('INSERT INTO "facts"') for line in forked)


def test_a_forked_load_of_a_bad_file_fails_as_the_in_process_one_and_writes_nothing(tmp_path, monkeypatch):
    from holokb.kb import KnowledgeBase

    f = tmp_path / "bad.nt"
    f.write_bytes(_nt(12_000, bad_line=11_000))
    errors = []
    for forked in (True, False):
        monkeypatch.setattr(pipeline, "FORK_MIN_BYTES", 1 if forked else 1 << 62)
        with KnowledgeBase.open(tmp_path / f"{forked}.db") as kb:
            with pytest.raises(HolokbError) as e:
                kb.load([f], at=1000)
            assert kb.stats()["facts"] == 0 and kb.stats()["terms"] == 0
        errors.append((type(e.value), str(e.value)))
    assert errors[0] == errors[1] and "11001" in errors[0][1]


def _records(n: int, odd_at: int | None = None) -> list:
    from holokb.core import Evidence, SpanRecord

    out = []
    for i in range(n):
        o = [IRI(f"{EX}o{i % 31}"), Literal(f"label {i % 200}"), Literal(f"{i % 7:02d}", XSD + "integer"),
             Literal("Ab", lang="EN")][i % 4]
        ev = (Evidence("doc", extractor="x", extractor_version="1"),) if i == odd_at else ()
        out.append(SpanRecord(Fact(IRI(f"{EX}s{i % 997}"), IRI(f"{EX}p{i % 11}"), o), evidence=ev))
    return out


@pytest.mark.parametrize("odd_at", [None, 0, 25_000])
def test_bulk_assert_of_a_list_through_the_worker_equals_the_in_process_load(tmp_path, monkeypatch, odd_at):
    from holokb.ledger import Ledger

    records = _records(30_000, odd_at)
    dumps = []
    for forked in (True, False):
        monkeypatch.setattr(pipeline, "FORK_MIN_RECORDS", 1 if forked else 1 << 62)
        calls = []
        real = os.fork
        monkeypatch.setattr(os, "fork", lambda: (calls.append(1), real())[1])
        with Ledger.open(tmp_path / f"{forked}.db") as led:
            assert led.bulk_assert(records, at=1000) == led.last_counts.new > 0
        monkeypatch.setattr(os, "fork", real)
        assert calls == ([1] if forked else [])
        dumps.append(_dump(tmp_path / f"{forked}.db"))
    assert dumps[0] == dumps[1]


@pytest.mark.parametrize("hashes", [True, False])
@pytest.mark.parametrize("eager", [True, False])
def test_staged_terms_from_the_worker_are_the_source_terms(tmp_path, eager, hashes):
    """Staged while the worker reads (terms made then) or packed until first read: the same Terms,
    and the same rows written."""
    from holokb.core import AsOf
    from holokb.ledger import Ledger
    from holokb.ledger.plain import stage_plain

    src = _source()
    with Ledger.open(tmp_path / "kb.db") as led:
        staged = stage_plain(led, forked_chunks(src, hashes=hashes), at=1_000, terms=eager)
        assert staged is not None
        assert staged.terms == [t for c in src() for t in c[0]]
        assert [type(t) for t in staged.terms] == [type(t) for c in src() for t in c[0]]
        assert led.write_staged(staged) == staged.facts > 0
        assert len(list(led.visible(AsOf.latest()))) == staged.facts
