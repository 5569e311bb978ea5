"""Map vendor SDK / HTTP failures to skawld's typed errors.

Everything is read by duck typing from the HTTP status, headers and body
(``status_code``, ``headers`` or ``response.headers``, ``body``), so the SDKs' exception
classes and the HTTP transport's plain `HttpStatusFailure` / `StreamErrorEvent` map
the same way, and this module imports no SDK.

- an existing `SkawldError` passes through unchanged;
- 401/403 → `AuthError` (never retried);
- 429 → `RateLimitError` with ``retry-after-ms`` / ``retry-after`` (seconds or HTTP date);
- 400 prompt-too-long / ``context_length_exceeded`` and 413 → `ContextLengthError`;
- 408/409/≥500, in-stream overloaded/api errors, and transport errors (no status)
  → retryable `ProviderError`; any other 4xx, and a 5xx whose message is a request
  validation error (pydantic's "N validation errors"), → non-retryable `ProviderError`;
- an ``x-should-retry: true|false`` response header overrides that choice (as in the SDKs).

Messages are built from the API's own error text, and any API key is scrubbed.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import AbortError, AuthError, ContextLengthError, ProviderError, RateLimitError, SkawldError

_CONTEXT_RE = re.compile(r"prompt is too long|maximum context length|ContextWindowExceededError", re.IGNORECASE)
_VALIDATION_RE = re.compile(r"\b\d+ validation errors?\b|\bvalidation error for\b", re.IGNORECASE)
"""pydantic's wording: a server that rejects the request's shape (llama-cpp-python says so with a 500)."""
_RETRYABLE_STATUSES = frozenset({408, 409})
_RETRYABLE_TYPES = frozenset({"overloaded_error", "api_error", "server_error", "internal_error", "timeout_error"})
_TRANSPORT_NAMES = frozenset(
    {
        "APIConnectionError",
        "APITimeoutError",
        "TransportError",
        "TimeoutException",
        "NetworkError",
        "RemoteProtocolError",
        "ReadError",
        "ReadTimeout",
        "ConnectError",
        "ConnectTimeout",
        "WriteError",
        "PoolTimeout",
        "ProtocolError",
        "IncompleteRead",
    }
)


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date)."""
    if not headers:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every non-trivial secret in ``text`` with ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4 and secret in text:
            text = text.replace(secret, "***")
    return text


def _error_object(body: Any) -> Mapping[str, Any]:
    """The inner ``{"type","message","code"}`` object of an error body (either vendor)."""
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping):
            return inner
        return body
    return {}


def _headers(exc: BaseException) -> Mapping[str, str] | None:
    own = getattr(exc, "headers", None)
    if isinstance(own, Mapping):
        return own
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return headers if isinstance(headers, Mapping) else None


def _is_transport_error(exc: BaseException) -> bool:
    if isinstance(exc, (OSError, TimeoutError, EOFError)):
        return True
    return any(cls.__name__ in _TRANSPORT_NAMES for cls in type(exc).__mro__)


def map_error(
    exc: BaseException,
    *,
    vendor: str,
    secrets: Iterable[str | None] = (),
) -> BaseException:
    """Return the skawld error for ``exc`` (or ``exc`` itself when it is not a provider failure).

    ``vendor`` is a display name (``"Anthropic"``, ``"OpenAI"``); ``secrets`` are scrubbed
    from the message.
    """
    if isinstance(exc, SkawldError):
        return exc
    if type(exc).__name__ == "AbortError":
        return AbortError(str(exc) or "aborted", cause=exc)
    if isinstance(exc, json.JSONDecodeError):
        # A corrupted stream frame: like a broken connection, worth a retry before output.
        return ProviderError(f"{vendor} sent a malformed stream event: {exc.msg}", retryable=True, cause=exc)
    secret_list = list(secrets)
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    err = _error_object(body)
    err_type = str(err.get("type") or getattr(exc, "type", None) or "")
    code = err.get("code") if err.get("code") is not None else getattr(exc, "code", None)
    code = str(code) if code is not None else None
    api_message = err.get("message") or getattr(exc, "api_message", None)
    if not isinstance(api_message, str) or not api_message:
        api_message = str(getattr(exc, "message", None) or exc) or type(exc).__name__
    api_message = redact(api_message, secret_list)

    if not isinstance(status, int) or status == 200:
        # In-stream error event (status 200 or none): classify by the error type/code.
        if err_type or code:
            return _classify_stream_error(err_type, code, api_message, vendor, exc)
        if _is_transport_error(exc) or type(exc).__name__ in ("APIError", "StreamErrorEvent"):
            return ProviderError(f"{vendor} connection error: {api_message}", retryable=True, cause=exc)
        return exc

    label = f"{vendor} API error {status}"
    if err_type:
        label += f" ({err_type})"
    text = f"{label}: {api_message}"
    if status in (401, 403):
        return AuthError(text, cause=exc)
    if status == 429:
        return RateLimitError(text, retry_after_seconds=parse_retry_after(_headers(exc)), cause=exc)
    if status == 413:
        return ContextLengthError(text, cause=exc)
    if status == 400 and _is_context_length(code, api_message):
        return ContextLengthError(text, cause=exc)
    retryable = status >= 500 or status in _RETRYABLE_STATUSES
    if retryable and status >= 500 and _VALIDATION_RE.search(api_message):
        retryable = False  # the same request fails the same way
    should = (_headers(exc) or {}).get("x-should-retry")
    if should in ("true", "false"):
        retryable = should == "true"
    return ProviderError(text, status=status, retryable=retryable, cause=exc)


def _is_context_length(code: str | None, message: str) -> bool:
    if code == "context_length_exceeded":
        return True
    if code and not code.isdigit():  # LiteLLM's code is the status ("400"): read the message
        return False
    return bool(_CONTEXT_RE.search(message))


def _classify_stream_error(
    err_type: str, code: str | None, message: str, vendor: str, exc: BaseException | None
) -> SkawldError:
    """Classify an error reported inside a 200 stream by its type/code."""
    text = f"{vendor} stream error ({code or err_type}): {message}"
    kinds = {err_type, code or ""}
    if kinds & {"authentication_error", "permission_error", "invalid_api_key"}:
        return AuthError(text, cause=exc)
    if kinds & {"rate_limit_error", "rate_limit_exceeded"}:
        return RateLimitError(text, cause=exc)
    if code == "context_length_exceeded" or _CONTEXT_RE.search(message):
        return ContextLengthError(text, cause=exc)
    retryable = bool(kinds & _RETRYABLE_TYPES)
    return ProviderError(text, retryable=retryable, cause=exc)


def stream_error(
    err_type: str | None, code: str | None, message: str | None, *, vendor: str, secrets: Iterable[str | None] = ()
) -> SkawldError:
    """The skawld error for an error event the SDK yielded instead of raising."""
    return _classify_stream_error(err_type or "", code, redact(message or "unknown error", list(secrets)), vendor, None)
