"""Clients people already use work unchanged: rdflib's SPARQLStore over a real loopback socket, and
``holokb serve`` itself started from the command line."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from rdflib import Graph, Literal, URIRef

from _corpora import ROOT
from _serving import TOKEN, free_port, live_server

EX = "http://example.org/"


def test_rdflib_sparqlstore_queries_the_server(example_db):
    with live_server(example_db) as url:
        for method in ("GET", "POST"):
            g = Graph(store="SPARQLStore")
            g.open(url + "/sparql")
            g.store.method = method
            rows = g.query(f"SELECT ?c WHERE {{ <{EX}AchillesIDE> <{EX}hasCapability> ?c }} ORDER BY ?c")
            assert [r.c for r in rows] == [URIRef(EX + "codeSearch"), URIRef(EX + "sandboxing")]
            assert g.query(f"ASK {{ <{EX}AchillesIDE> ?p ?o }}").askAnswer is True
            built = g.query(f"CONSTRUCT {{ ?s <{EX}name> ?n }} WHERE {{ ?s <{EX}name> ?n }}").graph
            assert (URIRef(EX + "Alice"), URIRef(EX + "name"), Literal("Alice")) in built
            assert (URIRef(EX + "Alice"), None, None) in g  # triple-pattern access goes through SELECT


def _wait_up(url: str, proc: subprocess.Popen, within_s: float = 60) -> None:
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"holokb serve exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("holokb serve did not come up")


def _serve(db: Path, tmp: Path, *args: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HOLOKB_WRITE_TOKEN": TOKEN}
    proc = subprocess.Popen([sys.executable, "-m", "holokb", "serve", "--db", str(db), "--port", str(port),
                             "--workers", "1", *args], cwd=tmp, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    return proc, f"http://127.0.0.1:{port}"


def _stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


def test_holokb_serve_logs_one_line_per_request_and_never_the_token(example_db, tmp_path):
    proc, url = _serve(example_db, tmp_path)
    try:
        _wait_up(url, proc)
        urllib.request.urlopen(url + "/sparql?query=ASK%7B%7D").read()
        req = urllib.request.Request(url + "/load", data=b"<http://a> <http://b> <http://c> .",
                                     headers={"Content-Type": "text/turtle", "Authorization": "Bearer nope"})
        try:
            urllib.request.urlopen(req)
        except urllib.error.HTTPError as e:
            assert e.code == 403
    finally:
        err = _stop(proc)
    lines = [l for l in err.splitlines() if l.startswith(("GET ", "POST "))]
    assert any(l.startswith("GET /sparql 200 ") and l.split()[3].endswith("ms") for l in lines), err
    assert any(l.startswith("POST /load 403 ") for l in lines), err
    assert TOKEN not in err and "nope" not in err and "Traceback" not in err
    assert len([l for l in lines if l.startswith("GET /sparql ")]) == 1


def test_holokb_serve_quiet_logs_no_requests(example_db, tmp_path):
    proc, url = _serve(example_db, tmp_path, "--quiet")
    try:
        _wait_up(url, proc)
        urllib.request.urlopen(url + "/stats").read()
    finally:
        err = _stop(proc)
    assert "GET /" not in err and "Traceback" not in err


def test_holokb_serve_refuses_a_missing_ledger(tmp_path):
    r = subprocess.run([sys.executable, "-m", "holokb", "serve", "--db", str(tmp_path / "none.db")], cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True, text=True, timeout=60)
    # a coded diagnostic naming the missing ledger (the CLI checks --db before any command runs)
    assert r.returncode in (1, 2) and "none.db" in r.stderr and "Traceback" not in r.stderr
