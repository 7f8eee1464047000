"""Engine/parser bugs the external suites exposed, each pinned by a test named after its case."""
from holokb.analysis import analyze
from holokb.core import IRI
from holokb.core.terms import XSD_DOUBLE, Literal
from holokb.engine import Database, closure
from holokb.syntax import parse_rules


def test_souffle_float_equality_typed_literal_with_full_iri():
    # "-0.0"^^<http://www.w3.org/2001/XMLSchema#double> was read as a prefixed name '<http:' (HK104).
    m = parse_rules('rule r: <http://t/p>(?x) :- <http://t/q>(?x), ?x = "-0.0"^^<http://www.w3.org/2001/XMLSchema#double>.')
    cmp = m.rules[0].body[1]
    assert cmp.right.term == Literal("-0.0", XSD_DOUBLE)


def test_souffle_numeric_binary_constraint_op_compares_doubles():
    text = ('rule r: <http://t/lt>("yes") :- <http://t/x>(?a), '
            '"0.999"^^<http://www.w3.org/2001/XMLSchema#double> < "1.0"^^<http://www.w3.org/2001/XMLSchema#double>.')
    db = Database()
    db.add("http://t/x", (IRI("http://t/a"),))
    model = closure(analyze(parse_rules(text), rdf_types=False), db)
    assert model.relation("http://t/lt") == ((Literal("yes"),),)


def test_souffle_operators_translate_at_souffles_precedences():
    """``^`` binds tighter than unary minus and associates to the right; the word operators bind
    looser than ``+ -`` in Soufflé's order (lor < lxor < land < bor < bxor < band < shifts); ``bnot``
    and ``lnot`` are prefix; ``to_number`` of a float truncates (Soufflé's overload)."""
    from datalog_ir import run
    from souffle_translate import parse_souffle

    cases = {
        "-2^2": -(2 ** 2), "2^3^2": 2 ** (3 ** 2), "2*3^2": 2 * 3 ** 2,
        "1 bor 2 band 3": 1 | (2 & 3), "6 bxor 3 bor 8": (6 ^ 3) | 8, "1 + 2 bshl 3": (1 + 2) << 3,
        "bnot 5 + 1": ~5 + 1, "12 bshr 1 + 1": 12 >> 2, "lnot 0 land 3": int(bool(1) and bool(3)),
        "0 lor 2 land 0": int(bool(0) or (bool(2) and bool(0))), "5 lxor 0": 1,
        "to_number(-2.7 * 2.0)": -5, "ftoi(7.9) + to_number(itof(3))": 10,
    }
    text = "".join(f".decl r{k}(x: number)\nr{k}(x) :- x = {e}.\n.output r{k}\n" for k, e in enumerate(cases))
    res = run(parse_souffle(text).program)
    for k, (e, want) in enumerate(cases.items()):
        assert dict(res.relations[f"r{k}"]) == {(str(want),): 1}, e  # rows as cell text, with counts


def test_souffle_correlated_aggregate_counts_per_outer_binding():
    """``n = count : { a(x), x < y }`` with ``y`` bound outside: the aggregate is decorrelated (the
    outer atom that binds ``y`` joins its auxiliary rule), one count per ``y``, 0 where none (Soufflé)."""
    from datalog_ir import run
    from souffle_translate import parse_souffle

    text = """
    .decl a(x: number)
    a(1). a(2). a(3).
    .decl q(y: number)
    q(0). q(2). q(3). q(9).
    .decl r(y: number, n: number)
    r(y, n) :- q(y), n = count : { a(x), x < y }.
    .decl s(y: number, t: number)
    s(y, t) :- q(y), t = sum x : { a(x), x >= y }.
    .output r, s
    """
    res = run(parse_souffle(text).program)
    assert dict(res.relations["r"]) == {("0", "0"): 1, ("2", "1"): 1, ("3", "2"): 1, ("9", "3"): 1}
    assert dict(res.relations["s"]) == {("0", "6"): 1, ("2", "5"): 1, ("3", "3"): 1, ("9", "0"): 1}


def test_souffle_range_of_constants_enumerates_toward_the_bound():
    from datalog_ir import run
    from souffle_translate import parse_souffle

    text = """
    .decl up(x: number)
    up(x) :- x = range(1, 4).
    .decl down(x: number)
    down(x) :- x = range(4, 1).
    .decl away(x: number)
    away(x) :- x = range(1, 5, -1).
    .decl still(x: number)
    still(x) :- x = range(7, 9, 0).
    .decl quarter(x: float)
    quarter(x) :- x = range(0, 1, 0.25).
    .decl evens(n: number)
    evens(n) :- n = count : { i = range(0, 10), i % 2 = 0 }.
    .output up, down, away, still, quarter, evens
    """
    rel = run(parse_souffle(text).program).relations
    cells = lambda r: sorted(c for (c,) in rel[r])  # noqa: E731
    assert cells("up") == ["1", "2", "3"] and cells("down") == ["2", "3", "4"] and cells("away") == []
    assert cells("still") == ["7"] and cells("evens") == ["5"]
    assert sorted(float(c) for c in cells("quarter")) == [0.0, 0.25, 0.5, 0.75]


