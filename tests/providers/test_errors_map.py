"""`map_error` rules (reference §3 openai-errors.test / anthropic error mapping)."""

from __future__ import annotations

import time
from email.utils import formatdate
from typing import Any

import pytest

from skawld_core.errors import AbortError, AuthError, ContextLengthError, ProviderError, RateLimitError
from skawld_core.providers.errors_map import map_error, parse_retry_after, redact


class FakeResponse:
    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers


class FakeStatusError(Exception):
    def __init__(
        self, status: int, body: Any = None, headers: dict[str, str] | None = None, code: str | None = None
    ) -> None:
        super().__init__(f"Error code: {status}")
        self.status_code = status
        self.body = body
        self.code = code
        self.response = FakeResponse(headers or {})


def oa(status: int, message: str, code: str | None = None, headers: dict[str, str] | None = None) -> FakeStatusError:
    return FakeStatusError(status, {"message": message, "type": "invalid_request_error", "code": code}, headers, code)


def an(status: int, message: str, etype: str = "invalid_request_error") -> FakeStatusError:
    return FakeStatusError(status, {"type": "error", "error": {"type": etype, "message": message}})


def test_401_and_403_are_auth() -> None:
    assert isinstance(map_error(oa(401, "bad key"), vendor="OpenAI"), AuthError)
    assert isinstance(map_error(an(403, "forbidden", "permission_error"), vendor="Anthropic"), AuthError)


def test_429_retry_after_seconds_and_ms() -> None:
    e = map_error(oa(429, "slow", headers={"retry-after": "8"}), vendor="OpenAI")
    assert isinstance(e, RateLimitError) and e.retry_after_seconds == 8 and e.retryable
    e = map_error(an(429, "slow", "rate_limit_error"), vendor="Anthropic")
    assert isinstance(e, RateLimitError) and e.retry_after_seconds is None
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "12"}) == 12


def test_429_http_date_retry_after_is_a_delta() -> None:
    e = map_error(oa(429, "slow", headers={"retry-after": formatdate(time.time() + 5, usegmt=True)}), vendor="OpenAI")
    assert isinstance(e, RateLimitError) and e.retry_after_seconds is not None
    assert 3 <= e.retry_after_seconds <= 6
    assert parse_retry_after({"retry-after": formatdate(time.time() - 60, usegmt=True)}) == 0
    assert parse_retry_after({"retry-after": "garbage"}) is None


def test_context_length_detection() -> None:
    assert isinstance(
        map_error(oa(400, "whatever", code="context_length_exceeded"), vendor="OpenAI"), ContextLengthError
    )
    assert isinstance(
        map_error(oa(400, "This model's maximum context length is 8k"), vendor="OpenAI"), ContextLengthError
    )
    assert isinstance(
        map_error(an(400, "prompt is too long: 208656 tokens > 200000 maximum"), vendor="Anthropic"), ContextLengthError
    )
    assert isinstance(
        map_error(an(413, "request too large", "request_too_large"), vendor="Anthropic"), ContextLengthError
    )
    # a structured code that is not context_length_exceeded wins over the message
    e = map_error(oa(400, "maximum context length mentioned", code="other_code"), vendor="OpenAI")
    assert isinstance(e, ProviderError) and not e.retryable


def test_other_400_is_not_retryable() -> None:
    e = map_error(oa(400, "max_tokens is too large: 999999"), vendor="OpenAI")
    assert isinstance(e, ProviderError) and not e.retryable and e.status == 400
    assert "max_tokens is too large" in str(e)


@pytest.mark.parametrize("status", [500, 502, 503, 529, 408, 409])
def test_server_errors_are_retryable(status: int) -> None:
    e = map_error(an(status, "overloaded", "overloaded_error"), vendor="Anthropic")
    assert isinstance(e, ProviderError) and e.retryable and e.status == status


def test_nested_error_message_is_read() -> None:
    e = map_error(an(400, "the nested message"), vendor="Anthropic")
    assert "the nested message" in str(e) and "{" not in str(e)


def test_no_status_transport_errors_are_retryable() -> None:
    e = map_error(ConnectionResetError("ECONNRESET"), vendor="Anthropic")
    assert isinstance(e, ProviderError) and e.retryable and e.status is None


def test_abort_and_skawld_errors() -> None:
    class AbortErrorLike(Exception):
        pass

    AbortErrorLike.__name__ = "AbortError"
    assert isinstance(map_error(AbortErrorLike("Request was aborted."), vendor="OpenAI"), AbortError)
    original = ContextLengthError("x")
    assert map_error(original, vendor="OpenAI") is original


def test_unknown_exceptions_pass_through() -> None:
    bug = KeyError("programming error")
    assert map_error(bug, vendor="OpenAI") is bug


def test_in_stream_error_body_classification() -> None:
    class APIError(Exception):
        def __init__(self, body: Any) -> None:
            super().__init__("stream error")
            self.body = body

    e = map_error(APIError({"message": "boom", "type": "server_error", "code": None}), vendor="OpenAI")
    assert isinstance(e, ProviderError) and e.retryable
    e = map_error(
        FakeStatusError(200, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        vendor="Anthropic",
    )
    assert isinstance(e, ProviderError) and e.retryable
    e = map_error(
        FakeStatusError(200, {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}),
        vendor="Anthropic",
    )
    assert isinstance(e, ProviderError) and not e.retryable


def test_secrets_are_redacted() -> None:
    key = "sk-ant-very-secret"
    e = map_error(oa(400, f"key {key} rejected"), vendor="OpenAI", secrets=[key])
    assert key not in str(e) and "***" in str(e)
    assert redact("abc", [None, "", "ab"]) == "abc"


def test_a_5xx_carrying_a_validation_error_is_not_retried() -> None:
    # llama-cpp-python's wording for a request it cannot parse (recorded: a 500).
    e = map_error(
        FakeStatusError(500, {"error": {"message": "7 validation errors:\n  {'type': 'literal_error'}"}}),
        vendor="OpenAI",
    )
    assert isinstance(e, ProviderError) and not e.retryable and e.status == 500
    e = map_error(FakeStatusError(500, {"error": {"message": "1 validation error for ChatRequest"}}), vendor="OpenAI")
    assert isinstance(e, ProviderError) and not e.retryable
    e = map_error(FakeStatusError(500, {"error": {"message": "internal error during validation"}}), vendor="OpenAI")
    assert isinstance(e, ProviderError) and e.retryable
