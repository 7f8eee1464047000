"""Rules over the ledger: load rule files, build the engine's input at an AsOf, read goals.

This is the seam between the RDF/ledger side and the engine (which sees neither): the ledger's
integer term ids seed the engine's dictionary, so no term is decoded unless a rule needs its value.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

import numpy as np

from .analysis import Atom, Program, Query, analyze
from .core import HK, AsOf, AssertedRef, Deadline, HolokbError, IRI, RuleFileRef, Term
from .core.inputs import rule_files  # noqa: F401  (re-exported: callers name it here)
from .engine import Database, TermDictionary
from .engine.database import KeyColumn
from .ledger import Ledger
from .core.arrays import distinct

if TYPE_CHECKING:
    from .analysis.lint import Census
    from .engine import Model
    from .engine.encoded import EncodedColumns
    from .ledger.derived_columns import DerivedColumns


#: The ternary relation holding every visible triple, for rules that quantify over properties.
TRIPLE = HK + "triple"


def load_program(paths: Iterable[str | Path]) -> Program:
    """Parse and check rule files together as one program (all diagnostics at once), bridged:
    entailment rules over ``hk:triple`` and user rules over binary predicates see each other's
    conclusions (:mod:`holokb.bridge`)."""
    from .bridge import bridge
    from .syntax import parse_rules  # lark loads here, not when a cached program is used

    files = rule_files(paths)
    if not files:
        return analyze(parse_rules(""))
    if len(files) == 1:
        from .syntax import parse_file

        return bridge(analyze(parse_file(files[0]))).program
    # Several files: one synthetic module that includes each (absolute paths, so diagnostics name them).
    text = "".join(f'@include "{f.resolve().as_posix()}" .\n' for f in files)
    return bridge(analyze(parse_rules(text, file=str(Path.cwd() / "<rules>")))).program


def _prefix_block(program: Program) -> str:
    return "".join(f"@prefix {p}: <{ns}> .\n" for p, ns in program.prefixes)


def _snippet(text: str, program: Program, file: str) -> Program:
    """Parse and check a one-statement snippet with the program's prefixes and predicates."""
    from .syntax import parse_rules

    return analyze(parse_rules(_prefix_block(program) + text, file=file), known_predicates=_known(program))


def _terminated(text: str) -> str:
    t = text.strip()
    return t if t.endswith(".") else t + " ."


def parse_query(text: str, program: Program) -> Query:
    """``?- body.`` (the ``?-`` and final dot may be omitted) with the program's prefixes."""
    t = text.strip()
    prog = _snippet(_terminated(t if t.startswith("?-") else "?- " + t), program, "<query>")
    if len(prog.queries) != 1:
        raise HolokbError(f"expected one query, got {len(prog.queries)}")
    return prog.queries[0]


def parse_ground_atom(text: str, program: Program) -> Atom:
    """A ground fact such as ``ex:hasCapability(ex:AchillesIDE, ex:sandboxing)``."""
    prog = _snippet(_terminated(text), program, "<fact>")
    if len(prog.facts) != 1:
        raise HolokbError(f"expected one ground fact, got {text!r}")
    return prog.facts[0]


def _known(program: Program) -> dict[str, int]:
    known = {p: d.arity for p, d in program.vocabulary.items()}
    for r in program.rules:
        if r.head is not None:
            known.setdefault(r.head.predicate, r.head.arity)
    return known


def census(ledger: Ledger, as_of: AsOf | None = None) -> "Census":
    """What rules can read from the ledger (for :func:`analysis.lint.lint`): the predicates and
    rdf:type classes of the facts visible at ``as_of``, and those with facts only at other times;
    with ``as_of=None``, of every fact ever recorded."""
    from .analysis.lint import Census
    from .core import MAX_TIME, RDF_TYPE, format_ms

    ever_p, ever_c = ledger.relations()
    if as_of is None:
        return Census(ever_p, ever_c)
    enc = ledger.encoded_visible(as_of)
    preds: dict[int, Term] = {pid: ledger.term(pid) for pid in distinct(enc.p).tolist()} if len(enc) else {}
    classes: set[str] = set()
    type_id = next((pid for pid, t in preds.items() if isinstance(t, IRI) and t.value == RDF_TYPE), None)
    if type_id is not None:
        for oid in distinct(enc.o[enc.p == type_id]).tolist():
            t = ledger.term(oid)
            if isinstance(t, IRI):
                classes.add(t.value)
    visible = frozenset(t.value for t in preds.values() if isinstance(t, IRI))

    def at(t: int) -> str:
        return "latest" if t == MAX_TIME else format_ms(t)

    when = f"visible at system time {at(as_of.system)}, valid time {at(as_of.valid)}"
    return Census(visible, frozenset(classes), when, ever_p - visible, ever_c - frozenset(classes))


