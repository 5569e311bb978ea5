"""`WireProvider`: what the three vendor providers share.

A lazy API-key check (a missing key surfaces on the first iteration, naming the
variable), one SDK client per (key, event loop), and skawld-managed retries
around a vendor stream that a per-attempt mapper normalizes.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncGenerator, Mapping
from typing import Any, ClassVar

from .base import BaseProvider, ProviderRequest, ProviderStreamEvent
from .common import DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, ClientCache, resolve_api_key
from .errors_map import map_error
from .retry import DEFAULT_POLICY, RetryPolicy, StreamMapper, mapped_stream


class WireProvider(BaseProvider):
    """Base of the vendor providers. Subclasses set `env_var` and `vendor` and
    implement `_make_client`, `build_params`, `_new_mapper` and `_open`."""

    env_var: ClassVar[str]
    vendor: ClassVar[str]

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        default_headers: Mapping[str, str] | None = None,
        retry_policy: RetryPolicy | None = None,
    ) -> None:
        self._api_key = api_key
        self.base_url = base_url
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.default_headers = dict(default_headers or {})
        self.retry_policy = retry_policy or DEFAULT_POLICY
        self._clients = ClientCache(self._make_client)

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    @abstractmethod
    def _make_client(self, key: str) -> Any:
        """A vendor SDK client with its own retries off."""

    @abstractmethod
    def build_params(self, request: ProviderRequest) -> dict[str, Any]:
        """The wire request body for `request`."""

    @abstractmethod
    def _new_mapper(self, key: str) -> StreamMapper:
        """A fresh mapper from vendor events to skawld stream events (one per attempt)."""

    @abstractmethod
    async def _open(self, client: Any, params: dict[str, Any]) -> Any:
        """Open the vendor's event stream."""

    def _get_client(self, key: str) -> Any:
        return self._clients.get(key)

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

        return mapped_stream(
            open_stream,
            lambda: self._new_mapper(key),
            lambda exc: map_error(exc, vendor=self.vendor, secrets=(key,)),
            request.max_retries,
            self.retry_policy,
            setup,
        )

    async def aclose(self) -> None:
        """Close the SDK client (its connection pool)."""
        await self._clients.aclose()
