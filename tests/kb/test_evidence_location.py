"""Evidence naming a chunk its stored document lacks (issue 8, item 4): refused with the file:line:col
of the hk:chunk triple, as the parser read it — never a text search that could land in a comment."""
from __future__ import annotations

import pytest

from holokb.core import EvidenceError, parse_instant
from holokb.kb import KnowledgeBase
from holokb.resources import data_dir

BAD = """@prefix ex: <http://example.org/> .
@prefix hk: <https://w3id.org/holokb/> .
# ex:src_x hk:chunk "p9" in a comment, and ex:src_x hk:document "day-log.txt" too
ex:src_x { ex:Bob ex:locatedIn ex:Lab . }
ex:src_x hk:document "day-log.txt" ;
    hk:confidence 0.9 ;
    hk:chunk "p9" ; hk:charStart 0 ; hk:charEnd 3 .
"""


def test_a_missing_chunk_is_refused_at_the_annotation_triple(tmp_path):
    bad = tmp_path / "bad.trig"
    bad.write_text(BAD)
    with KnowledgeBase.open(tmp_path / "kb.db") as kb:
        kb.load([data_dir("kb")], at=parse_instant("2026-01-01"))
        before = kb.stats()
        with pytest.raises(EvidenceError) as got:
            kb.load([bad], at=parse_instant("2026-02-01"))
        (d,) = got.value.diagnostics
        assert d.code == "HK502" and d.hint == "did you mean 'p1'?"
        assert (d.location.file, d.location.line, d.location.column) == (str(bad), 7, 5)
        assert kb.stats() == before  # the rejected batch left the store as it was
