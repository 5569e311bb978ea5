"""Record what a live OpenAI-compatible server really says, as a replayable JSON fixture.

Runs a fixed script of requests straight at the server (stdlib ``http.client``, no
proxy needed: we are the client) and writes every exchange (request, status, JSON body
or the raw SSE frames) to ``tests/fixtures/wire/<program>-<version>/session.json``.
`tests.support.wire_replay` serves those exchanges back to the providers in the tests.

The script: ``GET /v1/models``, LiteLLM's ``/model/info``, the props / tokenize
endpoints of llama.cpp and llama-cpp-python (a 404 is recorded too), a short prompt (with ``max_completion_tokens``
and again with ``max_tokens``), a forced tool call and a tool call under ``"auto"``, a
prompt over the context window (streamed and not), a stream the client cancels after
two frames, and an assistant turn with ``content: null`` and tool calls.

Usage (recording only; never run in CI; start llama-cpp-python with
`run_llama_cpp_server` on a VM that faults on AMX)::

    python -m tests.support.record_wire --base-url http://127.0.0.1:8000 \\
        --program llama-cpp-python --version 0.3.36 --model MODEL [--long-words 3000]

``--long-words`` sizes the too-long prompt (pick more words than the server's context).
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "wire"
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def _chat(model: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": content}], **extra}


def script(model: str, long_words: int) -> list[tuple[str, str, str, Any, int | None]]:
    """``(name, method, path, body, cancel_after_frames)`` for every scripted exchange."""
    stream = {"stream": True, "stream_options": {"include_usage": True}}
    long_prompt = "word " * long_words
    forced = {"type": "function", "function": {"name": "get_weather"}}
    null_content = {
        "model": model,
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ],
        "stream": True,
    }
    return [
        ("models", "GET", "/v1/models", None, None),
        ("props", "GET", "/props", None, None),
        ("model_info", "GET", "/model/info", None, None),
        ("tokenize_llamacpp", "POST", "/tokenize", {"content": "hello world"}, None),
        ("tokenize_extras", "POST", "/extras/tokenize", {"input": "hello world"}, None),
        ("tokenize_count", "POST", "/extras/tokenize/count", {"input": "hello world"}, None),
        ("prompt_max_completion_tokens", "POST", "/v1/chat/completions",
         _chat(model, "Tell me a long story about a dragon.", max_completion_tokens=16, **stream), None),
        ("prompt_max_tokens", "POST", "/v1/chat/completions",
         _chat(model, "Tell me a long story about a dragon.", max_tokens=16, **stream), None),
        ("tool_forced", "POST", "/v1/chat/completions",
         _chat(model, "What is the weather in Paris?", tools=[WEATHER_TOOL], tool_choice=forced, **stream), None),
        ("tool_auto", "POST", "/v1/chat/completions",
         _chat(model, "What is the weather in Paris? Use the tool.", tools=[WEATHER_TOOL], tool_choice="auto",
               max_tokens=32, **stream), None),
        ("too_long_stream", "POST", "/v1/chat/completions", _chat(model, long_prompt, **stream), None),
        ("too_long_plain", "POST", "/v1/chat/completions", _chat(model, long_prompt, stream=False), None),
        ("cancelled_stream", "POST", "/v1/chat/completions",
         _chat(model, "Count from one to fifty.", max_tokens=64, **stream), 2),
        ("null_assistant_content", "POST", "/v1/chat/completions", null_content, None),
    ]  # fmt: skip


def _frames(resp: http.client.HTTPResponse, cancel_after: int | None) -> list[str]:
    """The SSE frames (the text between blank lines), stopping after ``cancel_after``."""
    frames: list[str] = []
    buf = ""
    while True:
        line = resp.readline()
        if not line:
            break
        text = line.decode().rstrip("\r\n")
        if text:
            buf += text + "\n"
            continue
        if buf:
            frames.append(buf.rstrip("\n"))
            buf = ""
            if cancel_after is not None and len(frames) >= cancel_after:
                break
    if buf:
        frames.append(buf.rstrip("\n"))
    return frames


def exchange(base_url: str, method: str, path: str, body: Any, cancel_after: int | None, key: str) -> dict[str, Any]:
    """One request against the server and what came back."""
    parts = urlsplit(base_url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=300)
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, parts.path.rstrip("/") + path, data, headers)
    resp = conn.getresponse()
    ctype = resp.getheader("content-type") or ""
    out: dict[str, Any] = {
        "request": {"method": method, "path": path, "body": body},
        "status": resp.status,
        "content_type": ctype.split(";")[0],
    }
    if "text/event-stream" in ctype:
        out["sse"] = _frames(resp, cancel_after)
        if cancel_after is not None:
            out["cancelled_after"] = cancel_after
    else:
        raw = resp.read()
        try:
            out["body"] = json.loads(raw) if raw else None
        except ValueError:
            out["body"] = raw.decode(errors="replace")
    conn.close()
    return out


def record(base_url: str, program: str, version: str, model: str, long_words: int, key: str) -> Path:
    """Run the script and write the fixture; returns its path."""
    session: dict[str, Any] = {"program": program, "version": version, "model": model, "exchanges": {}}
    for name, method, path, body, cancel in script(model, long_words):
        print(f"{name}: {method} {path}", file=sys.stderr)
        session["exchanges"][name] = exchange(base_url, method, path, body, cancel, key)
    target = FIXTURES / f"{program}-{version}" / "session.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(session, indent=1) + "\n")
    tmp.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="server root (without /v1)")
    parser.add_argument("--program", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--long-words", type=int, default=3000)
    parser.add_argument("--api-key", default="local")
    args = parser.parse_args(argv)
    path = record(args.base_url, args.program, args.version, args.model, args.long_words, args.api_key)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
