"""Shared fixtures for the built-in tool tests: a real tmp working tree and a context."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skawld_core.tools import FileReadTracker, Tool, ToolContext, ToolResult

HAS_RG = shutil.which("rg") is not None
needs_rg = pytest.mark.skipif(not HAS_RG, reason="ripgrep (rg) is not installed")


@pytest.fixture
def tracker() -> FileReadTracker:
    return FileReadTracker()


@pytest.fixture
def ctx(tmp_path: Path, tracker: FileReadTracker) -> ToolContext:
    return ToolContext(cwd=tmp_path, session_id="s1", run_id="r1", tool_use_id="toolu-1", file_read_tracker=tracker)


def make_ctx(cwd: Path, **kw: Any) -> ToolContext:
    return ToolContext(cwd=cwd, session_id=kw.pop("session_id", "s1"), run_id="r1", tool_use_id="toolu-1", **kw)


async def call(tool: Tool[Any], ctx: ToolContext, **raw: Any) -> ToolResult:
    """Validate raw input like the loop does, then execute."""
    return await tool.execute(tool.validate(raw), ctx)


def text_of(result: ToolResult) -> str:
    assert isinstance(result.content, str), result.content
    return result.content


Factory = Callable[..., ToolContext]