def database_at(ledger: Ledger, as_of: AsOf, program: Program | None = None, *,
                deadline: Deadline | None = None) -> Database:
    """The facts recorded at ``as_of.system`` over the whole valid-time axis, as engine input keyed by
    ledger fact id, with confidences (the engine works out what holds at ``as_of.valid`` and for how
    long: a conclusion through ``not`` depends on when the negated fact held).

    Only predicates the program mentions are loaded when a program is given.  When ``deadline``
    expires while reading, what was read so far is returned: the closure, which checks the same
    deadline before its first step, then derives nothing and says it was cut.
    """
    return input_at(ledger, as_of, program, deadline=deadline, fact_rows=False)[0]


class FactRows(Mapping[str, int]):
    """The ledger row id of each asserted fact :func:`input_at` read, by fact id (the dict is built on
    first use: :func:`stored_columns` reads the row ids of input keys by position instead).
    ``fact_ids`` is a sequence of fact ids (hex) parallel to ``rowids``, read when first indexed."""

    def __init__(self, fact_ids: Sequence[str] = (), rowids: np.ndarray | None = None) -> None:
        self.fact_ids = fact_ids
        self.rowids = rowids
        self._by_id: dict[str, int] | None = None

    def _map(self) -> dict[str, int]:
        if self._by_id is None:
            self._by_id = {} if self.rowids is None else dict(zip(self.fact_ids, self.rowids.tolist()))
        return self._by_id

    def __getitem__(self, fact_id: str) -> int:
        return self._map()[fact_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._map())

    def __len__(self) -> int:
        return len(self._map())


def input_at(ledger: Ledger, as_of: AsOf, program: Program | None = None, *, deadline: Deadline | None = None,
             fact_rows: bool = True) -> tuple[Database, Mapping[str, int]]:
    """:func:`database_at` and (``fact_rows``) the ledger row id of each asserted fact it read, by fact
    id (a stored closure names its asserted premises by row id: :func:`stored_columns`).

    The facts are read as id columns (:meth:`Ledger.recorded_facts`); input keys are
    :class:`~holokb.engine.database.KeyColumn` s of positions in the rows read (an :class:`AssertedRef`
    is built only for a key asked for); with ``fact_rows`` their tag is the returned :class:`FactRows`, so
    :func:`stored_columns` maps them to row ids in one array step, and a fact's hash is read only when its
    key is decoded, while the ledger is open (:class:`~holokb.ledger.derived_input.FactHashes`); without,
    every hash is read now (the models database_at feeds may outlive the open ledger)."""
    enc = ledger.recorded_facts(as_of.system)
    terms = TermDictionary()
    db = Database(terms)
    rows: Mapping[str, int] = {}
    if len(enc) == 0:
        _add_program_facts(db, program)
        return db, rows
    if deadline is not None and deadline.expired():
        return db, rows
    used = distinct(np.concatenate([enc.s, enc.p, enc.o])).tolist()
    terms.seed_many(used, ledger.terms(used))
    if deadline is not None and deadline.expired():
        return db, rows
    hashes = ledger.fact_hashes(enc.rowids)
    if fact_rows:
        rows = FactRows(hashes, enc.rowids)
    else:  # a model database_at feeds may outlive the open ledger: its input keys are read now
        hashes = hashes.all()  # type: ignore[assignment]
    keys = KeyColumn(np.arange(len(enc), dtype=np.int64), lambda i: AssertedRef(hashes[i]),
                     rows if isinstance(rows, FactRows) else None)
    confidence = ledger.row_confidences(enc.rowids)
    wanted = None
    if program is not None:
        wanted = mentioned_predicates(program)
    by_p = np.argsort(enc.p, kind="stable")  # each predicate's rows, in read order
    pids = enc.p[by_p]
    starts = np.flatnonzero(np.r_[True, pids[1:] != pids[:-1]])
    for pid, a, b in zip(pids[starts].tolist(), starts.tolist(), [*starts[1:].tolist(), len(pids)]):
        pred = ledger.term(pid)
        if not isinstance(pred, IRI) or (wanted is not None and pred.value not in wanted):
            continue
        m = by_p[a:b]
        db.add_ids(pred.value, [enc.s[m], enc.o[m]], valid_from=enc.valid_from[m], valid_to=enc.valid_to[m],
                   confidence=confidence[m], keys=keys.take(m))
    if wanted is not None and TRIPLE in wanted:
        # Rules that quantify over properties (rules/rdfs.hkr, rules/owl2rl.hkr) read every visible
        # triple through one ternary relation hk:triple(s, p, o).
        db.add_ids(TRIPLE, [enc.s, enc.p, enc.o], valid_from=enc.valid_from, valid_to=enc.valid_to,
                   confidence=confidence, keys=keys)
    _add_program_facts(db, program)
    return db, rows


