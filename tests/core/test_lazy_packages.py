"""The packages whose names load on first use (``holokb``, ``holokb.core``, ``holokb.ledger``):
every exported name resolves to the object of the module the table names, the table says what the
``TYPE_CHECKING`` imports say (what type checkers and readers see), and importing one module does
not load the others (what a warm ``holokb query`` relies on)."""
from __future__ import annotations

import ast
import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def _checked_imports(package) -> dict[str, str]:
    """name -> module of the imports inside the package's ``if TYPE_CHECKING:`` block."""
    tree = ast.parse(inspect.getsource(package))
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                out.update({a.name: (imp.module or "").lstrip(".") for a in imp.names})
    return out


@pytest.mark.parametrize("name", ["holokb.core", "holokb.ledger"])
def test_the_lazy_table_matches_the_checked_imports_and_resolves(name):
    package = importlib.import_module(name)
    checked = _checked_imports(package)
    assert checked == package._WHERE
    assert set(package.__all__) == set(checked)
    for attr, module in checked.items():
        assert getattr(package, attr) is getattr(importlib.import_module(f"{name}.{module}"), attr)
    assert set(checked) <= set(dir(package))
    with pytest.raises(AttributeError):
        package.no_such_name  # noqa: B018


def test_the_top_package_resolves_its_names():
    import holokb
    import holokb.core
    import holokb.kb

    assert set(_checked_imports(holokb)) == set(holokb.__all__) - {"__version__"}
    for attr in holokb.__all__:
        if attr != "__version__":
            source = holokb.kb if attr == "KnowledgeBase" else holokb.core
            assert getattr(holokb, attr) is getattr(source, attr)


def test_importing_one_module_loads_only_what_it_imports():
    code = ("import sys\nimport holokb.core.terms, holokb.ledger.marker\n"
            "print(sorted(m for m in sys.modules if m.startswith('holokb')))")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(SRC)),
                         capture_output=True, text=True, timeout=60)
    loaded = set(ast.literal_eval(out.stdout))
    assert {"holokb.core.terms", "holokb.ledger.marker"} <= loaded
    assert not loaded & {"holokb.core.fact", "holokb.core.premises", "holokb.ledger.store", "holokb.ledger.derived",
                         "holokb.kb"}, loaded
