"""One Chat Completions turn to an OpenAI-compatible server, with the checks real servers need.

`local_turn` is `WireProvider.stream` (retries, mapping) plus what llama-cpp-python
taught us (recorded in ``tests/fixtures/wire/llama-cpp-python-0.3.36``):

- a stream that ends before its first event is retried only after the same request,
  sent non-streamed once (`ServerSide.probe_plain`), did not come back as a context-length
  error; when it did, that `ContextLengthError` is raised (so the agent compacts) and the
  window it names is remembered for the model;
- usage the server did not stream is counted by its own tokenizer where it has one
  (``provider_metadata["openai_chat"]["usage_counted"] = "tokenizer"``), and stays
  marked ``usage_estimated`` otherwise;
- output well past ``max_tokens`` in a turn that did not end by the cap means the server ignores the cap: remembered on the
  provider (``ignores_output_cap``), logged once, and marked ``output_cap_ignored``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Mapping
from typing import Any, ClassVar, Protocol

from ..errors import ContextLengthError
from ..messages import Usage
from .base import MessageEnd, ProviderRequest, ProviderStreamEvent
from .common import resolve_api_key
from .errors_map import map_error
from .http_transport import HttpStatusFailure
from .local_server import EmptyStreamError, ServerSide, window_from_text
from .retry import RetryPolicy, StreamMapper, retrying_stream

log = logging.getLogger("skawld.providers")


class LocalChatProvider(Protocol):
    """What `local_turn` uses of `OpenAIChatProvider`."""

    vendor: ClassVar[str]
    env_var: ClassVar[str]
    api_path: ClassVar[str]
    retry_policy: RetryPolicy
    discovered_windows: dict[str, int]
    ignores_output_cap: bool
    _api_key: str | None

    @property
    def resolved_base_url(self) -> str: ...

    def build_params(self, request: ProviderRequest) -> dict[str, Any]: ...

    def _new_mapper(self, key: str, params: dict[str, Any]) -> StreamMapper: ...

    def _get_client(self, key: str) -> Any: ...

    async def _open(self, client: Any, params: dict[str, Any]) -> Any: ...

    def server_side(self, key: str) -> ServerSide: ...


def prompt_text(params: Mapping[str, Any]) -> str:
    """The prompt's words as the tokenizer should see them (without the chat template)."""
    parts: list[str] = []
    for message in params.get("messages") or ():
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        for call in message.get("tool_calls") or ():
            fn = call.get("function") or {}
            parts.append(f"{fn.get('name', '')} {fn.get('arguments', '')}")
    if params.get("tools"):
        parts.append(json.dumps(params["tools"]))
    return "\n".join(parts)


def cap_ignored(cap: int | None, output_tokens: int) -> bool:
    """Output clearly past the cap (room left for the estimate's error)."""
    return bool(cap) and output_tokens > int(cap * 1.5) + 16  # type: ignore[operator]


async def check_context(provider: LocalChatProvider, key: str, params: dict[str, Any]) -> None:
    """After an empty stream: raise the server's context-length error for this request,
    if it has one (learning the window it names); otherwise return and let the retry run."""
    try:
        status, body = await provider.server_side(key).probe_plain(provider.api_path, params)
    except OSError:
        return
    if status < 300:
        return
    failure = HttpStatusFailure(status, {}, body, f"Error code: {status} - {json.dumps(body)[:2000]}")
    err = map_error(failure, vendor=provider.vendor, secrets=(key,))
    if isinstance(err, ContextLengthError):
        window = window_from_text(err.message)
        if window:
            provider.discovered_windows[str(params.get("model") or "")] = window
        raise err from None


async def honest_end(
    provider: LocalChatProvider, key: str, params: dict[str, Any], attempt: Any, end: MessageEnd
) -> MessageEnd:
    """`end` with usage counted by the server's tokenizer when it streamed none, and the
    output cap checked."""
    usage = end.usage
    meta: dict[str, Any] = {k: dict(v) for k, v in (end.provider_metadata or {}).items()}
    own = meta.setdefault("openai_chat", {})
    if own.get("usage_estimated"):
        try:
            counts = await provider.server_side(key).count_tokens([prompt_text(params), "".join(attempt.out_parts)])
        except Exception:  # a tokenizer that misbehaves leaves the estimate, never the turn, broken
            counts = None
        if counts:
            usage = Usage(input_tokens=counts[0], output_tokens=counts[1])
            own.pop("usage_estimated")
            own["usage_counted"] = "tokenizer"
    cap = attempt.cap
    if end.stop_reason != "max_tokens" and cap_ignored(cap, usage.output_tokens):  # a cut says it was read
        own["output_cap_ignored"] = True
        if not provider.ignores_output_cap:
            provider.ignores_output_cap = True
            log.warning(
                "%s ignores the output cap: max_tokens=%d, about %d tokens came back "
                "(--max-output-tokens has no effect on this server)",
                provider.resolved_base_url,
                cap,
                usage.output_tokens,
            )
    if not own:
        meta.pop("openai_chat")
    return MessageEnd(stop_reason=end.stop_reason, usage=usage, provider_metadata=meta or None)


def local_turn(provider: LocalChatProvider, request: ProviderRequest) -> AsyncGenerator[ProviderStreamEvent, None]:
    """Stream one turn from a compatible server (see the module docstring)."""
    key = ""
    params: dict[str, Any] = {}
    attempts: list[Any] = []  # the latest attempt's mapper
    probed = False

    def setup() -> None:
        nonlocal key
        key = resolve_api_key(provider._api_key, provider.env_var)
        params.update(provider.build_params(request))

    async def open_stream() -> Any:
        nonlocal probed
        last = attempts[-1] if attempts else None
        if last is not None and last.frames == 0 and last.finish_reason is None and not probed:
            probed = True
            await check_context(provider, key, params)
        attempts.clear()
        return await provider._open(provider._get_client(key), params)

    def new_mapper() -> StreamMapper:
        mapper = provider._new_mapper(key, params)
        attempts.append(mapper)
        return mapper

    def map_exception(exc: BaseException) -> BaseException:
        err = map_error(exc, vendor=provider.vendor, secrets=(key,))
        if isinstance(err, EmptyStreamError) and not probed:
            err.retry_now = True  # the next attempt starts with the plain probe, no backoff
        return err

    async def amend_end(end: MessageEnd) -> MessageEnd:
        return await honest_end(provider, key, params, attempts[-1], end)

    return retrying_stream(
        open_stream, new_mapper, map_exception, request.max_retries, provider.retry_policy, setup, amend_end
    )
