"""`ChatApp`: the interactive app as its parts see it (a Protocol, as `skawld_core.host` is
for the SDK's layers).

The composer, the run controller, the session dialogs, the permission screen, the
focus guard and the app's command host are given the app; they type it as `ChatApp`,
never as `SkawldApp`, so the app imports them and none of them imports the app. The
Textual methods they call are listed with loose signatures; `SkawldApp` is the one
implementation (`tests/tui/test_import_graph.py` keeps the import graph acyclic).
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

    from skawld_core.agent import Agent
    from skawld_core.session import Session

    from ..commands.base import CommandHost
    from ..file_commands import PromptCommands
    from ..permission_broker import PermissionBroker
    from .run_state import RunState
    from .widgets.prompt import CompletionList, PromptArea
    from .widgets.renderer import EventRenderer
    from .widgets.status import StatusBar
    from .widgets.transcript import Transcript


class RunControl(Protocol):
    """What the app's parts ask of the run controller (`SkawldApp.runs`)."""

    def steer(self, text: str, *, images: Any = (), context: Any = ()) -> None: ...

    def finish_step(self) -> None: ...

    def request_yolo(self) -> None: ...


class ChatApp(Protocol):
    """The app's state and parts, and the Textual calls its helpers make."""

    agent: Agent | None
    session: Session | None
    settings: Any
    prompt_commands: PromptCommands | None
    agent_ready: asyncio.Event
    session_ready: asyncio.Event
    session_error: BaseException | None
    state: RunState

    # -- the parts --------------------------------------------------------------

    @property
    def transcript(self) -> Transcript: ...

    @property
    def prompt(self) -> PromptArea: ...

    @property
    def status(self) -> StatusBar: ...

    @property
    def completions(self) -> CompletionList: ...

    @property
    def renderer(self) -> EventRenderer: ...

    @property
    def runs(self) -> RunControl: ...

    @property
    def command_host(self) -> CommandHost: ...

    @property
    def broker(self) -> PermissionBroker: ...

    @property
    def running(self) -> bool: ...

    # -- what it does -----------------------------------------------------------

    async def submit(self, text: str) -> None: ...

    async def start_run(self, text: str, *, images: Any = (), context: Any = ()) -> None: ...

    async def load_session(self, session_id: str | None) -> None: ...

    async def prune_transcript(self) -> None: ...

    async def checkpoint_notice(self, session: Session) -> None: ...

    async def open_picker(self, fork: bool = False) -> None: ...

    async def open_rewind(self) -> None: ...

    async def action_quit_app(self) -> None: ...

    # -- Textual's App --------------------------------------------------------

    @property
    def screen(self) -> Screen[Any]: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    @property
    def focused(self) -> Widget | None: ...

    @property
    def clipboard(self) -> str: ...

    def push_screen(self, *args: Any, **kwargs: Any) -> Any: ...

    def push_screen_wait(self, *args: Any, **kwargs: Any) -> Any: ...

    def run_worker(self, *args: Any, **kwargs: Any) -> Any: ...

    def call_from_thread(self, *args: Any, **kwargs: Any) -> Any: ...

    def suspend(self) -> AbstractContextManager[None]: ...

    def notify(self, *args: Any, **kwargs: Any) -> Any: ...

    def copy_to_clipboard(self, *args: Any, **kwargs: Any) -> Any: ...

    def call_after_refresh(self, *args: Any, **kwargs: Any) -> Any: ...

    def query_one(self, *args: Any, **kwargs: Any) -> Any: ...
