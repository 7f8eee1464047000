"""docs/english.md: every row of its tables (sentence | reading) is what the controlled-English reader reads."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from holokb.ingest.english import EnglishReader
from holokb.ingest.english.reading import describe

DOC = Path(__file__).resolve().parents[2] / "docs" / "english.md"
_ROW = re.compile(r"^\| (?P<sentence>[A-Z][^|]*?) \| `(?P<reading>.*)` \|$")


def _rows() -> list[tuple[str, list[str]]]:
    rows = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if m:
            rows.append((m["sentence"], [r.strip() for r in m["reading"].split(r"\|")]))
    return rows


ROWS = _rows()


def test_the_doc_has_its_tables():
    assert len(ROWS) >= 40
    assert any(r[1][0].startswith("skip:") for r in ROWS) and any("->" in r[1][0] for r in ROWS)


@pytest.fixture(scope="module")
def reader() -> EnglishReader:
    return EnglishReader()


@pytest.mark.parametrize("sentence,expected", ROWS, ids=[r[0][:40] for r in ROWS])
def test_doc_row(reader, sentence, expected):
    assert sorted(describe(reader.read(sentence))) == sorted(expected)
