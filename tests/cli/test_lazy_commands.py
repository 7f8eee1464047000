"""A command line naming a command imports only that command's module, and answers as the full CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_command_table_matches_what_the_modules_register():
    from holokb.cli import COMMAND_MODULES, MODULES, app

    registered = {(c.name or c.callback.__name__.replace("_", "-")): c.callback.__module__.rsplit(".", 1)[1]
                  for c in app.registered_commands}
    assert registered == COMMAND_MODULES
    assert set(COMMAND_MODULES.values()) <= set(MODULES)
    # help order: the modules' order, each module's own order kept
    modules = [c.callback.__module__.rsplit(".", 1)[1] for c in app.registered_commands]
    assert modules == sorted(modules, key=MODULES.index)


def _modules_after(args: list[str]) -> tuple[set[str], str]:
    code = ("import sys, json\nfrom holokb.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('\\n' + json.dumps(sorted(m for m in sys.modules if m.startswith('holokb.cli.'))))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120)
    return set(json.loads(p.stderr.strip().splitlines()[-1])), p.stdout


def test_query_loads_only_its_module_and_help_loads_all(tmp_path):
    loaded, out = _modules_after(["query", "--help"])
    commands = {f"holokb.cli.{m}" for m in ("data", "revise", "rules", "answer", "intuition", "demo", "serve")}
    assert "holokb.cli.query" in loaded and not loaded & commands
    assert out.startswith("Usage: holokb query [OPTIONS]")
    loaded, out = _modules_after(["--help"])
    assert commands <= loaded
    assert "query" in out and "derive" in out and "eval" in out


def test_in_process_order_survives_a_lone_command_first():
    # main() with one command, then the full app, in a fresh process: help order unchanged
    code = ("from holokb.cli import MODULES, _load\n_load(('query',))\n_load(('rules',))\napp = _load()\n"
            "print(' '.join(c.callback.__module__.rsplit('.', 1)[1] for c in app.registered_commands))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    from holokb.cli import MODULES

    modules = p.stdout.split()
    assert modules[0] == "data" and "query" in modules
    assert modules == sorted(modules, key=MODULES.index)


def test_the_package_app_is_the_whole_cli_after_a_lone_command(tmp_path):
    # A lone command loads one module; ``holokb.cli.app`` (and what lists the commands, such as the
    # README tour's "runs until interrupted" check) must still see every command afterwards.
    code = ("import sys\nfrom holokb.cli import main, COMMAND_MODULES\n"
            "try:\n    main(['ask', '--db', sys.argv[1], '?- ex:p(?x).'])\nexcept SystemExit:\n    pass\n"
            "from holokb.cli import app\nfrom holokb.cli.introspect import commands\n"
            "print(len(app.registered_commands), len(COMMAND_MODULES))\n"
            "print(' '.join(sorted(c.name for c in commands() if 'runs until interrupted' in c.help)))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "missing.db")], capture_output=True, text=True,
                       env=env, timeout=120)
    counts, serving = p.stdout.splitlines()
    registered, table = counts.split()
    assert registered == table
    assert serving == "serve"


def test_loading_plain_rdf_imports_neither_the_exporter_nor_the_extractors(tmp_path):
    """``holokb load`` of plain triples parses and stages them: the TriG exporter, the RDF mapping of
    annotated graphs and the ingestion extractors (with the rule language's analysis) stay unloaded."""
    nt = tmp_path / "a.nt"
    nt.write_text("<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .\n")
    code = ("import sys, json\nfrom holokb.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('\\n' + json.dumps(sorted(m for m in sys.modules if m.startswith('holokb.'))))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-c", code, "load", str(nt), "--db", str(tmp_path / "kb.db")],
                       capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    loaded = set(json.loads(p.stderr.strip().splitlines()[-1]))
    assert "loaded 1 file(s)" in p.stdout
    assert "holokb.ledger.plain" in loaded
    assert not loaded & {"holokb.rdf.export", "holokb.rdf.mapping", "holokb.ingest.extract", "holokb.analysis"}
