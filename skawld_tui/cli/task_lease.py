"""A claimed task's lease as the worker sees it, on a local clock.

A task's side effects must stop before its lease can expire, whether or not the
database can be reached: the worker keeps a *local deadline* (`SAFE_FRACTION`
of the lease after the last successful claim or renewal was *sent*) on the
boot-time clock, which keeps counting while the process is stopped (SIGSTOP)
or the machine sleeps. Once past it the lease counts as lost: `LeaseGate`, a
PreToolUse hook, refuses every tool call of that task's session, and the worker
aborts the run (ending the processes it started). The gate runs before any
configured hook, so no hook of a task whose lease is gone runs either.

The variables a task's Bash calls and hooks get (`TaskLease.env`):
``SKAWLD_TASK_LIST``, ``SKAWLD_TASK_ID``, ``SKAWLD_TASK_ATTEMPT`` and
``SKAWLD_TASK_FENCE``, the fencing token: it grows with every claim of the task,
so a system the task writes to can refuse a write carrying a smaller token than
one it has seen for that task.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.hooks import HookContext
    from skawld_core.sessions.claims import TaskClaim

SAFE_FRACTION = 0.8
_BOOTTIME = getattr(time, "CLOCK_BOOTTIME", None)


def local_clock() -> float:
    """Seconds on a clock that also runs while the process is stopped or the machine sleeps."""
    return time.clock_gettime(_BOOTTIME) if _BOOTTIME is not None else time.monotonic()


class TaskLease:
    """One claim's lease: local deadline, lost flag and reason, and the task's environment."""

    def __init__(self, claim: TaskClaim, lease_seconds: float, sent_at: float) -> None:
        self.claim = claim
        self.lease_seconds = lease_seconds
        self.deadline = sent_at + lease_seconds * SAFE_FRACTION
        self.lost = asyncio.Event()
        self.reason = ""
        self.on_lost: Callable[[], None] = lambda: None

    def renewed(self, sent_at: float) -> None:
        """A heartbeat sent at `sent_at` (local clock) succeeded."""
        self.deadline = max(self.deadline, sent_at + self.lease_seconds * SAFE_FRACTION)

    def valid(self) -> bool:
        """Still ours by the local clock (checked before every tool call)."""
        if not self.lost.is_set() and local_clock() >= self.deadline:
            self.lose("the lease could not be renewed before its local deadline")
        return not self.lost.is_set()

    def lose(self, reason: str) -> None:
        """Mark the lease lost (once) and stop the task's run."""
        if self.lost.is_set():
            return
        self.reason = reason
        self.lost.set()
        self.on_lost()

    def env(self) -> dict[str, str]:
        """``SKAWLD_TASK_*`` for the task's Bash calls and hooks."""
        claim = self.claim
        return {
            "SKAWLD_TASK_LIST": claim.session_id,
            "SKAWLD_TASK_ID": claim.task.id,
            "SKAWLD_TASK_ATTEMPT": str(claim.attempt),
            "SKAWLD_TASK_FENCE": str(claim.attempt),
        }


class LeaseGate:
    """A PreToolUse hook that refuses the tool calls of a task whose lease is gone."""

    def __init__(self) -> None:
        self._by_session: dict[str, TaskLease] = {}

    def watch(self, session_id: str, lease: TaskLease) -> None:
        self._by_session[session_id] = lease

    def forget(self, session_id: str) -> None:
        self._by_session.pop(session_id, None)

    def install(self, agent: Agent) -> None:
        """Make the gate `agent`'s first PreToolUse hook (before any configured hook runs)."""
        from skawld_core.hooks import HookEntry, HookRunner

        if agent.hooks is None:
            agent.hooks = HookRunner(None)
        agent.hooks.hooks.pre_tool_use.insert(0, HookEntry(hook=self._check))

    async def _check(self, data: Any, ctx: HookContext) -> Any:
        from skawld_core.hooks import HookContinue, HookDeny

        lease = self._by_session.get(ctx.session_id)
        if lease is None or lease.valid():
            return HookContinue()
        return HookDeny(reason=f"task #{lease.claim.task.id}: {lease.reason}; not run")
