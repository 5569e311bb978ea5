"""`@server:uri` completion: the MCP servers' resources as `@` candidates.

Each ready server's `resources/list` is read once and cached; a `resources/list_changed` from a
server (counted in `McpManager.changes`) makes its list stale, and the next `@` reads it again.
Listing is async and completion is not: the composer asks `stale()`, reads with `refresh()` in
a worker, and shows `matching()` from the cache meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skawld_core.mcp.manager import McpManager

__all__ = ["McpResourceIndex", "ResourceCandidate"]


@dataclass(frozen=True)
class ResourceCandidate:
    """One resource as a mention."""

    server: str
    uri: str
    name: str

    @property
    def mention(self) -> str:
        """What follows the `@`: ``server:uri``."""
        return f"{self.server}:{self.uri}"


class McpResourceIndex:
    """The cached resources of every ready server, each with the change count it was read at."""

    def __init__(self) -> None:
        self._by_server: dict[str, tuple[int, list[ResourceCandidate]]] = {}

    @staticmethod
    def _ready(manager: McpManager) -> list[str]:
        return [name for name, conn in manager.connections.items() if conn.status == "ready"]

    def stale(self, manager: McpManager) -> list[str]:
        """Ready servers never read, or read before their last `resources/list_changed`."""
        return [
            name
            for name in self._ready(manager)
            if self._by_server.get(name, (-1, []))[0] != manager.changes.get(f"{name}:resources", 0)
        ]

    async def refresh(self, manager: McpManager, servers: list[str]) -> None:
        """Read `servers`' resource lists (a server that fails to list has none)."""
        for name in servers:
            conn = manager.connections.get(name)
            if conn is None:
                continue
            count = manager.changes.get(f"{name}:resources", 0)  # before listing: a change during it stays stale
            try:
                listed = await conn.list_resources()
            except Exception:
                listed = []
            found = [ResourceCandidate(name, str(r.uri), str(getattr(r, "name", "") or "")) for r in listed]
            self._by_server[name] = (count, found)

    def matching(self, manager: McpManager, token: str, limit: int = 8) -> list[str]:
        """``server:uri`` of the cached resources whose mention or name contains `token`
        (case-insensitive), those starting with it first."""
        needle = token.lower()
        hits: list[tuple[int, str]] = []
        for name in self._ready(manager):
            for candidate in self._by_server.get(name, (0, []))[1]:
                mention = candidate.mention.lower()
                if mention.startswith(needle):
                    hits.append((0, candidate.mention))
                elif needle in mention or needle in candidate.name.lower():
                    hits.append((1, candidate.mention))
        return [mention for _rank, mention in sorted(hits)[:limit]]
