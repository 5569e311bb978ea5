"""The @tool decorator: schema from the signature, context injection, results."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import Field

from skawld_core.errors import ToolInputError
from skawld_core.tools import FunctionTool, Tool, ToolContext, ToolResult, tool

from .conftest import call, text_of


@tool(scope="read", parallel_safe=True)
async def lookup(
    ctx: ToolContext,
    key: Annotated[str, Field(description="What to look up")],
    limit: int = 10,
    mode: Literal["fast", "slow"] = "fast",
) -> str:
    """Look something up.

    Longer explanation.
    """
    return f"{ctx.session_id}:{key}:{limit}:{mode}"


@tool
def plain(x: int) -> ToolResult:
    """Sync tool returning a ToolResult."""
    return ToolResult(content=str(x * 2), summary="doubled", is_error=x < 0)


def test_builds_a_tool() -> None:
    assert isinstance(lookup, Tool) and isinstance(lookup, FunctionTool)
    assert lookup.name == "lookup"
    assert lookup.description == "Look something up.\n\nLonger explanation."
    assert lookup.scope == "read" and lookup.parallel_safe
    assert plain.scope == "exec" and not plain.parallel_safe
    schema = lookup.input_schema
    assert schema["required"] == ["key"]
    assert schema["properties"]["key"]["description"] == "What to look up"
    assert schema["properties"]["limit"]["default"] == 10
    assert schema["properties"]["mode"]["enum"] == ["fast", "slow"]
    assert schema["additionalProperties"] is False
    assert "ctx" not in schema["properties"]


def test_validation() -> None:
    with pytest.raises(ToolInputError):
        lookup.validate({})
    with pytest.raises(ToolInputError):
        lookup.validate({"key": "a", "other": 1})
    with pytest.raises(ToolInputError):
        lookup.validate({"key": "a", "mode": "medium"})


async def test_execute(ctx: ToolContext) -> None:
    r = await call(lookup, ctx, key="k", limit="3")
    assert text_of(r) == "s1:k:3:fast"
    assert r.summary.startswith("lookup ")
    r = await call(plain, ctx, x=4)
    assert (text_of(r), r.summary, r.is_error) == ("8", "doubled", False)
    assert (await call(plain, ctx, x=-1)).is_error


def test_custom_name_and_summary() -> None:
    @tool(name="Custom", description="Custom desc", summarize=lambda v: "custom!")
    async def fn(a: str) -> str:
        return a

    assert fn.name == "Custom" and fn.description == "Custom desc"
    assert fn.summarize(fn.validate({"a": "x"})) == "custom!"


def test_rejects_var_args() -> None:
    with pytest.raises(TypeError):

        @tool
        def bad(*args: int) -> str:
            return ""
