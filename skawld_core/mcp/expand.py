"""``${VAR}`` and ``${VAR:-default}`` in MCP server entries (Claude Code's `.mcp.json` syntax).

Expanded in ``command``, ``args``, ``env`` values, ``url`` and ``headers`` values,
whichever file the entry comes from. ``${VAR:-default}`` uses `default` when `VAR`
is unset or empty; a bare ``$VAR`` stays literal (as in Claude Code). A value is
expanded once: a variable's own text is never expanded again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["UnsetVariableError", "expand_server_entry", "expand_text"]

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}")


class UnsetVariableError(ValueError):
    """A ``${VAR}`` without a default names a variable that is not set.

    `variable` is its name, `pointer` the JSON pointer of the value inside the entry.
    """

    def __init__(self, variable: str, pointer: str) -> None:
        super().__init__(f"${{{variable}}} is not set and has no default ({pointer})")
        self.variable = variable
        self.pointer = pointer


def expand_text(text: str, env: Mapping[str, str], *, pointer: str = "") -> str:
    """`text` with every ``${VAR}`` / ``${VAR:-default}`` replaced from `env`."""

    def one(match: re.Match[str]) -> str:
        name, has_default, default = match.group(1), match.group(2), match.group(3)
        value = env.get(name)
        if has_default is not None:
            return value if value else default
        if value is None:
            raise UnsetVariableError(name, pointer)
        return value

    return _VAR.sub(one, text) if "${" in text else text


def expand_server_entry(entry: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """A copy of one MCP server entry with its expandable fields expanded.

    Raises `UnsetVariableError` (with the pointer inside the entry) for an unset
    variable without a default. Non-string values are left as they are.
    """
    out = dict(entry)
    for key in ("command", "url"):
        if isinstance(out.get(key), str):
            out[key] = expand_text(out[key], env, pointer=f"/{key}")
    if isinstance(out.get("args"), list):
        out["args"] = [
            expand_text(a, env, pointer=f"/args/{i}") if isinstance(a, str) else a for i, a in enumerate(out["args"])
        ]
    for key in ("env", "headers"):
        if isinstance(out.get(key), Mapping):
            out[key] = {
                k: expand_text(v, env, pointer=f"/{key}/{k}") if isinstance(v, str) else v for k, v in out[key].items()
            }
    return out
