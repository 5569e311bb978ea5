"""WebFetch's page cache: a fetched URL is answered from memory for 15 minutes.

Claude Code's WebFetch keeps a self-cleaning 15-minute cache, so asking a second
question of the same page (another `prompt`) does not fetch it again. This one is
per tool instance, keyed by the URL after the http→https upgrade, bounded in bytes
(least recently used pages go first), and holds only answers worth repeating:
pages below HTTP 400 and cross-host redirects. Errors and timeouts are fetched again.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from .web_client import CrossHostRedirect, Fetched

__all__ = ["CACHE_BYTES", "CACHE_SECONDS", "PageCache"]

CACHE_SECONDS = 15 * 60.0
CACHE_BYTES = 50 * 1024 * 1024


class _Entry:
    # a plain slotted class: a dataclass would cost its creation on every start (DESIGN 14)
    __slots__ = ("expires", "size", "value")

    def __init__(self, value: Fetched | CrossHostRedirect, expires: float, size: int) -> None:
        self.value, self.expires, self.size = value, expires, size


class PageCache:
    """URL → last good answer, for `ttl` seconds, at most `max_bytes` of bodies in all."""

    def __init__(
        self,
        ttl: float = CACHE_SECONDS,
        max_bytes: int = CACHE_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_bytes = max_bytes
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0

    def get(self, url: str) -> Fetched | CrossHostRedirect | None:
        """The cached answer for `url`, or None when there is none or it expired."""
        self._drop_expired()
        entry = self._entries.get(url)
        if entry is None:
            return None
        self._entries.move_to_end(url)
        return entry.value

    def put(self, url: str, value: Fetched | CrossHostRedirect) -> None:
        """Remember `value` for `url` if it is worth repeating and fits."""
        if isinstance(value, Fetched) and value.status >= 400:
            return
        size = len(value.body) if isinstance(value, Fetched) else 0
        if size > self.max_bytes:
            return
        self._remove(url)
        self._drop_expired()
        while self._entries and self._bytes + size > self.max_bytes:
            self._remove(next(iter(self._entries)))
        self._entries[url] = _Entry(value, self._clock() + self.ttl, size)
        self._bytes += size

    def __len__(self) -> int:
        self._drop_expired()
        return len(self._entries)

    def _drop_expired(self) -> None:
        now = self._clock()
        for url in [u for u, e in self._entries.items() if e.expires <= now]:
            self._remove(url)

    def _remove(self, url: str) -> None:
        entry = self._entries.pop(url, None)
        if entry is not None:
            self._bytes -= entry.size
