"""Commands whose code lives outside this package, registered with one line each.

Their `run(host, args)` gets a `CommandHost`: `host.markdown(...)`, `host.note(...)`,
`host.agent`, `host.session` and the rest of `base.CommandHost`. Example::

    from ..permissions_list import run_permissions_command
    BUILTINS.append(Command("permissions", "List and remove saved permission rules", run_permissions_command))
"""

from __future__ import annotations

from .base import BUILTINS, Command  # noqa: F401  (for the registration lines)
