"""Serve fixtures recorded from real servers (`record_wire`) on the test `WireServer`.

A recorded session is a set of named exchanges. `replay_profile` turns its ``GET``
answers (``/v1/models``, props) and non-chat ``POST`` answers (tokenizers) into a
`ChatProfile` whose routes answer exactly what the real server answered (a path the
real server answered 404 is left out, so the wire server answers 404 too);
(tokenizers answer the recorded answer for the recorded input, and one token per word
for any other: the real tokenizer cannot run in the tests);
`replay(session, name)` is the chat reply to enqueue: the recorded SSE frames byte for
byte (a cancelled stream ends where the recording stopped reading), or the recorded
status and JSON body::

    session = load_session("llama-cpp-python-0.3.36")
    srv.chat.profile = replay_profile(session)
    srv.chat.enqueue(replay(session, "too_long_stream"))
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from .wire_profiles import ChatProfile
from .wire_script import HttpError, RawStream

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "wire"
LLAMA_CPP_PYTHON = "llama-cpp-python-0.3.36"
LITELLM = "litellm-1.106.12"


@cache
def load_session(name: str) -> dict[str, Any]:
    """The recorded session ``tests/fixtures/wire/<name>/session.json``."""
    data: dict[str, Any] = json.loads((FIXTURES / name / "session.json").read_text())
    return data


def exchange(session: dict[str, Any], name: str) -> dict[str, Any]:
    """One recorded exchange by name."""
    found: dict[str, Any] = session["exchanges"][name]
    return found


def replay(session: dict[str, Any], name: str) -> RawStream | HttpError:
    """The wire server reply that repeats exchange ``name``."""
    ex = exchange(session, name)
    if "sse" in ex:
        return RawStream([(frame + "\n\n").encode() for frame in ex["sse"]])
    return HttpError(ex["status"], body=ex.get("body"))


def replay_profile(session: dict[str, Any]) -> ChatProfile:
    """A profile answering the recorded ``/v1/models``, props and tokenizer requests."""
    models: list[dict[str, Any]] = []
    gets: dict[str, Any] = {}
    posts: dict[str, Any] = {}
    for ex in session["exchanges"].values():
        req = ex["request"]
        if ex["status"] != 200 or req["path"].endswith("/chat/completions"):
            continue
        if req["path"].endswith("/models"):
            models = ex["body"]["data"]
        elif req["method"] == "GET":
            gets[req["path"]] = ex["body"]
        else:
            posts[req["path"]] = _tokenizer(req["body"], ex["body"]) if "tokenize" in req["path"] else ex["body"]
    return ChatProfile(
        name=f"{session['program']}-{session['version']}", models=models, get_routes=gets, post_routes=posts
    )


def word_count(text: str) -> int:
    """The stand-in tokenizer's count: one token per word."""
    return len(text.split())


def _tokenizer(recorded_request: Any, recorded_answer: Any) -> Any:
    """A tokenizer route: the recorded answer for the recorded input; for any other input
    an answer of the recorded shape counting one token per word (a stand-in: the real
    tokenizer cannot run here)."""
    field = next(iter(recorded_request))

    def answer(body: Any) -> Any:
        text = str((body or {}).get(field, ""))
        if text == recorded_request[field]:
            return recorded_answer
        n = word_count(text)
        return {"count": n} if "count" in recorded_answer else {"tokens": list(range(n))}

    return answer


def streamed_text(session: dict[str, Any], name: str) -> str:
    """The text content a recorded stream carried (for assertions)."""
    out = []
    for frame in exchange(session, name).get("sse") or ():
        data = frame.removeprefix("data: ")
        if data == "[DONE]":
            continue
        for choice in json.loads(data).get("choices") or ():
            out.append((choice.get("delta") or {}).get("content") or "")
    return "".join(out)
