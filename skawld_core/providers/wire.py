"""`WireProvider`: what the three vendor providers share.

A lazy API-key check (a missing key surfaces on the first iteration, naming the
variable), one client per (key, event loop), and skawld-managed retries around a
vendor stream that a per-attempt mapper normalizes.

Three transports carry the same wire JSON (the mappers cannot tell them apart):

- ``transport="http"`` (the default): `http_transport.HttpClient`, a thin streaming
  client that sends what the SDKs send, on asyncio streams (`aio_http`); ``httpx2``
  carries instead when proxies are configured or the API answers with a redirect.
- ``transport="httpx"``: the same client, always on ``httpx2`` (the escape hatch, and
  what the tests run the HTTP transport on besides the default).
- ``transport="sdk"``: the official SDK client's generic ``post(..., stream=True)``, for
  what only the SDKs do (their credential discovery, profiles, and cloud variants).

Start-up decision (DESIGN 14, README "Performance"): neither ``import anthropic`` /
``import openai`` (1–2 s of pydantic type modules) nor ``import httpx2`` (its stack is
about 0.1 s of CPU) is on the path of the first request of ``skawld -p``; the default
transport needs only the standard library, so the request can leave within about 0.3 s
of process start. The TLS context (and ``httpx2`` when it will carry) is prepared in a
background thread when the provider is built (`http_transport.prewarm`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncGenerator, Mapping
from typing import Any, ClassVar, Literal

from ..errors import ConfigError
from .base import BaseProvider, ProviderRequest, ProviderStreamEvent
from .common import DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, ClientCache, resolve_api_key
from .errors_map import map_error
from .http_transport import Carrier, HttpClient, SseDialect, prewarm, resolve_base_url
from .openai_compat import is_local_url
from .retry import DEFAULT_POLICY, RetryPolicy, StreamMapper, retrying_stream

Transport = Literal["http", "httpx", "sdk"]
TRANSPORTS: tuple[str, ...] = ("http", "httpx", "sdk")


class WireProvider(BaseProvider):
    """Base of the vendor providers. Subclasses set `env_var`, `vendor` and the HTTP
    transport's class attributes, and implement `_make_sdk_client`, `build_params`,
    `_new_mapper`, `_open_sdk` and `_http_headers`."""

    env_var: ClassVar[str]
    vendor: ClassVar[str]
    base_url_env: ClassVar[str]
    default_base_url: ClassVar[str]
    api_path: ClassVar[str]
    sse_dialect: ClassVar[SseDialect]

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        default_headers: Mapping[str, str] | None = None,
        retry_policy: RetryPolicy | None = None,
        transport: Transport | str = "http",
    ) -> None:
        if transport not in TRANSPORTS:
            raise ConfigError(f"transport must be one of {', '.join(TRANSPORTS)}, got {transport!r}")
        self.transport: Transport = transport  # type: ignore[assignment]
        self._api_key = api_key
        self.base_url = base_url
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.default_headers = dict(default_headers or {})
        self.retry_policy = retry_policy or DEFAULT_POLICY
        self._clients = ClientCache(self._make_client)
        self.configured_context_window: int | None = None
        """Config ``provider.contextWindow``: wins over what the server or the table says."""
        self.discovered_windows: dict[str, int] = {}
        """Context windows the server reported (see `discovery.discover_in_background`)."""
        if self.transport != "sdk":
            prewarm(self.resolved_base_url, self._carrier)

    @property
    def _carrier(self) -> Carrier:
        return "httpx" if self.transport == "httpx" else "auto"

    def window_hint(self, model: str) -> int | None:
        """The configured context window, else the one the server reported for ``model``."""
        return self.configured_context_window or self.discovered_windows.get(model)

    @property
    def resolved_base_url(self) -> str:
        """The API root requests go to (argument, else environment, else the vendor's)."""
        return resolve_base_url(self.base_url, self.base_url_env, self.default_base_url)

    @property
    def is_local(self) -> bool:
        """True for a loopback / private-network base URL (see `openai_compat.is_local_url`)."""
        return is_local_url(self.resolved_base_url)

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}(base_url={self.base_url!r}, transport={self.transport!r})"

    def _make_client(self, key: str) -> Any:
        """The client of the chosen transport."""
        if self.transport == "sdk":
            return self._make_sdk_client(key)
        return HttpClient(
            self.resolved_base_url,
            self._http_headers(key),
            self.timeout,
            self.connect_timeout,
            self.sse_dialect,
            self._carrier,
        )

    @abstractmethod
    def _make_sdk_client(self, key: str) -> Any:
        """A vendor SDK client with its own retries off."""

    @abstractmethod
    def _http_headers(self, key: str) -> dict[str, str]:
        """Request headers of the HTTP transport (auth, version, custom headers)."""

    def _request_body(self, params: dict[str, Any]) -> dict[str, Any]:
        """The JSON body the HTTP transport posts (``params`` by default)."""
        return params

    @abstractmethod
    def build_params(self, request: ProviderRequest) -> dict[str, Any]:
        """The wire request body for `request`."""

    @abstractmethod
    def _new_mapper(self, key: str, params: dict[str, Any]) -> StreamMapper:
        """A fresh mapper from vendor events to skawld stream events (one per attempt)."""

    async def _open(self, client: Any, params: dict[str, Any]) -> Any:
        """Open the event stream on the chosen transport."""
        if self.transport == "sdk":
            return await self._open_sdk(client, params)
        return await client.stream(self.api_path, self._request_body(params))

    @abstractmethod
    async def _open_sdk(self, client: Any, params: dict[str, Any]) -> Any:
        """Open the vendor's event stream through the SDK client."""

    def _get_client(self, key: str) -> Any:
        return self._clients.get(key)

    async def warm(self) -> None:
        """Get ready for the first request on the running loop: build the client and, on the
        HTTP transport, open its connection (TCP and TLS handshakes) in advance. Never
        raises: without a key or a reachable server, the first request reports the problem."""
        try:
            client = self._get_client(resolve_api_key(self._api_key, self.env_var))
            if isinstance(client, HttpClient):
                await client.warm()
        except Exception:
            pass

    def stream(self, request: ProviderRequest) -> AsyncGenerator[ProviderStreamEvent, None]:
        """Stream one turn with skawld-managed retries.

        A missing key raises `AuthError` on the first iteration, before any request.
        """
        key = ""
        params: dict[str, Any] = {}

        def setup() -> None:  # runs on first iteration, so every failure surfaces there
            nonlocal key
            key = resolve_api_key(self._api_key, self.env_var)
            params.update(self.build_params(request))

        async def open_stream() -> Any:
            return await self._open(self._get_client(key), params)

        return retrying_stream(
            open_stream,
            lambda: self._new_mapper(key, params),
            lambda exc: map_error(exc, vendor=self.vendor, secrets=(key,)),
            request.max_retries,
            self.retry_policy,
            setup,
        )

    async def aclose(self) -> None:
        """Close the SDK client (its connection pool)."""
        await self._clients.aclose()
