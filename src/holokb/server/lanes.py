"""Which lane a job runs in: the fast lane for lookups whose cost is bounded by one entity's
statements, the write lane for writes, the general lane for everything else.

The general lane runs LUBM-style joins, closures and answers, which take hundreds of milliseconds
to seconds; a point query queued behind them waits that long although its own work takes half a
millisecond.  So point lookups get worker processes of their own (at normal CPU priority, while
the general lane's workers run niced), and never queue behind heavy work.  Both lanes keep the
same deadline (a fast-lane worker past it is killed like any other).  Writes get one worker of
their own too: they never wait for heavy reads to finish, and they run one at a time in one
process (SQLite takes one writer anyway); that worker builds no snapshot unless asked to read.

The test is syntactic and conservative — a wrong "no" only costs latency, so anything unusual is
general: a SELECT or ASK whose WHERE is one flat group of at most :data:`MAX_PATTERNS` triple
patterns, each with a constant subject (an IRI or prefixed name), at most one with a variable
predicate, and nothing else (no FILTER, OPTIONAL, UNION, GRAPH, subquery, path, aggregate,
ORDER BY, literal with a datatype or number).  Such a query touches only the statements of the
subjects it names.
"""
from __future__ import annotations

import re

import enum

from .jobs import FactsRead, HistoryRead, IngestText, Job, LoadFiles, SparqlQuery, SparqlUpdate

MAX_PATTERNS = 6

_STRING = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"(?:@[A-Za-z0-9-]+)?'
                     r'|\'(?:[^\'\\\n]|\\.)*\'(?:@[A-Za-z0-9-]+)?')
_IRI = re.compile(r'<[^<>"{}|^`\\\s]*>')
_COMMENT = re.compile(r"#[^\n]*")
_PROLOGUE = re.compile(r"^\s*(?:(?:PREFIX\s+[A-Za-z0-9_.-]*:\s*I|BASE\s+I)\s*)*", re.I)
_SHAPE = re.compile(r"^(?:SELECT\s+(?:(?:DISTINCT|REDUCED)\s+)?(?:\*|(?:[?$]\w+\s*)+)|ASK)\s*(?:WHERE\s*)?"
                    r"\{([^{}]*)\}\s*(?:(?:LIMIT|OFFSET)\s+\d+\s*)*$", re.I)
_PNAME = re.compile(r"^[A-Za-z][\w-]*(?:\.[\w-]+)*:[\w-]*(?:\.[\w-]+)*$|^:[\w-]*$")
_FORBIDDEN = re.compile(r"[()\[\]/|^*+!\\=<>]|\d")


def is_point_query(text: str) -> bool:
    """True when ``text`` is a lookup the fast lane may run (see the module doc)."""
    if len(text) > 4000:
        return False
    plain = _COMMENT.sub(" ", _IRI.sub(" I ", _STRING.sub(' "S" ', text)))
    plain = plain[_PROLOGUE.match(plain).end():]  # type: ignore[union-attr]  # the pattern always matches
    m = _SHAPE.match(plain.strip())
    if m is None:
        return False
    body = m.group(1)
    if _FORBIDDEN.search(body):
        return False
    patterns = variable_predicates = 0
    for statement in re.split(r"\.(?=\s|$)", body):
        tokens = statement.split()
        if not tokens:
            continue
        subject = tokens[0]
        if subject != "I" and not _PNAME.match(subject):
            return False
        for part in " ".join(tokens[1:]).split(";"):
            words = part.split()
            if not words:
                continue
            if len(words) < 2:
                return False
            pred, objects = words[0], " ".join(words[1:]).split(",")
            if pred[0] in "?$":
                variable_predicates += 1
            elif pred != "a" and pred != "I" and not _PNAME.match(pred):
                return False
            for obj in objects:
                o = obj.split()
                if len(o) != 1 or not (o[0] in ("I", '"S"') or o[0][0] in "?$" or _PNAME.match(o[0])):
                    return False
                patterns += 1
    return 0 < patterns <= MAX_PATTERNS and variable_predicates <= 1


class Lane(enum.Enum):
    FAST = "fast"
    WRITE = "write"
    GENERAL = "general"


def lane_of(job: Job) -> Lane:
    """The lane ``job`` belongs in."""
    if isinstance(job, (LoadFiles, IngestText, SparqlUpdate)):
        return Lane.WRITE
    if isinstance(job, SparqlQuery):
        return Lane.FAST if not job.ledger_view and is_point_query(job.text) else Lane.GENERAL
    if isinstance(job, FactsRead):
        return Lane.GENERAL if job.derived else Lane.FAST
    return Lane.FAST if isinstance(job, HistoryRead) else Lane.GENERAL
