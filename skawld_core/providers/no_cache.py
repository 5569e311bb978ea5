"""`NoCacheProvider`: wraps a provider so that no request asks for prompt caching (`--no-cache`)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from skawld_core.providers.base import BaseProvider, ProviderRequest, ProviderStreamEvent


class NoCacheProvider(BaseProvider):
    """Delegates to `inner`, with ``cache_prompt=False`` and no cacheable system blocks."""

    def __init__(self, inner: BaseProvider) -> None:
        self.inner = inner
        self.id = inner.id

    def context_window(self, model: str) -> int:
        return self.inner.context_window(model)

    @property
    def is_local(self) -> bool:
        return self.inner.is_local

    async def stream(self, request: ProviderRequest) -> AsyncGenerator[ProviderStreamEvent, None]:
        system = [block.model_copy(update={"cacheable": False}) for block in request.system]
        uncached = request.model_copy(update={"cache_prompt": False, "system": system, "cache_ttl": None})
        async for event in self.inner.stream(uncached):
            yield event

    async def warm(self) -> None:
        await self.inner.warm()

    async def aclose(self) -> None:
        await self.inner.aclose()
