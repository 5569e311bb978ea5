"""Profiles of OpenAI-compatible servers: flag sets on the wire server's Chat Completions renderer.

Two kinds, told apart by ``source``: profiles **recorded** from a real server (named
``<program>-<version>``; their fixtures, replayed byte for byte by `wire_replay`, are
under ``tests/fixtures/wire/``) and profiles **written from docs** (what a server's
documentation and issue tracker say; not verified against the program). They are
approximations of the servers' *differences from OpenAI*, not full emulations:

- **Ollama** (``/v1`` compatibility layer): tool calls arrive whole, one chunk each;
  thinking models stream ``reasoning``; older releases end tool turns with
  ``finish_reason: "stop"``; ``/v1/models`` has no context size, ``POST /api/show``
  reports ``model_info["<arch>.context_length"]``.
- **vLLM**: tool-call arguments streamed in pieces; reasoning parsers stream
  ``reasoning_content``; older releases reject ``max_completion_tokens``;
  ``/v1/models`` entries carry ``max_model_len``.
- **llama.cpp server** (C++ ``llama-server``, from docs): one model; usage in the final
  chunk whether asked or not; ``reasoning_content`` deltas; ``/v1/models`` entries
  carry ``meta.n_ctx_train``.
- **llama-cpp-python 0.3.36** (recorded, SmolLM2-135M, ``n_ctx`` 2048): the model id is
  the ``.gguf`` path; no usage in the stream even when asked; no context size anywhere
  (``/props`` 404); ``/extras/tokenize[/count]``; ``max_completion_tokens`` ignored,
  ``max_tokens`` read; a prompt over the context streams an *empty* 200 (400
  ``context_length_exceeded`` non-streamed); ``content: null`` on an assistant turn
  with tool calls is a 500 with pydantic validation errors; tool calls only when forced.
- **LM Studio**: text content must be a string (older releases answer 500/400 for a
  list of parts); no usage in the stream; tool calls without ``index``.
- **LiteLLM proxy** (from docs): rejects OpenAI-only parameters its backend lacks with a
  400 naming them (``UnsupportedParamsError``); ``GET /model/info`` lists
  ``max_input_tokens``.
- **LiteLLM 1.106.12** (recorded, in front of the Anthropic test server): accepts
  ``stream_options`` and streams usage; tool calls carry ids; ``/v1/models`` entries
  carry ``max_input_tokens``; a prompt over the backend's context is a 400
  ``ContextWindowExceededError`` with ``code: "400"``, streamed or not.
- **mockllm-like**: string-only content, no usage, no tools (what the PyPI ``mockllm``
  server answers).

Usage: ``srv.chat.profile = PROFILES["ollama"]`` (see `tests.support.wire_server`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

UsageMode = Literal["stream_options", "always", "never"]


@dataclass(frozen=True)
class ChatProfile:
    """How one compatible server differs from OpenAI's Chat Completions."""

    name: str = "openai"
    source: Literal["docs", "recorded"] = "docs"
    """``recorded`` from the real program (see `wire_replay`), or written from its docs."""
    string_content_only: bool = False
    """A message whose ``content`` is a list is answered with ``content_error_status``."""
    content_error_status: int = 400
    null_assistant_content_ok: bool = True
    null_content_error_status: int = 400
    rejects: tuple[str, ...] = ()
    """Request parameters answered with a 400 that names them."""
    tool_calls_whole: bool = False
    """Each tool call in one chunk (id, name and all arguments)."""
    args_as_object: bool = False
    tool_ids: bool = True
    tool_index: bool = True
    finish_after_tools: str = "tool_calls"
    reasoning_field: str | None = None
    """``reasoning_content`` or ``reasoning``: thinking parts stream in that delta field."""
    usage: UsageMode = "stream_options"
    models: list[dict[str, Any]] = field(default_factory=lambda: [{"id": "m", "object": "model", "owned_by": "me"}])
    """The ``data`` of ``GET /v1/models``."""
    get_routes: dict[str, Any] = field(default_factory=dict)
    """Extra ``GET`` paths answered with this JSON (e.g. LiteLLM's ``/model/info``)."""
    post_routes: dict[str, Any] = field(default_factory=dict)
    """Extra ``POST`` paths answered with this JSON (e.g. Ollama's ``/api/show``), or with
    what a callable of the request body returns."""

    def request_error(self, body: Any) -> tuple[int, Any] | None:
        """The error this server answers ``body`` with, or None when it accepts it."""
        if not isinstance(body, dict):
            return None
        for name in self.rejects:
            if name in body:
                return 400, {
                    "error": {
                        "message": f"Unsupported parameter: '{name}' is not supported by this server.",
                        "type": "invalid_request_error",
                        "param": name,
                        "code": None,
                    }
                }
        for message in body.get("messages") or ():
            content = message.get("content")
            if self.string_content_only and isinstance(content, list):
                return self.content_error_status, {"detail": "content must be a string"}
            if content is None and message.get("role") == "assistant" and not self.null_assistant_content_ok:
                return self.null_content_error_status, {
                    "error": {
                        "message": "1 validation error: content must not be null",
                        "type": "invalid_request_error",
                    }
                }
        return None


