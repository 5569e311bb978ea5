"""The headless stdin control channel and the stdout event writer.

Stdin carries line-delimited JSON control messages (CLI spec):

- ``{"type": "permission_response", "tool_use_id": ..., "decision": "allow"|"deny",
  "reason"?: ..., "updated_input"?: {...}, "set_mode"?: mode}`` — answers one entry of a
  ``permission_request`` (``set_mode`` switches the permission mode with the approval, e.g.
  ``"acceptEdits"`` when approving ``ExitPlanMode``);
- ``{"type": "abort", "reason"?: ...}`` — aborts the run in flight;
- ``{"type": "prompt", "text": ...}`` — a follow-up run in the same session.

Unknown types are ignored; lines that are not JSON objects, and answers for
unknown ``tool_use_id`` values, produce a warning on stderr and are skipped.

Stdin is read with `os.read` in a daemon thread (works for pipes, files and
terminals, and never holds the `sys.stdin` buffer lock at interpreter exit).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

# skawld_core.permissions.mode.PERMISSION_MODES, without importing the engine at start-up.
PERMISSION_MODES = ("default", "acceptEdits", "plan", "yolo")


def note(message: str, *, prefix: str = "skawld: ") -> None:
    """One human-readable line on stderr, after `prefix`; a closed stderr is ignored."""
    try:
        sys.stderr.write(f"{prefix}{message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def warn(message: str) -> None:
    """One ``skawld: warning:`` line on stderr."""
    note(message, prefix="skawld: warning: ")


@dataclass(frozen=True)
class PermissionAnswer:
    decision: str
    reason: str | None = None
    updated_input: dict[str, Any] | None = None
    set_mode: str | None = None


class StdinReader:
    """Feeds complete stdin lines (and EOF as `None`) to `on_line` on the event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_line: Callable[[str | None], None], fd: int = 0) -> None:
        self._loop = loop
        self._on_line = on_line
        self._fd = fd
        self._thread = threading.Thread(target=self._pump, name="skawld-stdin", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _deliver(self, line: str | None) -> None:
        try:
            self._loop.call_soon_threadsafe(self._on_line, line)
        except RuntimeError:  # the loop is closed: we are exiting
            pass

    def _pump(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                if buf.strip():
                    self._deliver(buf.decode(errors="replace"))
                self._deliver(None)
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line.strip():
                    self._deliver(line.decode(errors="replace"))


def read_all_stdin(fd: int = 0) -> str:
    """Everything on stdin (the prompt when ``-p`` has no argument)."""
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def parse_control(line: str) -> dict[str, Any] | None:
    """A control message, or None (with a warning) when the line is not a JSON object."""
    try:
        msg = json.loads(line)
    except ValueError:
        warn(f"ignoring a stdin line that is not JSON: {line[:120]!r}")
        return None
    if not isinstance(msg, dict):
        warn(f"ignoring a stdin control message that is not a JSON object: {line[:120]!r}")
        return None
    return msg


def permission_answer(msg: dict[str, Any]) -> PermissionAnswer | None:
    """Validate a ``permission_response``; None (with a warning) when malformed."""
    decision = msg.get("decision")
    if decision not in ("allow", "deny"):
        warn(f"ignoring permission_response with decision {decision!r} (expected 'allow' or 'deny')")
        return None
    updated = msg.get("updated_input")
    if updated is not None and not isinstance(updated, dict):
        warn("ignoring permission_response whose updated_input is not an object")
        return None
    reason = msg.get("reason")
    set_mode = msg.get("set_mode")
    if set_mode is not None and set_mode not in PERMISSION_MODES:
        warn(f"ignoring permission_response with set_mode {set_mode!r} (expected one of {', '.join(PERMISSION_MODES)})")
        return None
    return PermissionAnswer(decision, reason if isinstance(reason, str) else None, updated, set_mode)


class EventWriter:
    """Writes lines to the real stdout; a broken pipe flips `broken` and calls `on_broken` once."""

    def __init__(self, stream: IO[str], *, pretty: bool = False, on_broken: Callable[[], None] | None = None) -> None:
        self._stream = stream
        self.pretty = pretty
        self.broken = False
        self._on_broken = on_broken

    def line(self, text: str) -> None:
        """Write one NDJSON line (pretty: indented JSON and a blank line)."""
        if self.pretty:
            text = json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
        self.raw(text + "\n")

    def raw(self, text: str) -> None:
        if self.broken:
            return
        try:
            self._stream.write(text)
            self._stream.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError):
            self._break()
        except OSError:
            self._break()

    def _break(self) -> None:
        self.broken = True
        try:  # later flushes at exit must not raise again
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
        if self._on_broken is not None:
            self._on_broken()
