"""Staging on two cores: a forked worker reads the chunks and hashes them while this process stages.

:func:`forked_chunks` runs a chunk source (a parse, say) in a child process made with
``fork``.  For each chunk the child also computes what depends on that chunk alone: the
canonical encoding of every new term (:func:`holokb.ledger.canon.canon_of`) and the fact hash
of every triple, and sends them through a pipe.  This process meanwhile stages the chunk before
(term ids, de-duplication, the rows and their inserts; :mod:`holokb.ledger.plain`), so the parse,
the encodings and the SHA-256 calls (about 0.4 s of ~1.1 s CPU for LUBM(1,0)) leave the critical
path.  The chunks are exactly the source's: term ids, fact ids and rows do not change.

When the child fails for any reason (a syntax error in the file, ``NotPlain``, a crash), this
process runs the source itself, skips the chunks it already has and goes on from there, so the
error raised is the in-process one, with its file:line:col.  The child touches no SQLite
connection and leaves with ``os._exit``.  Fork is used only where it is safe and pays: a POSIX
system with two or more cores and no other thread running in this process.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import signal
import threading
from typing import Callable, Iterator, Sequence

from ..core.terms import IRI, Literal, Term, stored_iri, stored_literal
from .canon import canon_of
from .sql import FACT_MAGIC

PlainChunk = tuple[Sequence[Term], Sequence[int]]
#: (new terms packed (staging reads their fields; :func:`unpack_terms` makes Terms of them),
#: flat s, p, o indices, canonical encodings of the new terms, the 32-byte fact hash of every
#: triple of the chunk, joined in order, or None when the parent hashes: see :func:`forked_chunks`).
HashedChunk = tuple[Sequence[Term], Sequence[int], list[bytes], "bytes | None"]

#: Inputs smaller than this are read in this process (a fork costs a few milliseconds).
FORK_MIN_BYTES = 256 * 1024

FORK_MIN_RECORDS = 20_000

#: A plain fact's encoding after its terms: no qualifiers, affirmed.
PLAIN_FACT_TAIL = b"\x00\x00\x00\x00\x01"


def can_fork() -> bool:
    """Whether :func:`forked_chunks` would fork here (else it runs the source in this process)."""
    return hasattr(os, "fork") and (os.cpu_count() or 1) >= 2 and threading.active_count() == 1


def worth_forking_records(n: int) -> bool:
    """Whether ``n`` span records in a list should be read by a forked worker."""
    return n >= FORK_MIN_RECORDS and can_fork()


def worth_forking(input_bytes: int) -> bool:
    """Whether an input of this size should be read by a forked worker."""
    return input_bytes >= FORK_MIN_BYTES and can_fork()


def forked_chunks(source: Callable[[], Iterator[PlainChunk]], *, hashes: bool = True
                  ) -> Iterator[PlainChunk | HashedChunk]:
    """The chunks of ``source()``, read (and hashed) by a forked child when :func:`can_fork` (as
    :data:`HashedChunk`, terms packed); else (or after the child failed) by this process, as the
    source gives them.  ``hashes=False``: the child leaves the fact hashes to this process (None
    in the chunk), which then hashes only the facts it keeps.  That pays where the child is the
    critical path and this process mostly waits for it (an N-Triples parse: LUBM(1,0)'s child
    spends ~0.3 s parsing and ~0.09 s hashing, this process ~0.2 s staging); where this
    process's staging is the heavier side (records already in memory), the child hashes."""
    if not can_fork():
        yield from source()
        return
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(r)
        _child(source, w, hashes)
    os.close(w)
    got = 0
    finished = False
    try:
        with os.fdopen(r, "rb") as pipe:
            while True:
                try:
                    msg = pickle.load(pipe)
                except (EOFError, pickle.UnpicklingError):
                    break  # the child died: redo the rest here
                if msg is None:
                    finished = True
                    break
                if msg == "failed":
                    break
                # The terms stay packed (see :func:`unpack_terms`): staging needs only their fields.
                yield msg
                got += 1
    finally:
        if not finished:
            _stop(pid)
        else:
            os.waitpid(pid, 0)
    if not finished:
        # The in-process source raises the child's error (with its location) or, after a crash,
        # delivers the rest of the chunks.
        for k, chunk in enumerate(source()):
            if k >= got:
                yield chunk


def fact_hashes(canon: Sequence[bytes], spo: Sequence[int]) -> list[bytes]:
    """The fact hashes (``Fact.id`` bytes) of plain triples given by flat term indices."""
    sha = hashlib.sha256
    it = iter(spo)
    # bytes bind as BLOBs; one join and one sha256 call per fact is the floor in Python.
    return [sha(b"".join((FACT_MAGIC, canon[s], canon[p], canon[o], PLAIN_FACT_TAIL))).digest()
            for s, p, o in zip(it, it, it)]


def _child(source: Callable[[], Iterator[PlainChunk]], w: int, hashes: bool) -> None:
    code = 0
    try:
        with os.fdopen(w, "wb") as out:
            canon: list[bytes] = []
            try:
                for terms, spo in source():
                    new = list(map(canon_of, terms))
                    canon.extend(new)
                    every = b"".join(fact_hashes(canon, spo)) if hashes else None
                    pickle.dump(([_pack(t) for t in terms], list(spo), new, every), out, protocol=pickle.HIGHEST_PROTOCOL)
                    out.flush()
                msg: object = None
            except BaseException:  # noqa: BLE001 - any failure: the parent redoes the work and raises
                msg = "failed"
            pickle.dump(msg, out, protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # noqa: BLE001 - a closed pipe: the parent is gone or stopped reading
        code = 1
    finally:
        os._exit(code)


def unpack_terms(items: list) -> None:
    """Make Terms, in place, of the packed terms in ``items`` (Terms among them stay as they are)."""
    items[:] = map(unpack_term, items)


def _pack(t: Term) -> object:
    # Rebuilding an IRI or Literal from its fields is ~10x cheaper than unpickling the dataclass;
    # staging reads the fields without rebuilding at all (1M facts: 0.77 s CPU less).
    if t.__class__ is IRI:
        return t.value
    if t.__class__ is Literal:
        return (t.lexical, t.datatype, t.lang)
    return t


def unpack_term(x: object) -> Term:
    """The Term of a packed term (a Term stays as it is)."""
    # The child built (and so validated) these terms; their fields are set as the dataclass would.
    if x.__class__ is str:
        return stored_iri(x)  # type: ignore[arg-type]
    if x.__class__ is tuple:
        return stored_literal(*x)  # type: ignore[misc]
    return x  # type: ignore[return-value]


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
