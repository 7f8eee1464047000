"""Reading the files of a ``/load`` request: one RDF body, or several files in multipart/form-data.

File names come from the client, so each must be a plain base name (no folders, no leading dot)
with a suffix holokb loads; the name decides the format, and text documents keep it as their
document id (evidence refers to ``day-log.txt``).
"""
from __future__ import annotations

import re

from starlette.requests import Request

from .errors import BadRequest, HttpProblem, Problem

#: Media type → file suffix for a single-document body.
SUFFIX = {"text/turtle": ".ttl", "application/x-turtle": ".ttl", "application/trig": ".trig",
          "application/n-triples": ".nt", "application/n-quads": ".nq", "application/rdf+xml": ".rdf",
          "text/plain": ".txt", "text/markdown": ".md"}
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$")
_KNOWN = (".ttl", ".trig", ".nt", ".nq", ".owl", ".rdf", ".txt", ".md")


def check_name(name: str) -> str:
    """``name`` if it is a safe base name with a known suffix, else 400."""
    if not _NAME.match(name) or ".." in name or not name.endswith(_KNOWN):
        raise BadRequest(f"file name {name!r} must be a plain name (letters, digits, _ . -) ending in "
                         f"{', '.join(_KNOWN)}", code="bad-file-name")
    return name


async def read_upload(request: Request, name: str | None) -> tuple[tuple[str, bytes], ...]:
    """The (name, bytes) pairs of a /load request, in the order sent (at least one)."""
    media = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    if media == "multipart/form-data":
        form = await request.form(max_files=1000, max_fields=1000)
        files: list[tuple[str, bytes]] = []
        try:
            for _, value in form.multi_items():
                if isinstance(value, str):
                    continue
                files.append((check_name(value.filename or ""), await value.read()))
        finally:
            await form.close()
        if not files:
            raise BadRequest("the multipart body has no files", code="no-files")
        if len({n for n, _ in files}) != len(files):
            raise BadRequest("two files have the same name", code="duplicate-file-name")
        return tuple(files)
    suffix = SUFFIX.get(media)
    if suffix is None:
        raise HttpProblem(Problem(415, "unsupported-media-type", f"cannot load Content-Type {media or '(none)'}; use "
                                  f"{', '.join(sorted(SUFFIX))} or multipart/form-data"))
    body = await request.body()
    if not body:
        raise BadRequest("the body is empty", code="empty-body")
    filename = check_name(name) if name else "upload" + suffix
    if not filename.endswith(suffix) and suffix != ".ttl":
        raise BadRequest(f"name={name!r} does not end in {suffix}, the suffix of {media}", code="bad-file-name")
    return ((filename, body),)
