"""The app's and the headless runners' `build_agent`: the core's, plus what the product adds.

Settings come from `skawld_core.settings.resolve_settings` and the agent from
`skawld_core.from_config.build_agent`; this module adds the product's parts around
them: the price table the status line shows, the garbage collector paused for
start-up (`startup_gc`), and, in the console script's own process, a loaded history
frozen once built (`freeze_loaded_history`). Nothing heavy is imported at module import.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.providers.base import BaseProvider
    from skawld_core.settings import Settings


def build_agent(
    settings: Settings,
    *,
    can_use_tool: Any = None,
    ask_user: Any = None,
    include_partial_messages: bool = False,
    provider: BaseProvider | None = None,
    extra_hooks: Mapping[str, list[Any]] | None = None,
    extra_tools: Sequence[Any] = (),
) -> Agent:
    """An `Agent` configured from `settings` (raises `ConfigError` without a model)."""
    from skawld_core import from_config  # lazy: the agent machinery, after the first frame
    from skawld_core.sessions.rows import freeze_loaded_history

    from . import startup_gc
    from .transcript_model import use_price_table

    use_price_table(settings.pricing)
    agent = from_config.build_agent(
        settings,
        can_use_tool=can_use_tool,
        ask_user=ask_user,
        include_partial_messages=include_partial_messages,
        provider=provider,
        extra_hooks=extra_hooks,
        extra_tools=extra_tools,
    )
    startup_gc.resume()  # start-up is over: the collector comes back for the run
    if startup_gc.owns_process():  # the console script's process: its GC policy is ours
        freeze_loaded_history()  # a resumed history joins the frozen heap
    return agent


def session_meta(settings: Settings, prompt: str | None = None) -> dict[str, Any]:
    """Meta stored with a new session: its working directory and a title."""
    meta: dict[str, Any] = {"cwd": str(settings.cwd)}
    if prompt:
        first = prompt.strip().splitlines()[0] if prompt.strip() else ""
        meta["title"] = first[:80]
    return meta
