"""`ToolRegistry`: a name-keyed bag of tools, in registration order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..errors import ConfigError
from ..providers.base import ToolSchema
from .base import AnyTool


class ToolRegistry:
    """Tools by name. Registering a duplicate name raises `ConfigError`."""

    def __init__(self, tools: Iterable[AnyTool] = ()) -> None:
        self._tools: dict[str, AnyTool] = {}
        self._schemas: list[ToolSchema] | None = None
        for t in tools:
            self.register(t)

    def register(self, tool: AnyTool) -> None:
        if tool.name in self._tools:
            raise ConfigError(f"Tool '{tool.name}' is already registered")
        self._tools[tool.name] = tool
        self._schemas = None

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)
        self._schemas = None

    def get(self, name: str) -> AnyTool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[AnyTool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        """Tool names, sorted (as the system event and prompt list them)."""
        return sorted(self._tools)

    def schemas(self) -> list[ToolSchema]:
        """What the model is told about each tool (cached until the set changes)."""
        if self._schemas is None:
            self._schemas = [
                ToolSchema(name=t.name, description=t.description, input_schema=t.input_schema) for t in self
            ]
        return list(self._schemas)

    def filtered(self, keep: Iterable[str]) -> ToolRegistry:
        wanted = set(keep)
        return ToolRegistry(t for t in self if t.name in wanted)
