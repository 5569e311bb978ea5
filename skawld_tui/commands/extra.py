"""Commands whose code lives outside this package, registered with one line each.

Their `run(host, args)` gets a `CommandHost`: `host.markdown(...)`, `host.note(...)`,
`host.agent`, `host.session` and the rest of `base.CommandHost`. Example::

    BUILTINS.append(Command("x", "What it does", run_x, args="[arg]"))
"""

from __future__ import annotations

from .base import BUILTINS, Command, CommandHost


async def permissions_command(host: CommandHost, args: str) -> None:
    """`/permissions [remove <n>]` (the broker's code): the app's list screen, or the plain listing."""
    from .app_host import AppHost  # lazy: the app's screen or the plain listing
    from .plain_host import PlainHost

    if isinstance(host, AppHost):
        from ..app.screens.permissions import open_permissions  # lazy: the app's screen or the plain listing

        await open_permissions(host.app, args)
    elif isinstance(host, PlainHost):
        from ..permissions_view import run_permissions_command  # lazy: the app's screen or the plain listing

        await run_permissions_command(host.chat, args, host.settings)


BUILTINS.append(
    Command("permissions", "List permission rules; remove remembered ones", permissions_command, args="[remove <n>]")
)
