"""Tools: the `Tool` contract, the registry, the `@tool` decorator and the built-ins.

The names below load on first access, so importing one tools module (the permission
engine needs `tools.base`, the remembered-rules file `tools.atomic_write`) does not
import every built-in tool (about 35 ms the app would pay before its first frame).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .ask_user import (
        AskUserAnswer,
        AskUserAnswers,
        AskUserDeclined,
        AskUserHandler,
        AskUserInput,
        AskUserOption,
        AskUserQuestion,
        AskUserRequest,
        AskUserResponse,
        AskUserTool,
    )
    from .background import BashOutputTool, KillShellTool
    from .base import AnyTool, Tool, ToolContext, ToolResult, ToolScope
    from .bash import BashTool
    from .decorator import FunctionTool, tool
    from .defaults import default_tools
    from .edit import EditTool
    from .exit_plan_mode import ExitPlanModeTool
    from .file_tracker import FileReadTracker, canonical_path
    from .glob import GlobTool
    from .grep import GrepTool
    from .notebook_edit import NotebookEditTool
    from .read import ReadTool
    from .registry import ToolRegistry
    from .tasks import TaskCreateTool, TaskGetTool, TaskListTool, TaskUpdateTool
    from .web_fetch import WebFetchTool
    from .write import WriteTool

__getattr__ = lazy_exports(
    __name__,
    {
        "AnyTool": ".base",
        "AskUserAnswer": ".ask_user",
        "AskUserAnswers": ".ask_user",
        "AskUserDeclined": ".ask_user",
        "AskUserHandler": ".ask_user",
        "AskUserInput": ".ask_user",
        "AskUserOption": ".ask_user",
        "AskUserQuestion": ".ask_user",
        "AskUserRequest": ".ask_user",
        "AskUserResponse": ".ask_user",
        "AskUserTool": ".ask_user",
        "BashOutputTool": ".background",
        "BashTool": ".bash",
        "EditTool": ".edit",
        "ExitPlanModeTool": ".exit_plan_mode",
        "FileReadTracker": ".file_tracker",
        "FunctionTool": ".decorator",
        "GlobTool": ".glob",
        "GrepTool": ".grep",
        "KillShellTool": ".background",
        "NotebookEditTool": ".notebook_edit",
        "ReadTool": ".read",
        "TaskCreateTool": ".tasks",
        "TaskGetTool": ".tasks",
        "TaskListTool": ".tasks",
        "TaskUpdateTool": ".tasks",
        "Tool": ".base",
        "ToolContext": ".base",
        "ToolRegistry": ".registry",
        "ToolResult": ".base",
        "ToolScope": ".base",
        "WebFetchTool": ".web_fetch",
        "WriteTool": ".write",
        "canonical_path": ".file_tracker",
        "default_tools": ".defaults",
        "tool": ".decorator",
    },
)


__all__ = [
    "BashOutputTool",
    "KillShellTool",
    "NotebookEditTool",
    "AnyTool",
    "AskUserAnswer",
    "AskUserAnswers",
    "AskUserDeclined",
    "AskUserHandler",
    "AskUserInput",
    "AskUserOption",
    "AskUserQuestion",
    "AskUserRequest",
    "AskUserResponse",
    "AskUserTool",
    "BashTool",
    "EditTool",
    "ExitPlanModeTool",
    "FileReadTracker",
    "FunctionTool",
    "GlobTool",
    "GrepTool",
    "ReadTool",
    "TaskCreateTool",
    "TaskGetTool",
    "TaskListTool",
    "TaskUpdateTool",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "ToolResult",
    "ToolScope",
    "WebFetchTool",
    "WriteTool",
    "canonical_path",
    "default_tools",
    "tool",
]
