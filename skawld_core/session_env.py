"""Extra environment variables for one session's child processes (Bash calls and
command hooks), e.g. ``SKAWLD_TASK_ID`` for a task run by ``skawld work``.

A process-wide map from session id to variables: `set_session_env` while the
session runs, `clear_session_env` after; `session_env` is read where a child
process's environment is built.
"""

from __future__ import annotations

from collections.abc import Mapping

_BY_SESSION: dict[str, dict[str, str]] = {}


def set_session_env(session_id: str, env: Mapping[str, str]) -> None:
    """Give `session_id`'s child processes `env` (on top of the usual environment)."""
    _BY_SESSION[session_id] = dict(env)


def clear_session_env(session_id: str) -> None:
    """Forget `session_id`'s extra variables."""
    _BY_SESSION.pop(session_id, None)


def session_env(session_id: str) -> dict[str, str]:
    """The extra variables of `session_id` (empty when none)."""
    return dict(_BY_SESSION.get(session_id, {}))
