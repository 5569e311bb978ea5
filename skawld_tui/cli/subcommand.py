"""What skawld's typer commands share: the application settings (`new_app`), and one
run of async work against a session store from synchronous command code (`run_on_store`).

Nothing here imports typer before it is used: `run_on_store` also serves the start-up
of the app (`skawld_tui.resume`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import typer

    from skawld_core.sessions.store import SessionStore

S = TypeVar("S", bound="SessionStore")
T = TypeVar("T")

TYPER_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}
"""No shell completion, no rich tracebacks or markup, ``-h`` beside ``--help``."""


def new_app(help: str | None = None, *, no_args_is_help: bool = True) -> typer.Typer:
    """A `typer.Typer` with skawld's settings; a sub-command group shows its help when
    called without a command."""
    import typer

    return typer.Typer(help=help, no_args_is_help=no_args_is_help, **TYPER_SETTINGS)


def run_on_store(open_store: Callable[[], S], work: Callable[[S], Awaitable[T]]) -> T:
    """``asyncio.run(work(store))`` on the store `open_store` makes (in the loop), closed after."""

    async def go() -> T:
        store = open_store()
        try:
            return await work(store)
        finally:
            await store.close()

    return asyncio.run(go())
