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