def test_souffle_components_instantiate_inherit_and_override():
    """Instances name their relations x.R (nested x.y.R); a name resolves to the innermost scope
    declaring it, else the enclosing instance's; bases' items are inherited and .override drops the
    clauses a base states directly (not those of instances it makes); type parameters are replaced."""
    from datalog_ir import run
    from souffle_translate import parse_souffle

    text = """
    .decl seen(n: number)
    .comp Graph<N> {
        .decl edge(a: N, b: N)
        .decl reach(a: N, b: N) overridable
        reach(x, y) :- edge(x, y).
        reach(x, z) :- reach(x, y), edge(y, z).
        .comp Note { seen(7). }
        .init note = Note
    }
    .comp Sym<N> : Graph<N> {
        .override reach
        reach(x, y) :- edge(x, y).
        reach(x, y) :- edge(y, x).
    }
    .comp Net {
        .init g = Graph<number>
        .decl e(a: number, b: number)
        g.edge(x, y) :- e(x, y).
        .decl r(a: number, b: number)
        r(x, y) :- g.reach(x, y).
    }
    .init net = Net
    .init s = Sym<number>
    net.e(1, 2). net.e(2, 3).
    s.edge(1, 2).
    .output net.r, s.reach, seen
    """
    rel = run(parse_souffle(text).program).relations
    assert set(rel["net.r"]) == {("1", "2"), ("2", "3"), ("1", "3")}
    assert set(rel["s.reach"]) == {("1", "2"), ("2", "1")}  # Graph's transitive rules overridden
    assert set(rel["seen"]) == {("7",)}  # a nested instance's clause on an outer relation


def test_souffle_records_are_patterns_in_bodies_and_values_in_heads():
    """Lists built recursively from records (nil ends them), read back by patterns in body atoms,
    nested patterns, _ inside a pattern, a negated pattern of bound variables, v = [..] with only v
    bound (destructured) and with all of it bound (built)."""
    from datalog_ir import run
    from souffle_translate import parse_souffle

    text = """
    .type List = [head: number, tail: List]
    .type Pair = [a: number, b: number]
    .decl n(x: number)
    n(1). n(2).
    .decl l(x: List)
    l(nil).
    l([x, t]) :- n(x), l(t), t = nil.
    l([x, [y, nil]]) :- n(x), n(y), x < y.
    .decl heads(x: number)
    heads(x) :- l([x, _]).
    .decl seconds(y: number)
    seconds(y) :- l([_, [y, _]]).
    .decl p(x: Pair)
    p([1, 2]). p([2, 2]).
    .decl unlisted(x: number, y: number)
    unlisted(x, y) :- n(x), n(y), !p([x, y]).
    .decl parts(a: number, b: number)
    parts(a, b) :- p(r), r = [a, b].
    .decl known(a: number)
    known(a) :- n(a), n(b), p(r), r = [a, b].
    .output heads, seconds, unlisted, parts, known
    """
    rel = run(parse_souffle(text).program).relations
    assert set(rel["heads"]) == {("1",), ("2",)} and set(rel["seconds"]) == {("2",)}
    assert set(rel["unlisted"]) == {("1", "1"), ("2", "1")}
    assert set(rel["parts"]) == {("1", "2"), ("2", "2")} and set(rel["known"]) == {("1",), ("2",)}


def test_souffle_record_cells_read_and_print_as_souffle_writes_them():
    from datalog_ir import cell_text, term_of
    from souffle_io import read_record
    from souffle_translate import parse_souffle

    sp = parse_souffle(".type T = [left: T, val: number, name: symbol]\n.decl t(x: T)\n.output t\n")
    text = "[[nil, 1, a b], 2, c]"
    value = term_of(read_record(text, "T", sp.records))
    assert cell_text(value) == text
    assert cell_text(term_of(read_record("nil", "T", sp.records))) == "nil"


def test_souffle_adts_build_match_and_print_as_souffle():
    from datalog_ir import run
    from souffle_translate import parse_souffle

    text = """
    .type Shape = Circle {r: number} | Rect {w: number, h: number} | Dot {}
    .decl s(x: Shape)
    s($Circle(2)). s($Rect(1, 3)). s($Dot).
    .decl area(a: number)
    area(3 * r * r) :- s($Circle(r)).
    area(w * h) :- s($Rect(w, h)).
    .decl rects(x: Shape)
    rects(x) :- s(x), x = $Rect(_, _).
    .decl other(x: Shape)
    other(x) :- s(x), x != $Dot, !rects(x).
    .output area, rects, other
    """
    rel = run(parse_souffle(text).program).relations
    assert set(rel["area"]) == {("12",), ("3",)}
    assert set(rel["rects"]) == {("$Rect(1, 3)",)} and set(rel["other"]) == {("$Circle(2)",)}


def test_souffle_aggregate_locals_and_outer_equalities():
    """A variable the aggregate body computes is local to it (``mean x : { x = z + 1, a(z) }``); a
    variable an equality outside grounds (``(z = 0; z = 1)``) is the rule's, and the body that
    compares with it is decorrelated per value."""
    from datalog_ir import run
    from souffle_translate import parse_souffle

    text = """
    .decl a(x: number)
    a(1). a(2). a(3). a(6).
    .decl m(y: number)
    m(y) :- y = sum x : { x = z + 1, a(z) }.
    .decl parity(z: number, n: number)
    parity(z, n) :- (z = 0; z = 1), n = count : { a(k), k % 2 = z }.
    .output m, parity
    """
    rel = run(parse_souffle(text).program).relations
    assert set(rel["m"]) == {("16",)}
    assert set(rel["parity"]) == {("0", "2"), ("1", "2")}
