"""The N-Triples / N-Quads line tokenizer (rdf/ntriples.py) against pyoxigraph: over the W3C suites
and over generated documents, ``plain_chunks`` with the fast path gives the same triples, the same
NotPlain and the same errors (code, message, file:line:col) as with pyoxigraph alone — whole-file
blocks and one-line blocks (every block boundary, every fall-back)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from holokb.core import DataSyntaxError
from holokb.rdf import ntriples
from holokb.rdf import parse as parse_module
from holokb.rdf.parse import NotPlain, Source, plain_chunks

from _corpora import corpora_root


def outcome(src: Source, *, fast: bool) -> tuple:
    """What reading ``src`` gives: the triples as holokb terms, NotPlain, or the error as shown."""
    try:
        terms: list = []
        triples = []
        for part in plain_chunks(src, chunk=5, fast=fast):
            terms.extend(part.terms)
            it = iter(part.spo)
            # Each chunk lists exactly the terms first used in it.
            assert all(i < len(terms) for i in part.spo)
            triples.extend((terms[s], terms[p], terms[o]) for s, p, o in zip(it, it, it))
        return ("ok", triples, len(terms), len(set(terms)))
    except NotPlain:
        return ("not plain",)
    except DataSyntaxError as e:
        d = e.diagnostics[0]
        return ("error", str(e), d.code, d.location.line, d.location.column)


def three_readings(src: Source, monkeypatch) -> tuple[tuple, tuple, tuple]:
    """``src`` read by pyoxigraph alone, by the fast path, and by the fast path in one-line blocks
    (every block boundary and every fall-back)."""
    slow = outcome(src, fast=False)
    fast = outcome(src, fast=True)
    with monkeypatch.context() as m:
        m.setattr(ntriples, "_BLOCK", 1)
        one_line = outcome(src, fast=True)
    return slow, fast, one_line


def same_both_ways(src: Source, monkeypatch) -> tuple:
    slow, fast, one_line = three_readings(src, monkeypatch)
    assert fast == slow and one_line == slow
    return slow


def _suite_files() -> list[Path]:
    root = corpora_root()
    if root is None:
        return []
    base = root / "w3c_rdf_tests" / "rdf"
    return sorted(p for d in ("rdf11/rdf-n-triples", "rdf11/rdf-n-quads", "rdf12/rdf-n-triples", "rdf12/rdf-n-quads")
                  for p in (base / d).rglob("*") if p.suffix in (".nt", ".nq"))


SUITE = _suite_files()


@pytest.mark.skipif(not SUITE, reason="W3C rdf-tests corpus not found (HOLOKB_CORPORA)")
def test_w3c_ntriples_and_nquads_files_read_the_same_with_the_fast_path(monkeypatch):
    kinds: dict[str, int] = {}
    for path in SUITE:
        fmt = "N_QUADS" if path.suffix == ".nq" else "N_TRIPLES"
        for base in (None, "http://example/base/"):
            got = same_both_ways(Source(path.read_bytes(), fmt, path.name, base), monkeypatch)
            kinds[got[0]] = kinds.get(got[0], 0) + 1
    # The suites hold valid files, invalid ones and named graphs: all three outcomes are compared.
    assert kinds.get("ok", 0) > 100 and kinds.get("error", 0) > 50 and kinds.get("not plain", 0) > 10


def general_calls(src: Source, monkeypatch) -> int:
    """How many times pyoxigraph parsed a block (or the file) while the fast path read ``src``."""
    calls = []
    real = parse_module._PlainReader._general

    def counted(self, data, lines_before):
        calls.append(lines_before)
        return real(self, data, lines_before)

    with monkeypatch.context() as m:
        m.setattr(parse_module._PlainReader, "_general", counted)
        outcome(src, fast=True)
    return len(calls)


def test_lines_the_fast_path_takes_and_refuses(monkeypatch):
    ex = "http://ex.org/"
    taken = (f'<{ex}a> <{ex}p> "x\\"y\\u00e9"@en-GB .\n'
             f'_:b1 <{ex}p> "2"^^<http://www.w3.org/2001/XMLSchema#integer> .\r\n'
             f'_:x.y <{ex}p> "01"^^<http://www.w3.org/2001/XMLSchema#integer> .\n')
    src = Source(taken.encode(), "N_TRIPLES", "t.nt")
    assert general_calls(src, monkeypatch) == 0
    got = same_both_ways(src, monkeypatch)
    assert got[0] == "ok" and len(got[1]) == 3
    assert got[1][0][2].lexical == 'x"y\u00e9' and got[1][0][2].lang == "en-gb"
    for odd in (f"# comment\n<{ex}a> <{ex}p> <{ex}b> .\n",            # comment line
                f"<{ex}a>  <{ex}p> <{ex}b> .\n",                      # double space
                f"<{ex}a> <{ex}p> <{ex}b>.\n",                        # no space before the dot
                f"<{ex}a> <{ex}p> <{ex}b> . # trailing\n",            # trailing comment
                f"<{ex}a> <{ex}p> <{ex}b> <{ex}g> .\n",               # named graph
                f"<{ex}a> <{ex}p> _:x:y .\n",                         # a colon in a label
                f"<{ex}a> <{ex}p> <rel> .\n",                         # relative IRI: an error
                f'<{ex}a> <{ex}p> "unterminated .\n',
                f"<{ex}a> <{ex}p> <{ex}b> .\r<{ex}c> <{ex}p> <{ex}d> .\n"):  # a lone CR ends a line
        src = Source(odd.encode(), "N_QUADS" if "<http://ex.org/g>" in odd else "N_TRIPLES", "odd.nt")
        assert general_calls(src, monkeypatch) >= 1, odd
        same_both_ways(src, monkeypatch)
    hk = Source(f"<{ex}a> <https://w3id.org/holokb/current> <{ex}b> .\n".encode(), "N_TRIPLES", "hk.nt")
    assert same_both_ways(hk, monkeypatch) == ("not plain",)


def test_an_error_in_a_later_block_is_placed_as_in_the_whole_file(monkeypatch):
    ex = "http://ex.org/"
    good = f"<{ex}a> <{ex}p> <{ex}b> .\n" * 50
    for bad in (f"<{ex}a> <{ex}p> <{ex}b>\n", f'<{ex}a> <{ex}p> "x"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'):
        src = Source((good + bad + good).encode(), "N_TRIPLES", "late.nt")
        with monkeypatch.context() as m:
            m.setattr(ntriples, "_BLOCK", 200)
            got = outcome(src, fast=True)
        assert got == outcome(src, fast=False)
        assert got[0] == "error" and got[3] in (51, 52)


# -- generated documents ----------------------------------------------------------------------------

def _mostly(good: list[str], bad: list[str]) -> st.SearchStrategy[str]:
    """One in ten draws from ``bad`` (so that most generated documents are valid and read fast)."""
    return st.integers(0, 9).flatmap(lambda k: st.sampled_from(bad if k == 0 else good))


_IRIS = _mostly(["<http://ex.org/a>", "<http://ex.org/b#x>", "<urn:x:y>", "<http://ex.org/é>", "<http://ex.org/%41>"],
                ["<http://ex.org/a\\u0062>", "<rel>", "<http://ex.org/a b>", "<http://[bad>",
                 "<https://w3id.org/holokb/current>"])
_BNODES = _mostly(["_:b", "_:b1", "_:x.y", "_:a-b", "_:0"], ["_:é", "_:b:c", "_:.x", "_:x."])
_LITERALS = _mostly([
    '"x"', '""', '"a b c"', '"a \\" b"', '"\\u00e9\\n"', '"x"@en', '"x"@EN-gb', '"x . y"',
    '"1"^^<http://www.w3.org/2001/XMLSchema#integer>', '"01"^^<http://www.w3.org/2001/XMLSchema#integer>',
    '"2.5"^^<http://www.w3.org/2001/XMLSchema#decimal>', '"x"^^<http://www.w3.org/2001/XMLSchema#string>'], [
    '"\\q"', '"x"@en--ltr', '"x"@1', '"x"^^<http://www.w3.org/2001/XMLSchema#integer>', '"x" ^^<http://ex.org/dt>',
    '"x"^^<rel>', "'x'", '"NaN"^^<http://www.w3.org/2001/XMLSchema#double>',
    '"a" . <http://ex.org/c> <http://ex.org/d> "b"'])
_SPACE = _mostly([" "], ["  ", "\t", ""])
_END = _mostly([" ."], [".", " . # c", "", " . ."])
_EOL = _mostly(["\n", "\r\n"], ["\r", ""])


@st.composite
def _line(draw) -> str:
    kind = draw(st.integers(0, 19))
    if kind == 0:
        return draw(st.sampled_from(["", "# a comment", "   ", "\t# x", "<<( <http://ex.org/a> <http://ex.org/p> "
                                     "<http://ex.org/b> )>> <http://ex.org/p> <http://ex.org/c> ."]))
    s = draw(st.one_of(_IRIS, _BNODES, _LITERALS) if kind == 1 else st.one_of(_IRIS, _BNODES))
    p = draw(st.one_of(_IRIS, _BNODES) if kind == 2 else _IRIS)
    o = draw(st.one_of(_IRIS, _BNODES, _LITERALS))
    g = draw(st.one_of(_IRIS, _BNODES)) if kind == 3 else None
    return s + draw(_SPACE) + p + draw(_SPACE) + o + (draw(_SPACE) + g if g else "") + draw(_END)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.tuples(_line(), _EOL), max_size=8), quads=st.booleans(),
       base=st.sampled_from([None, "http://ex.org/base/"]))
def test_generated_documents_read_the_same_with_the_fast_path(monkeypatch, lines, quads, base):
    text = "".join(line + eol for line, eol in lines)
    slow, fast, one_line = three_readings(Source(text.encode("utf-8"), "N_QUADS" if quads else "N_TRIPLES",
                                                 "gen.nt", base), monkeypatch)
    assert fast == slow
    assert one_line == slow
    if slow[0] == "ok":  # at most one triple per line
        assert len(slow[1]) <= len(lines)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200), valid=st.lists(st.sampled_from([
    b"<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .\n",
    b'<http://ex.org/a> <http://ex.org/p> "v"@en .\n']), max_size=4))
def test_random_bytes_read_the_same_with_the_fast_path(monkeypatch, data, valid):
    slow, fast, one_line = three_readings(Source(b"".join(valid) + data, "N_TRIPLES", "bytes.nt"), monkeypatch)
    assert fast == slow
    assert one_line == slow
    if not data:  # only valid lines: every one of them is read
        assert slow[0] == "ok" and len(slow[1]) == len(valid)
