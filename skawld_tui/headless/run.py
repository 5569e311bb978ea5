"""`run_headless`: one ``skawld -p`` invocation, in the dialect its options name.

``"skawld"`` is `skawld_tui.headless.skawld_runner` (``--json`` events or text), ``"claude"`` is
`skawld_tui.headless.claude_runner` (Claude Code's ``--output-format json|stream-json`` and
``--input-format stream-json``); both are a `RunnerBase` and share its `main`.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skawld_core.settings import Settings

    from .common import HeadlessOptions, RunnerBase


def run_headless(settings: Settings, opts: HeadlessOptions) -> int:
    """Run one headless invocation in its dialect and return the exit code. Raises
    `UsageError`, `ConfigError`, `AuthError` for the caller to map to exit codes 2/3/4.

    `sys.stdout` points at stderr meanwhile: only the runner's writer touches the real
    stdout, so stray prints and library chatter land on stderr.
    """
    runner: type[RunnerBase[Any]]
    if opts.dialect == "claude":
        from .claude_runner import ClaudeRunner as runner  # lazy: only the dialect in use is imported
    else:
        from .skawld_runner import HeadlessRunner as runner  # lazy: only the dialect in use is imported
    real_stdout = sys.stdout
    sys.stdout = sys.stderr

    async def go() -> int:
        return await runner(settings, opts, real_stdout).serve()

    try:
        return asyncio.run(go())
    finally:
        sys.stdout = real_stdout