def stored_columns(model: "Model", columns: "EncodedColumns", fact_rows: Mapping[str, int]) -> "DerivedColumns":
    """The closure's proof steps (:func:`holokb.engine.encoded.encoded_columns` of a model over
    :func:`input_at`'s input, so engine ids of input terms are ledger ids) as the ledger stores them:
    asserted premises by the row ids ``fact_rows`` gives, premises written in rule files left out
    (:func:`holokb.kb.derived_records` leaves them out too), derived premises past ``columns.count``
    (a deadline cut the steps) left out as well."""
    from .ledger.derived_columns import DerivedColumns, DerivedGroup

    input_codes: dict = {}

    def codes_of(rk) -> np.ndarray:
        hit = input_codes.get(rk)
        if hit is None:
            keys = model.input_keys[rk]
            if isinstance(keys, KeyColumn) and keys.tag is fact_rows and isinstance(fact_rows, FactRows):
                codes = keys.codes  # >= 0: positions in the rows input_at read; < 0: a key object each
                hit = fact_rows.rowids[np.maximum(codes, 0)]
                for i in np.flatnonzero(codes < 0).tolist():
                    k = keys[i]
                    hit[i] = fact_rows[k.fact_id] if k.__class__ is AssertedRef else 0
                input_codes[rk] = hit
                return hit
            try:
                hit = input_codes[rk] = np.fromiter(
                    (fact_rows[k.fact_id] if k.__class__ is AssertedRef else 0 for k in keys), np.int64, len(keys))
            except KeyError as e:  # an input fact input_at did not read: the model is not over this input
                raise HolokbError(f"premise fact {str(e.args[0])[:12]}… is not one input_at read") from None
        return hit

    n = columns.count
    groups = []
    for g in columns.groups:
        m = len(g.facts)
        premises = np.zeros((m, len(g.premises)), dtype=np.int64)
        for c, p in enumerate(g.premises):
            code = np.zeros(m, dtype=np.int64)
            d = p.derived
            code[d] = np.where(p.value[d] < n, -1 - p.value[d], 0)
            if not d.all():
                code[~d] = codes_of(p.relation)[p.value[~d]]
            premises[:, c] = code
        names = tuple(name for name, _ in g.bindings)
        bindings = np.stack([v for _, v in g.bindings], axis=1) if names else np.zeros((m, 0), dtype=np.int64)
        groups.append(DerivedGroup(g.facts, premises, names, bindings))
    return DerivedColumns(tuple(groups), n, {i: model.terms.term(i) for i in columns.minted})


def _add_program_facts(db: Database, program: Program | None) -> None:
    """Ground facts written in rule files are input facts too (keyed by their rule-file position)."""
    if program is None:
        return
    from .analysis import Const

    for a in program.facts:
        args: list[Term] = [x.term for x in a.args if isinstance(x, Const)]
        db.add(a.predicate, tuple(args), key=RuleFileRef(a.origin), negated=a.negated)


#: The public name (the intuition loop builds engine inputs from candidate facts too).
add_program_facts = _add_program_facts


def mentioned_predicates(program: Program) -> set[str]:
    """Every predicate a rule head or body, constraint or query of the program mentions."""
    from .analysis.program import body_atoms

    preds: set[str] = set()
    for r in program.rules + program.constraints:
        if r.head is not None:
            preds.add(r.head.predicate)
        preds.update(a.predicate for a in body_atoms(r.body))
    for q in program.queries:
        preds.update(a.predicate for a in body_atoms(q.body))
    return preds
