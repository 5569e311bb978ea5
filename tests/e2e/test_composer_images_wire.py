"""Headless ``--input-format stream-json`` image blocks reach every provider in its own
wire shape (the wire server's request logs): Anthropic ``image`` with a base64 source,
OpenAI Chat ``image_url`` with a data URL, OpenAI Responses ``input_image``."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn
from tests.tui.test_composer_images import png_bytes

pytestmark = pytest.mark.timeout(120)

PNG = base64.b64encode(png_bytes(4, 3)).decode()
DATA_URL = f"data:image/png;base64,{PNG}"


def _stdin() -> str:
    message = {"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
    ]}}  # fmt: skip
    return json.dumps(message) + "\n"


def _last_user(messages: list[dict[str, Any]]) -> Any:
    return [m for m in messages if m.get("role") == "user"][-1]["content"]


@pytest.mark.parametrize("provider", ["anthropic", "openai-chat", "openai-responses"])
def test_stdin_image_blocks_reach_each_provider(cli: CliEnv, provider: str) -> None:
    endpoint = {"anthropic": cli.srv.anthropic, "openai-chat": cli.srv.chat, "openai-responses": cli.srv.responses}
    endpoint[provider].enqueue(turn(text("a tiny red picture")))
    base = cli.srv.url if provider == "anthropic" else cli.srv.openai_url
    args = ["--provider", provider, "--base-url", base, "--model", "test-model"]
    out = cli.run(
        *args, "--output-format", "stream-json", "--input-format", "stream-json", input=_stdin(),
        env={"OPENAI_API_KEY": "sk-test"},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    body = endpoint[provider].requests[0].body
    if provider == "anthropic":
        parts = _last_user(body["messages"])
        images = [p["source"] for p in parts if p["type"] == "image"]  # (the last block also carries cache_control)
        assert images == [{"type": "base64", "media_type": "image/png", "data": PNG}]
    elif provider == "openai-chat":
        parts = _last_user(body["messages"])
        assert [p for p in parts if p["type"] == "image_url"] == [{"type": "image_url", "image_url": {"url": DATA_URL}}]
    else:
        parts = _last_user(body["input"])
        images = [p for p in parts if p["type"] == "input_image"]
        assert len(images) == 1 and images[0]["image_url"] == DATA_URL
