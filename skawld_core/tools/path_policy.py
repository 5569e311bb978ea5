"""What the permission rules need to know about a file tool: which input fields are paths.

A tool declares a `PathPolicy` as its `path_policy` class attribute: the input
fields that hold the paths it touches and its rule family, `"read"` (Claude's
`Read(…)` rules, Read deny rules that hide files) or `"edit"` (Claude's `Edit(…)`
rules, the protected-path check). Defining a `Tool` subclass with a `name` and a
`path_policy` registers it here, so the permission engine finds the policy of a
call by its tool's name even when the call does not carry it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

__all__ = ["PathFamily", "PathPolicy", "register_path_policy", "tool_path_policy"]

PathFamily = Literal["read", "edit"]


@dataclass(frozen=True)
class PathPolicy:
    """The path fields of a tool's input and the rule family that covers them.

    `default_to_cwd`: a call without any of the fields touches its working
    directory (Glob and Grep search it).
    """

    fields: tuple[str, ...]
    family: PathFamily
    default_to_cwd: bool = False

    def targets(self, tool_input: Mapping[str, Any], cwd: Path) -> tuple[str, ...]:
        """The paths a call names (non-empty strings), or its cwd, or () when it names none."""
        found = tuple(v for f in self.fields if isinstance(v := tool_input.get(f), str) and v)
        if not found and self.default_to_cwd:
            return (str(cwd),)
        return found


_POLICIES: dict[str, PathPolicy] = {}
_BUILT_INS_LOADED: list[bool] = []


def register_path_policy(tool_name: str, policy: PathPolicy) -> None:
    """Record the path policy of the tool called `tool_name` (`Tool` subclasses do it themselves)."""
    _POLICIES[tool_name] = policy


def tool_path_policy(tool_name: str) -> PathPolicy | None:
    """The registered path policy of `tool_name`, or None (a tool that touches no path).

    The built-in file tools register when their modules load; the first lookup that
    misses loads them, so a rule for `Read` holds even where no Read tool was built."""
    policy = _POLICIES.get(tool_name)
    if policy is None and not _BUILT_INS_LOADED:
        _BUILT_INS_LOADED.append(True)
        # lazy: the file tools' modules cost the permission engine's import; only a name lookup needs them
        from . import edit, glob, grep, notebook_edit, read, write  # noqa: F401

        policy = _POLICIES.get(tool_name)
    return policy
