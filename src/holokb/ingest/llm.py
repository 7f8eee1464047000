"""Provider-agnostic LLM clients (DS005 §3): one ``complete`` method, three implementations.

- :class:`OpenAICompatibleClient`: a real HTTP adapter for ``/chat/completions`` servers (OpenAI,
  vLLM, llama.cpp, Ollama's OpenAI endpoint …): base URL given, key read from the environment.
- :class:`RecordedClient`: replays responses recorded in a JSON file, keyed by a hash of the whole
  request (prompt and every option), so tests and evaluations are deterministic and offline.
- :class:`RecordingClient`: wraps a live client and records what it answers (to make fixtures).

Clients return the raw ``content`` string or raise :class:`LLMError`; parsing and validation
happen in the extractor.  Codes: HK840 transport/HTTP failure, HK841 no recorded response,
HK842 a response of the wrong shape, HK843 a bad recording file.
"""
from __future__ import annotations

import hashlib
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol

from ..core.errors import Diagnostic, DiagnosticError


class ResponseFormat(Enum):
    """What the caller wants back: a JSON object, or free text."""

    JSON = "json"
    TEXT = "text"


class LLMError(DiagnosticError):
    """An LLM call failed (transport, server, missing recording); nothing was extracted."""

    def __str__(self) -> str:
        return self.render()


def _err(code: str, message: str, hint: str | None = None) -> LLMError:
    return LLMError(message, (Diagnostic(code, message, hint=hint),))


class LLMClient(Protocol):
    """``complete(prompt, *, model, temperature, seed, response_format, max_tokens) -> str``."""

    def complete(self, prompt: str, *, model: str, temperature: float = 0.0, seed: int | None = 0,
                 response_format: ResponseFormat = ResponseFormat.JSON, max_tokens: int = 2048) -> str: ...


def request_key(prompt: str, *, model: str, temperature: float, seed: int | None,
                response_format: ResponseFormat, max_tokens: int) -> str:
    """SHA-256 of the canonical request: what a recorded response is looked up by."""
    body = json.dumps({"prompt": prompt, "model": model, "temperature": temperature, "seed": seed,
                       "responseFormat": response_format.value, "maxTokens": max_tokens},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class OpenAICompatibleClient:
    """``POST {base_url}/chat/completions``; the API key comes from ``$api_key_env`` (sent as a bearer
    token when set; local servers often need none)."""

    base_url: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 60.0

    def complete(self, prompt: str, *, model: str, temperature: float = 0.0, seed: int | None = 0,
                 response_format: ResponseFormat = ResponseFormat.JSON, max_tokens: int = 2048) -> str:
        body: dict = {"model": model, "messages": [{"role": "user", "content": prompt}],
                      "temperature": temperature, "max_tokens": max_tokens}
        if seed is not None:
            body["seed"] = seed
        if response_format is ResponseFormat.JSON:
            body["response_format"] = {"type": "json_object"}
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        url = self.base_url.rstrip("/") + "/chat/completions"
        req = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                raw = resp.read(16 * 1024 * 1024)
        except urllib.error.HTTPError as e:
            detail = e.read(2000).decode("utf-8", "replace") if e.fp else ""
            raise _err("HK840", f"LLM server {url} answered HTTP {e.code}: {detail[:300]}",
                       hint=f"check the model name and ${self.api_key_env}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise _err("HK840", f"cannot reach LLM server {url}: {reason}") from None
        try:
            data = json.loads(raw.decode("utf-8"))
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _err("HK842", f"LLM server {url} sent a response without choices[0].message.content") from None
        if not isinstance(content, str):
            raise _err("HK842", f"LLM server {url} sent non-text content")
        return content


class RecordedClient:
    """Replays recorded responses (``{"format": 1, "responses": [{"key", "request", "response"}]}``)."""

    def __init__(self, responses: dict[str, str]):
        self._responses = dict(responses)

    @staticmethod
    def load(path: str | Path) -> "RecordedClient":
        try:
            raw = Path(path).read_bytes()
        except OSError as e:
            raise _err("HK843", f"cannot read LLM recordings {path}: {e.strerror}") from None
        return RecordedClient.parse(raw, str(path))

    @staticmethod
    def parse(raw: bytes, name: str = "<recordings>") -> "RecordedClient":
        """Recordings from the bytes of a recordings file (``name`` is for messages)."""
        try:
            data = json.loads(raw.decode("utf-8"))
            if data.get("format") != 1:
                raise ValueError("format is not 1")
            return RecordedClient({r["key"]: r["response"] for r in data["responses"]})
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
            raise _err("HK843", f"cannot read LLM recordings {name}: {e}") from None

    def complete(self, prompt: str, *, model: str, temperature: float = 0.0, seed: int | None = 0,
                 response_format: ResponseFormat = ResponseFormat.JSON, max_tokens: int = 2048) -> str:
        key = request_key(prompt, model=model, temperature=temperature, seed=seed,
                          response_format=response_format, max_tokens=max_tokens)
        try:
            return self._responses[key]
        except KeyError:
            raise _err("HK841", f"no recorded LLM response for request {key[:16]} (model {model}, seed {seed})",
                       hint="record it with RecordingClient against a live server") from None


class RecordingClient:
    """Forwards to ``inner`` and keeps every request and response; :meth:`save` writes them."""

    def __init__(self, inner: LLMClient):
        self.inner = inner
        self.records: dict[str, dict] = {}

    def complete(self, prompt: str, *, model: str, temperature: float = 0.0, seed: int | None = 0,
                 response_format: ResponseFormat = ResponseFormat.JSON, max_tokens: int = 2048) -> str:
        out = self.inner.complete(prompt, model=model, temperature=temperature, seed=seed,
                                  response_format=response_format, max_tokens=max_tokens)
        key = request_key(prompt, model=model, temperature=temperature, seed=seed,
                          response_format=response_format, max_tokens=max_tokens)
        self.records[key] = {"key": key, "request": {"model": model, "temperature": temperature, "seed": seed,
                                                     "responseFormat": response_format.value,
                                                     "maxTokens": max_tokens, "prompt": prompt},
                             "response": out}
        return out

    def save(self, path: str | Path) -> None:
        data = {"format": 1, "responses": [self.records[k] for k in sorted(self.records)]}
        Path(path).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
