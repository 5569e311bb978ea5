"""What skawld asks an OpenAI-compatible server outside the chat stream, and learns from it.

Verified against real servers (fixtures under ``tests/fixtures/wire/``):

- **Tokenizers**: llama-cpp-python answers ``POST /extras/tokenize/count {"input"}`` with
  ``{"count"}``; llama.cpp's C++ ``llama-server`` answers ``POST /tokenize {"content"}``
  with ``{"tokens": [...]}``. `count_tokens` tries them in that order once per server and
  remembers which one works (or that none does).
- **Context check**: llama-cpp-python answers a streamed prompt over its context with
  HTTP 200 and an *empty* event stream, but the same request non-streamed with a 400
  ``context_length_exceeded`` whose message says ``maximum context length is N tokens``.
  `probe_plain` sends that non-streamed request (``max_tokens: 1``), `window_from_text`
  reads N out of the answer.

Plain ``urllib`` run in a worker thread (`asyncio.to_thread`): these are rare, small
requests, and the streaming transport is built for SSE.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ProviderError
from .discovery import server_root

_WINDOW_RE = re.compile(r"maximum context length is (\d+)", re.IGNORECASE)
PROBE_TIMEOUT = 60.0
TOKENIZE_TIMEOUT = 10.0


class EmptyStreamError(ProviderError):
    """A 200 stream that ended before its first event (retried after a plain probe).
    ``retry_now`` skips the backoff: the probe is asked at once."""

    retry_now = False


@dataclass(frozen=True)
class Tokenizer:
    """One tokenizer endpoint: its path, the request field, and how to read the count."""

    path: str
    field: str
    count_key: str

    def count(self, answer: Any) -> int | None:
        """The token count in ``answer`` (a number, or the length of a token list)."""
        if not isinstance(answer, Mapping):
            return None
        value = answer.get(self.count_key)
        if isinstance(value, list):
            return len(value)
        return value if isinstance(value, int) and value >= 0 else None


TOKENIZERS: tuple[Tokenizer, ...] = (
    Tokenizer("/extras/tokenize/count", "input", "count"),  # llama-cpp-python
    Tokenizer("/tokenize", "content", "tokens"),  # llama.cpp's llama-server
)


def post_json(url: str, body: Any, headers: Mapping[str, str], timeout: float) -> tuple[int, Any]:
    """POST ``body``; returns ``(status, parsed body)`` for any HTTP answer (errors included).
    Network failures raise `OSError`."""
    import urllib.error  # lazy: only when a local server needs a side request
    import urllib.request  # lazy: only when a local server needs a side request

    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={**headers, "Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw.decode("utf-8", "replace")


def window_from_text(text: str) -> int | None:
    """N from "maximum context length is N tokens" (OpenAI's and llama-cpp-python's wording)."""
    match = _WINDOW_RE.search(text)
    return int(match.group(1)) if match else None


class ServerSide:
    """Side requests to one server, and what they taught (one per provider)."""

    def __init__(self, base_url: str, headers: Mapping[str, str], timeout: float = PROBE_TIMEOUT) -> None:
        self.root = server_root(base_url)
        self.base_url = base_url.rstrip("/")
        self.headers = dict(headers)
        self.timeout = timeout
        self.tokenizer: Tokenizer | None = None
        self.tokenizer_known = False
        """True once `tokenizer` is settled (found, or none answers)."""

    def _count_sync(self, texts: Sequence[str]) -> list[int] | None:
        candidates = [self.tokenizer] if self.tokenizer_known else list(TOKENIZERS)
        for tok in candidates:
            if tok is None:
                return None
            counts: list[int] = []
            for text in texts:
                try:
                    status, answer = post_json(self.root + tok.path, {tok.field: text}, self.headers, TOKENIZE_TIMEOUT)
                except OSError:
                    return None  # unreachable now: try again next time
                n = tok.count(answer) if status == 200 else None
                if n is None:
                    break
                counts.append(n)
            else:
                self.tokenizer, self.tokenizer_known = tok, True
                return counts
        self.tokenizer, self.tokenizer_known = None, True
        return None

    async def count_tokens(self, texts: Sequence[str]) -> list[int] | None:
        """Token counts of ``texts`` by the server's own tokenizer; None when it has none."""
        if self.tokenizer_known and self.tokenizer is None:
            return None
        return await asyncio.to_thread(self._count_sync, texts)

    async def probe_plain(self, api_path: str, params: Mapping[str, Any]) -> tuple[int, Any]:
        """The request of ``params`` sent non-streamed with ``max_tokens: 1``: how the
        server answers it when it will not say so in a stream."""
        body = {k: v for k, v in params.items() if k not in ("stream_options", "max_completion_tokens")}
        body["stream"] = False
        body["max_tokens"] = 1
        return await asyncio.to_thread(post_json, self.base_url + api_path, body, self.headers, self.timeout)
