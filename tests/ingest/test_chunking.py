from hypothesis import given, strategies as st

from holokb.ingest import chunk_paragraphs


def test_paragraphs_split_on_blank_lines_and_trim():
    text = "Title line.\n\nFirst para\nstill first.  \n\n\n  Second.\n"
    chunks = chunk_paragraphs(text)
    assert [text[c.start:c.end] for c in chunks] == ["Title line.", "First para\nstill first.", "Second."]
    assert [c.chunk_id for c in chunks] == ["p0", "p1", "p2"]


def test_empty_and_blank_documents_have_no_chunks():
    assert chunk_paragraphs("") == ()
    assert chunk_paragraphs(" \n\n\t\n") == ()


@given(st.lists(st.text(alphabet="ab .\n", min_size=0, max_size=30), max_size=6))
def test_chunks_cover_all_non_space_text_in_order(parts):
    text = "\n\n".join(parts)
    chunks = chunk_paragraphs(text)
    covered = "".join(text[c.start:c.end] for c in chunks)
    assert "".join(covered.split()) == "".join(text.split())
    assert all(a.end <= b.start for a, b in zip(chunks, chunks[1:]))
    assert all(not text[c.start].isspace() and not text[c.end - 1].isspace() for c in chunks)