OPENAI = ChatProfile(usage="always")
"""The default: OpenAI itself, with usage always sent (as the providers always ask for it)."""

PROFILES: dict[str, ChatProfile] = {
    "ollama": ChatProfile(
        name="ollama",
        tool_calls_whole=True,
        finish_after_tools="stop",
        reasoning_field="reasoning",
        models=[
            {"id": "qwen3:8b", "object": "model", "owned_by": "library"},
            {"id": "llama3.2:3b", "object": "model", "owned_by": "library"},
        ],
        post_routes={
            "/api/show": {"model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960}},
        },
    ),
    "vllm": ChatProfile(
        name="vllm",
        rejects=("max_completion_tokens",),
        reasoning_field="reasoning_content",
        models=[{"id": "Qwen/Qwen3-8B", "object": "model", "owned_by": "vllm", "max_model_len": 32768}],
    ),
    "llamacpp": ChatProfile(
        name="llama-server (C++, from docs)",
        usage="always",
        reasoning_field="reasoning_content",
        null_assistant_content_ok=False,
        models=[{"id": "model.gguf", "object": "model", "owned_by": "llamacpp", "meta": {"n_ctx_train": 8192}}],
    ),
    "lmstudio": ChatProfile(
        name="lmstudio",
        string_content_only=True,
        usage="never",
        tool_index=False,
        args_as_object=True,
        models=[{"id": "qwen2.5-7b-instruct", "object": "model", "owned_by": "organization_owner"}],
    ),
    "litellm": ChatProfile(
        name="litellm (from docs)",
        rejects=("parallel_tool_calls", "stream_options"),
        tool_ids=False,
        models=[{"id": "team-model", "object": "model", "owned_by": "openai"}],
        get_routes={
            "/model/info": {
                "data": [{"model_name": "team-model", "model_info": {"max_input_tokens": 65536, "max_tokens": 8192}}]
            }
        },
    ),
    "llama-cpp-python-0.3.36": ChatProfile(
        name="llama-cpp-python-0.3.36",
        source="recorded",
        usage="never",
        null_assistant_content_ok=False,
        null_content_error_status=500,
        models=[
            {"id": "/models/SmolLM2-135M-Instruct.Q4_1.gguf", "object": "model", "owned_by": "me", "permissions": []}
        ],
        post_routes={"/extras/tokenize/count": {"count": 2}, "/extras/tokenize": {"tokens": [28120, 905]}},
    ),
    "litellm-1.106.12": ChatProfile(
        name="litellm-1.106.12",
        source="recorded",
        models=[
            {
                "id": "claude-test",
                "object": "model",
                "owned_by": "openai",
                "mode": "chat",
                "max_input_tokens": 200000,
                "max_output_tokens": 64000,
            }
        ],
    ),
    "mockllm": ChatProfile(name="mockllm", string_content_only=True, content_error_status=500, usage="never"),
}
