"""Tool-call panels (one `Collapsible` per tool_use_id) and nested subagent panes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from rich.syntax import Syntax
from rich.text import Text
from textual.containers import VerticalGroup, VerticalScroll
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from ..file_diff import FileChange, proposed_change, render_diff
from ..transcript_model import format_duration, language_for

Status = Literal["queued", "pending", "running", "ok", "error"]

_MARKS: dict[Status, str] = {"queued": "·", "pending": "?", "running": "⋯", "ok": "✓", "error": "✗"}
SUBAGENT_TOOLS = frozenset({"Subagent", "Task", "Agent"})
MAX_RESULT_CHARS = 20_000


class ToolOutput(Static):
    """A tool's result (or Edit/Write diff), mounted on first expand."""


class ScrollBlock(VerticalScroll):
    """A bounded, scrollable block for long command output."""


class ToolPanel(Collapsible):
    """One tool call: summary title, status, duration, and its result on expand."""

    def __init__(
        self,
        tool_use_id: str,
        tool_name: str,
        input: dict[str, Any],
        summary: str,
        *,
        status: Status = "running",
        show_timings: bool = True,
        cwd: Path | None = None,
    ) -> None:
        self.tool_use_id = tool_use_id
        self.tool_name = tool_name
        self.input = input
        self.summary = summary
        self.status: Status = status
        self.duration_ms: float | None = None
        self.result: str | None = None
        self.show_timings = show_timings
        self.subagent_panes: list[SubagentPane] = []
        self.cwd = cwd
        self._diff: FileChange | None = proposed_change(tool_name, input, cwd)
        self._mounted_output = False
        super().__init__(title=self._make_title(), collapsed=self._diff is None, classes=f"tool-panel -{status}")

    # -- state --------------------------------------------------------------

    def _make_title(self) -> str:
        title = f"{_MARKS[self.status]} {self.summary}"
        if self.status == "pending":
            title += "  — waiting for approval"
        elif self.status == "error":
            title += "  — error"
        if self.duration_ms is not None and self.show_timings:
            title += f"  ({format_duration(self.duration_ms)})"
        return title

    def set_status(self, status: Status, duration_ms: float | None = None) -> None:
        if duration_ms is not None:
            self.duration_ms = duration_ms
        self.remove_class(f"-{self.status}")
        self.status = status
        self.add_class(f"-{status}")
        self.title = self._make_title()

    def set_input(self, input: dict[str, Any], summary: str) -> None:
        self.input, self.summary = input, summary
        self._diff = proposed_change(self.tool_name, input, self.cwd)
        self.title = self._make_title()

    def set_result(self, text: str, is_error: bool) -> None:
        """The matching tool_result arrived; shown now if expanded, else on expand."""
        self.result = text
        if is_error and self.status != "error":
            self.set_status("error")
        if not self.collapsed:
            self._refresh_output()

    # -- output ---------------------------------------------------------------

    def on_mount(self) -> None:
        if not self.collapsed:
            self._refresh_output()

    def on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        if event.collapsible is self:
            self._refresh_output()

    def _refresh_output(self) -> None:
        contents = self.query_one(Collapsible.Contents)
        for old in contents.query_children(".tool-output"):
            old.remove()
        widgets = self._output_widgets()
        if widgets:
            contents.mount_all(widgets, before=0 if self.subagent_panes else None)

    def _output_widgets(self) -> list[Widget]:
        out: list[Widget] = []
        if self._diff is not None:
            out.append(ToolOutput(render_diff(self._diff), classes="tool-output diff"))
            if self.result is not None and (self.status == "error"):
                out.append(ToolOutput(Text(self.result[:MAX_RESULT_CHARS]), classes="tool-output -error-text"))
            return out
        if self.tool_name == "Bash":
            command = str(self.input.get("command", ""))
            out.append(ToolOutput(Text(f"$ {command}", style="bold"), classes="tool-output"))
            if self.result is not None:
                block = ScrollBlock(
                    Static(Text(self.result[-MAX_RESULT_CHARS:]), markup=False), classes="tool-output bash-output"
                )
                out.append(block)
            return out
        if self.subagent_panes:
            return out  # the nested pane already shows the subagent's work and answer
        if self.result is None:
            if self.tool_name not in SUBAGENT_TOOLS:
                out.append(
                    ToolOutput(Text(json.dumps(self.input, indent=2, ensure_ascii=False)), classes="tool-output")
                )
            return out
        text = self.result[:MAX_RESULT_CHARS]
        renderable: Any
        path = str(self.input.get("file_path", ""))
        if self.tool_name == "Read" and self.status == "ok" and (lang := language_for(path)):
            renderable = Syntax(_strip_line_numbers(text), lang, theme="ansi_dark", line_numbers=True, word_wrap=True)
        elif self.tool_name == "Grep" and self.status == "ok" and isinstance(self.input.get("pattern"), str):
            renderable = Text(text)
            try:
                renderable.highlight_regex(re.compile(self.input["pattern"]), style="bold yellow")
            except re.error:
                pass
        else:
            renderable = Text(text, style="red" if self.status == "error" else "")
        out.append(ScrollBlock(ToolOutput(renderable, markup=False), classes="tool-output result-output"))
        return out


def _strip_line_numbers(text: str) -> str:
    """Drop `   12\t` / `12→` prefixes that Read adds, so the highlighter sees code."""
    lines = text.splitlines()
    pattern = re.compile(r"^\s*\d+(\t|→|: ?)")
    if lines and all(pattern.match(line) for line in lines[: min(5, len(lines))]):
        return "\n".join(pattern.sub("", line, count=1) for line in lines)
    return text


class SubagentPane(Collapsible):
    """A subagent's transcript, nested in its Subagent tool panel (recursively)."""

    def __init__(self, run_id: str, display_name: str, subagent_type: str) -> None:
        self.run_id = run_id
        self.display_name = display_name
        self.subagent_type = subagent_type
        self.body = VerticalGroup(classes="subagent-body")
        self.state = "running"
        super().__init__(self.body, title=self._make_title(), collapsed=False, classes="subagent-pane")

    def _make_title(self) -> str:
        mark = {"running": "⋯", "success": "✓"}.get(self.state, "✗")
        kind = f" ({self.subagent_type})" if self.subagent_type and self.subagent_type != "_default" else ""
        suffix = "" if self.state in ("running", "success") else f" — {self.state}"
        return f"{mark} {self.display_name}{kind}{suffix}"

    def finish(self, subtype: str) -> None:
        self.state = subtype
        self.title = self._make_title()
