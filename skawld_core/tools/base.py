"""The `Tool` contract: a named, schema-validated, scoped async callable."""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import ToolInputError
from ..messages import DocumentBlock, ImageBlock, TextBlock
from .file_tracker import FileReadTracker
from .path_policy import PathPolicy, register_path_policy
from .validation_text import validation_message

if TYPE_CHECKING:
    from ..events import Event
    from ..sessions.store import SessionStore

ToolScope = Literal["read", "write", "exec"]
InputT = TypeVar("InputT", bound=BaseModel)


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """What a tool returns. `content` becomes the `tool_result` block's content."""

    content: str | Sequence[TextBlock | ImageBlock | DocumentBlock]
    summary: str = ""
    is_error: bool = False


def error_result(text: str, *, prefix: str = "Error: ") -> ToolResult:
    """An `is_error` result (summary ``error``) saying `prefix` + `text`; the file tools
    whose reference messages are bare sentences pass ``prefix=""``."""
    return ToolResult(content=f"{prefix}{text}", summary="error", is_error=True)


def _allow_every_path(_: Path) -> bool:
    return True


def _no_objection(_: Path) -> str | None:
    return None


@dataclass(frozen=True, kw_only=True)
class ToolContext:
    """Per-call context. Cancellation is asyncio's: an aborted call is cancelled.

    `can_read` answers whether a resolved real path may be read under the
    permission rules; Glob and Grep use it to leave out files a Read deny rule
    covers. `verify_open` gets the real path of a file a file tool actually
    opened (Read, Write, Edit, a Grep target) and returns why it may not be used,
    or None; the scheduler sets it from the permission decision, so a symlink
    swapped in after the check cannot reach a denied file. `emit` streams
    interim events between `tool_call_start` and `tool_call_end`.
    """

    cwd: Path
    session_id: str
    run_id: str
    tool_use_id: str
    file_read_tracker: FileReadTracker = field(default_factory=FileReadTracker)
    session_store: SessionStore | None = None
    emit: Callable[[Event], None] | None = None
    can_read: Callable[[Path], bool] = _allow_every_path
    verify_open: Callable[[Path], str | None] = _no_objection
    extras: dict[str, Any] = field(default_factory=dict)


class Tool(ABC, Generic[InputT]):
    """Base class of every tool.

    Subclasses set `name`, `description`, `scope`, `parallel_safe` and
    `input_model`, and implement `execute`. `validate` turns raw model input into
    the input model (raising `ToolInputError`); `summarize` gives a one-line text
    for UIs and permission prompts.

    A tool that touches files sets `path_policy` (which input fields are paths,
    read or edit family): the permission engine applies path rules, Claude's
    `Read(…)`/`Edit(…)` rules and the protected-path check from it. A class that
    sets both `name` and `path_policy` registers the policy under its name.
    """

    name: str
    description: str
    scope: ToolScope = "read"
    parallel_safe: bool = False
    input_model: type[InputT]
    path_policy: ClassVar[PathPolicy | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name, policy = cls.__dict__.get("name"), cls.__dict__.get("path_policy")
        if isinstance(name, str) and isinstance(policy, PathPolicy):
            register_path_policy(name, policy)

    @property
    def input_schema(self) -> dict[str, Any]:
        """JSON schema of the input, without pydantic's titles (computed once per model)."""
        return _schema_for(self.input_model)

    def validate(self, raw: dict[str, Any]) -> InputT:
        """Validate raw input; raises `ToolInputError` with a readable message."""
        try:
            return self.input_model.model_validate(raw)
        except ValidationError as exc:
            raise ToolInputError(validation_message(self.input_model, exc), tool_name=self.name) from None

    def dump_input(self, value: InputT) -> dict[str, Any]:
        """The canonical dict form of a validated input (reported in events)."""
        return value.model_dump(exclude_none=True, by_alias=True)

    def summarize(self, value: InputT) -> str:
        """One line describing the call, e.g. `Read src/app.py`."""
        import json

        return f"{self.name} {json.dumps(self.dump_input(value), ensure_ascii=False)}"

    async def precheck(self, value: InputT, ctx: ToolContext) -> ToolResult | None:
        """A call bound to fail, caught cheaply before the user is asked to allow it
        (an Edit of a file not yet Read): the error result the model gets instead of
        a permission question, or None. `execute` must repeat these checks, since the
        file can change between the two."""
        return None

    @abstractmethod
    async def execute(self, value: InputT, ctx: ToolContext) -> ToolResult:
        """Run the tool. Errors the model should see are `ToolResult(is_error=True)`."""


AnyTool = Tool[Any]


@functools.lru_cache(maxsize=512)
def _schema_for(model: type[BaseModel]) -> dict[str, Any]:
    return clean_schema(model.model_json_schema())


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's `title` keys (noise for models) recursively."""

    def walk(node: Any, in_properties: bool = False) -> Any:
        if isinstance(node, dict):
            return {
                k: walk(v, k == "properties")
                for k, v in node.items()
                if not (k == "title" and not in_properties and isinstance(v, str))
            }
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    result: dict[str, Any] = walk(schema)
    return result
