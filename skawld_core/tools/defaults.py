"""`default_tools`: fresh instances of the built-in tools, in the reference's order."""

from __future__ import annotations

from .ask_user import AskUserHandler, AskUserTool
from .background import BashOutputTool, KillShellTool
from .base import AnyTool
from .bash import BashTool
from .edit import EditTool
from .glob import GlobTool
from .grep import GrepTool
from .notebook_edit import NotebookEditTool
from .read import ReadTool
from .tasks import TaskCreateTool, TaskGetTool, TaskListTool, TaskUpdateTool
from .web_fetch import WebFetchTool
from .write import WriteTool

__all__ = ["default_tools"]


def default_tools(
    *,
    ask_user: AskUserHandler | None = None,
    background_shells: bool = False,
    web_fetch: bool = False,
    notebook_edit: bool = False,
) -> list[AnyTool]:
    """Read, Write, Edit, Bash, Glob, Grep, TaskCreate, TaskList, TaskGet, TaskUpdate
    (the reference's ten, fresh instances, in that order), then BashOutput and
    KillShell with `background_shells`, WebFetch with `web_fetch`, NotebookEdit
    with `notebook_edit` (the `skawld` command turns these on), plus AskUser when
    a handler is given."""
    tools: list[AnyTool] = [
        ReadTool(),
        WriteTool(),
        EditTool(),
        BashTool(),
        GlobTool(),
        GrepTool(),
        TaskCreateTool(),
        TaskListTool(),
        TaskGetTool(),
        TaskUpdateTool(),
    ]
    if background_shells:
        tools += [BashOutputTool(), KillShellTool()]
    if web_fetch:
        tools.append(WebFetchTool())
    if notebook_edit:
        tools.append(NotebookEditTool())
    if ask_user is not None:
        tools.append(AskUserTool(ask_user))
    return tools
