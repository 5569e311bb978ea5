"""Helpers to drive the real providers against a `WireServer` (used by provider, CLI, e2e tests)."""

from __future__ import annotations

import asyncio
from typing import Any

from skawld_core.messages import Message, user_text
from skawld_core.providers.base import BaseProvider, ProviderRequest, ProviderStreamEvent

from .wire_server import Endpoint, WireServer

KINDS = ("anthropic", "chat", "responses")
API_KEY = "sk-test-SECRET-0123456789"
TRANSPORTS = ("http", "httpx", "sdk")
TRANSPORT = "http"
"""The transport `make_provider` uses unless told; the provider tests' ``wire`` fixture
runs each test once per transport by setting it."""


def make_provider(kind: str, srv: WireServer | None, **kwargs: Any) -> BaseProvider:
    """The real provider for ``kind`` pointed at ``srv`` (or ``base_url=``); ``api_key``
    defaults to `API_KEY`."""
    kwargs.setdefault("api_key", API_KEY)
    kwargs.setdefault("transport", TRANSPORT)
    if srv is not None:
        kwargs.setdefault("base_url", srv.url if kind == "anthropic" else srv.openai_url)
    if kind == "anthropic":
        from skawld_core.providers.anthropic import AnthropicProvider

        return AnthropicProvider(**kwargs)
    if kind == "chat":
        from skawld_core.providers.openai_chat import OpenAIChatProvider

        kwargs.setdefault("compat", "strict")  # 127.0.0.1 would choose lenient; tests opt in

        return OpenAIChatProvider(**kwargs)
    from skawld_core.providers.openai_responses import OpenAIResponsesProvider

    return OpenAIResponsesProvider(**kwargs)


def endpoint(srv: WireServer, kind: str) -> Endpoint:
    """The server endpoint a provider of ``kind`` talks to."""
    return {"anthropic": srv.anthropic, "chat": srv.chat, "responses": srv.responses}[kind]


def request(messages: list[Message] | None = None, **kwargs: Any) -> ProviderRequest:
    """A request with model ``m`` and one user message by default."""
    return ProviderRequest(model=kwargs.pop("model", "m"), messages=messages or [user_text("hi")], **kwargs)


async def collect(provider: BaseProvider, req: ProviderRequest | None = None) -> list[ProviderStreamEvent]:
    """All events of one stream."""
    return [ev async for ev in provider.stream(req or request())]


def texts(events: list[ProviderStreamEvent]) -> str:
    """The concatenated text deltas."""
    return "".join(getattr(e, "text", "") for e in events if e.type == "text_delta")


def tool_json(events: list[ProviderStreamEvent], tool_id: str) -> str:
    """The concatenated input JSON of one tool call."""
    return "".join(e.json_delta for e in events if e.type == "tool_use_input_delta" and e.id == tool_id)


class RecordingSleep:
    """An injectable retry sleep: records the delays and only yields to the loop."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)
