"""Imports run one way (design.md §2): core ← syntax ← analysis ← engine; the engine never sees
lark or RDF, and syntax never imports analysis."""
import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "holokb"


def _imports(package: str) -> set[str]:
    out = set()
    for f in (SRC / package).rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level >= 2:  # from ..x import y
                    out.add(mod.split(".")[0])
                elif node.level == 0 and mod.startswith("holokb."):
                    out.add(mod.split(".")[1])
            elif isinstance(node, ast.Import):
                out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("holokb."))
    return out


def test_each_stage_imports_only_the_stages_below_it():
    assert _imports("syntax") <= {"core", "resources"}
    assert _imports("analysis") <= {"core", "syntax"}
    assert _imports("engine") <= {"core", "syntax", "analysis"}


def test_importing_the_engine_loads_neither_the_parser_nor_rdf():
    code = ("import sys, holokb.engine, holokb.analysis; "
            "bad = [m for m in ('lark', 'rdflib', 'pyoxigraph', 'holokb.syntax.parser', 'holokb.ledger') if m in sys.modules]; "
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(SRC.parent)},
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
