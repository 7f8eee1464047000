"""The LLM extractor: recorded responses, a stub OpenAI-compatible server on loopback, the gates."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from ingest_support import EX

from holokb.analysis.program import PredicateDecl
from holokb.core import AsOf, IRI, Literal
from holokb.ingest import DocumentInput, SkipReason, chunk_paragraphs
from holokb.ingest.llm import (
    LLMError, OpenAICompatibleClient, RecordedClient, RecordingClient, ResponseFormat, request_key,
)
from holokb.ingest.llm_extractor import LLMExtractor, build_prompt
from holokb.ingest.naming import Naming
from holokb.ingest.pipeline import ingest_document
from holokb.ledger import Ledger

DUR = "http://www.w3.org/2001/XMLSchema#duration"
VOCAB = {EX + "expiresAfter": PredicateDecl(EX + "expiresAfter", 2, (None, DUR), functional=True),
         EX + "uses": PredicateDecl(EX + "uses", 2, ("iri", "iri"))}
TEXT = ("Under policy v1.0, a session token expires after 30 minutes of inactivity.\n\n"
        "AchillesIDE uses Ploinky. The support console does not use Ploinky.")


class Scripted:
    """A client that answers per passage (matched by a marker word), recording the calls."""

    def __init__(self, answers: dict[str, str]):
        self.answers = answers
        self.calls: list[dict] = []

    def complete(self, prompt, *, model, temperature=0.0, seed=0, response_format=ResponseFormat.JSON, max_tokens=2048):
        self.calls.append({"model": model, "seed": seed, "temperature": temperature})
        for marker, answer in self.answers.items():
            if marker in prompt.split("Passage:")[1]:
                return answer
        raise LLMError("no answer", ())


def facts(*items) -> str:
    return json.dumps({"facts": list(items)})


GOOD_SESSION = {"subject": "session token", "predicate": "expiresAfter", "object": "30 minutes",
                "qualifiers": {"version": "v1.0"}, "confidence": 0.9,
                "quote": "Under policy v1.0, a session token expires after 30 minutes of inactivity."}
ANSWERS = {
    "session token": facts(GOOD_SESSION,
                           dict(GOOD_SESSION, object="45 minutes"),                      # number not verbatim
                           dict(GOOD_SESSION, predicate="lasts"),                         # unknown predicate
                           dict(GOOD_SESSION, subject="refresh token"),                   # subject not in span
                           dict(GOOD_SESSION, quote="a session token never expires"),     # quote not in chunk
                           dict(GOOD_SESSION, polarity="negate"),                         # polarity mismatch
                           {"subject": "session token"}),                                  # schema
    "AchillesIDE": "```json\n" + facts(
        {"subject": "AchillesIDE", "predicate": "uses", "object": "Ploinky", "quote": "AchillesIDE uses Ploinky."},
        {"subject": "support console", "predicate": "uses", "object": "Ploinky", "polarity": "negate",
         "quote": "The support console does not use Ploinky."}) + "\n```",
}


def run(tmp_path, client, text=TEXT, **kw):
    ex = LLMExtractor(client, VOCAB, **kw)
    with Ledger.open(tmp_path / "kb.db") as led:
        r = ingest_document(led, text, doc_id="spec", extractor=ex, at=5)
        return r, list(led.facts(AsOf.latest()))


def test_gates_keep_what_is_anchored_and_report_the_rest(tmp_path):
    r, views = run(tmp_path, Scripted(ANSWERS))
    assert r.facts == 3
    assert [s.reason for s in r.skipped] == [
        SkipReason.NUMBER_NOT_VERBATIM, SkipReason.UNKNOWN_PREDICATE, SkipReason.SUBJECT_NOT_IN_SPAN,
        SkipReason.SPAN_OUTSIDE_CHUNK, SkipReason.POLARITY_MISMATCH, SkipReason.SCHEMA]
    by = {(v.fact.subject.value, v.fact.polarity): v for v in views}
    s = by[(EX + "session_token", "affirm")]
    assert s.fact.object == Literal("PT30M", DUR) and dict(s.fact.qualifiers) == {"version": Literal("v1.0")}
    assert s.evidence[0].confidence == 0.9 and s.evidence[0].extractor == "llm"
    assert (s.evidence[0].char_start, s.evidence[0].char_end) == (0, len(GOOD_SESSION["quote"]))
    neg = by[(EX + "support_console", "negate")]
    assert neg.fact.object == IRI(EX + "Ploinky")


def test_not_json_and_client_errors_skip_the_chunk(tmp_path):
    r, views = run(tmp_path, Scripted({"session token": "Sure! Here are the facts: ..."}))
    assert views == []
    assert [s.reason for s in r.skipped] == [SkipReason.SCHEMA, SkipReason.EXTRACTOR_ERROR]
    assert "not JSON" in r.skipped[0].detail


def test_the_prompt_lists_the_vocabulary_and_the_passage():
    p = build_prompt("AchillesIDE uses Ploinky.", VOCAB, Naming())
    assert "- expiresAfter(any, <http://www.w3.org/2001/XMLSchema#duration>) functional" in p
    assert "- uses(iri, iri)" in p and '"""\nAchillesIDE uses Ploinky.\n"""' in p


def test_recorded_client_replays_exactly_and_refuses_unknown_requests(tmp_path):
    live = Scripted(ANSWERS)
    rec = RecordingClient(live)
    (tmp_path / "a").mkdir()
    first, _ = run(tmp_path / "a", rec)
    rec.save(tmp_path / "rec.json")
    replay = RecordedClient.load(tmp_path / "rec.json")
    (tmp_path / "b").mkdir()
    again, _ = run(tmp_path / "b", replay)
    assert again.to_json_text(durations=False) == first.to_json_text(durations=False)
    with pytest.raises(LLMError) as e:
        replay.complete("other prompt", model="gpt-4o-mini")
    assert e.value.diagnostics[0].code == "HK841"
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(LLMError) as e:
        RecordedClient.load(tmp_path / "bad.json")
    assert e.value.diagnostics[0].code == "HK843"


def test_request_key_covers_every_option():
    base = dict(model="m", temperature=0.0, seed=0, response_format=ResponseFormat.JSON, max_tokens=10)
    keys = {request_key("p", **base)}
    for k, v in (("model", "n"), ("temperature", 0.5), ("seed", 1), ("response_format", ResponseFormat.TEXT),
                 ("max_tokens", 11)):
        keys.add(request_key("p", **dict(base, **{k: v})))
    keys.add(request_key("q", **base))
    assert len(keys) == 7


def test_consistency_flags_an_unstable_configuration(tmp_path):
    class BySeed(Scripted):
        def complete(self, prompt, *, seed=0, **kw):
            ans = ANSWERS["AchillesIDE"] if seed % 2 == 0 else facts(
                {"subject": "AchillesIDE", "predicate": "uses", "object": "Ploinky", "quote": "AchillesIDE uses Ploinky."})
            return ans if "AchillesIDE" in prompt.split("Passage:")[1] else facts()

    ex = LLMExtractor(BySeed({}), VOCAB)
    text = "AchillesIDE uses Ploinky. The support console does not use Ploinky."
    with Ledger.open(tmp_path / "kb.db") as led:
        r = ingest_document(led, text, doc_id="d", extractor=ex, at=1, replicas=(ex.replica(1), ex.replica(2)))
    c = r.consistency
    assert c.runs == 3 and c.mean_jaccard == pytest.approx((0.5 + 1.0 + 0.5) / 3, abs=1e-6)
    assert not c.reliable
    same = LLMExtractor(Scripted(ANSWERS), VOCAB)
    doc = DocumentInput("d", TEXT, chunk_paragraphs(TEXT))
    from holokb.ingest.consistency import extraction_consistency
    assert extraction_consistency((same, same), doc).reliable


class _Stub(BaseHTTPRequestHandler):
    seen: list = []
    status = 200

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Stub.seen.append((self.path, dict(self.headers), body))
        if _Stub.status != 200:
            self.send_response(_Stub.status)
            self.end_headers()
            self.wfile.write(b'{"error": "overloaded"}')
            return
        prompt = body["messages"][0]["content"]
        content = ANSWERS["AchillesIDE"] if "AchillesIDE" in prompt.split("Passage:")[1] else facts()
        out = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


@pytest.fixture
def stub():
    server = HTTPServer(("127.0.0.1", 0), _Stub)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    _Stub.seen, _Stub.status = [], 200
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        t.join()


def test_openai_compatible_client_against_a_loopback_stub(tmp_path, stub, monkeypatch):
    monkeypatch.setenv("HOLOKB_TEST_KEY", "sk-test")
    client = OpenAICompatibleClient(stub, api_key_env="HOLOKB_TEST_KEY", timeout_s=5)
    r, views = run(tmp_path, client, text="AchillesIDE uses Ploinky. The support console does not use Ploinky.",
                   model="local-model", seed=7)
    assert r.facts == 2 and len(views) == 2
    path, headers, body = _Stub.seen[0]
    assert path == "/v1/chat/completions"
    assert headers["Authorization"] == "Bearer sk-test"
    assert (body["model"], body["temperature"], body["seed"], body["response_format"]) == \
        ("local-model", 0.0, 7, {"type": "json_object"})


def test_server_errors_become_extractor_error_skips(tmp_path, stub):
    _Stub.status = 503
    client = OpenAICompatibleClient(stub, api_key_env="HOLOKB_NO_SUCH_KEY", timeout_s=5)
    with pytest.raises(LLMError) as e:
        client.complete("hi", model="m")
    assert e.value.diagnostics[0].code == "HK840" and "503" in e.value.message
    r, views = run(tmp_path, client)
    assert views == [] and {s.reason for s in r.skipped} == {SkipReason.EXTRACTOR_ERROR}
    assert "Authorization" not in _Stub.seen[0][1]


def test_unreachable_server_is_coded():
    with pytest.raises(LLMError) as e:
        OpenAICompatibleClient("http://127.0.0.1:9", timeout_s=2).complete("hi", model="m")
    assert e.value.diagnostics[0].code == "HK840"
