"""Public value types of the permission engine: callback contract and decisions."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict

from ..messages import PermissionMode
from ..model_base import SkawldModel
from ..tools.base import ToolScope
from ..tools.path_policy import PathPolicy

Decision = Literal["allow", "deny", "ask"]


class PermissionAllow(SkawldModel):
    """`can_use_tool` answer: run the tool, optionally with a replaced input.

    A non-`None` `updated_input` is re-validated through the tool's schema; if
    that fails the call is denied with "updated input is invalid", and it is
    checked against the rules again. `set_mode` switches the agent's permission
    mode once the call is approved (before it runs): approving `ExitPlanMode`
    with `set_mode="acceptEdits"` leaves plan mode straight into acceptEdits.
    """

    model_config = ConfigDict(frozen=True)

    behavior: Literal["allow"] = "allow"
    updated_input: dict[str, Any] | None = None
    set_mode: PermissionMode | None = None


class PermissionDeny(SkawldModel):
    """`can_use_tool` answer: do not run the tool; `message` is shown to the model."""

    model_config = ConfigDict(frozen=True)

    behavior: Literal["deny"] = "deny"
    message: str


PermissionResult = PermissionAllow | PermissionDeny


@dataclass(frozen=True, kw_only=True)
class CanUseToolRequest:
    """What `can_use_tool` receives for one call that needs approval.

    `reason` says why the call asks when the engine knows more than "the mode
    asks", e.g. "/repo/.git/config is a protected path: git internals (.git/)."
    or "/tmp/x is outside the project and its added directories.".
    """

    tool_name: str
    tool_use_id: str
    input: dict[str, Any]
    summary: str
    mode: PermissionMode
    reason: str | None = None


CanUseTool = Callable[[CanUseToolRequest], Awaitable[PermissionResult | Any]]
"""The approval callback. Garbage return values are denied (fail closed)."""


@dataclass(frozen=True, kw_only=True)
class PendingToolCall:
    """A resolved and validated tool call awaiting a permission decision.

    `input` is the tool's canonical (validated) input; `cwd` is the call's
    working directory, used to resolve relative paths. `path_policy` is the
    tool's (which input fields are paths); when None, the policy registered
    under `tool_name` applies.
    """

    tool_name: str
    tool_use_id: str
    input: dict[str, Any]
    summary: str
    scope: ToolScope
    cwd: Path
    path_policy: PathPolicy | None = None


@dataclass(frozen=True)
class PermissionDecision:
    """Outcome of `PermissionEngine.evaluate`/`resolve`.

    `reason` explains a deny (it becomes "Tool call denied: <reason>").
    `updated_input` is set when the callback replaced the input (already
    validated and canonicalized). `set_mode` is the permission mode the host
    asked to switch to with its approval. `paths` holds the real paths of a file tool's
    target that the decision was made on (the file tools check that what they
    open is one of them).
    """

    behavior: Decision
    reason: str | None = None
    updated_input: dict[str, Any] | None = None
    set_mode: PermissionMode | None = None
    paths: tuple[str, ...] = field(default=(), compare=False)
