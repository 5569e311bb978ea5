"""Tool-call panels (one `Collapsible` per tool_use_id) and nested subagent panes."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from rich.syntax import Syntax
from rich.text import Text
from textual.containers import VerticalGroup, VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from skawld_core.events import Event, ResultEvent, ToolCallStartEvent, UsageEvent

from ...file_diff import FileChange, proposed_change, render_diff
from ...transcript_model import (
    bash_title,
    count_lines,
    format_duration,
    format_tokens,
    language_for,
    output_preview,
    split_bash_exit,
)

Status = Literal["queued", "pending", "running", "ok", "error"]

_MARKS: dict[Status, str] = {"queued": "·", "pending": "?", "running": "⋯", "ok": "✓", "error": "✗"}
SUBAGENT_TOOLS = frozenset({"Subagent", "Task", "Agent"})
MAX_RESULT_CHARS = 20_000
PREVIEW_LINES = 3  # output lines a collapsed Bash or failed panel shows under its title


class ToolOutput(Static):
    """A tool's result (or Edit/Write diff), mounted on first expand."""


class ScrollBlock(VerticalScroll):
    """A bounded, scrollable block for long command output."""


class ToolPreview(Static):
    """The first lines of a collapsed panel's output (Bash output, errors), with a count of the rest."""


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
        expanded: bool = False,
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
        self._preview: ToolPreview | None = None  # mounted once there is something to preview
        collapsed = not expanded and self._diff is None
        self._title_content = self._make_title()
        super().__init__(title=self._title_content.plain, collapsed=collapsed, classes=f"tool-panel -{status}")
        self._title.label = self._title_content

    def compose(self):  # type: ignore[no-untyped-def]
        yield from super().compose()
        text = self.preview_text() if self.collapsed else None
        if text is not None:
            yield self._make_preview(text)

    # -- state --------------------------------------------------------------

    def _make_title(self) -> Content:
        # Content, not str: a command or path must never be read as markup.
        parts: list[str | tuple[str, str]] = [f"{_MARKS[self.status]} "]
        command, description = bash_title(self.input) if self.tool_name == "Bash" else ("", "")
        if command:
            parts.append(f"$ {command}")
            if description:
                parts.append((f"  {description}", "dim"))
        else:
            parts.append(self.summary)
        if self.status == "pending":
            parts.append("  — waiting for approval")
        elif self.status == "error":
            parts.append("  — error")
        elif command and self.result is not None and (status := split_bash_exit(self.result)[1]) is not None:
            parts.append((f"  — exit {status}", "bold red"))
        if self.result is not None and self.tool_name != "Bash" and self._diff is None and not self.subagent_panes:
            lines = count_lines(self.result)
            if lines > PREVIEW_LINES:
                parts.append((f"  · {lines} lines", "dim"))
        if self.duration_ms is not None and self.show_timings:
            parts.append(f"  ({format_duration(self.duration_ms)})")
        return Content.assemble(*parts)

    def _retitle(self) -> None:
        self._title_content = self._make_title()
        self.title = self._title_content.plain

    def _watch_title(self, title: str) -> None:
        # `title` stays the plain text (for tests and search); the label is the styled Content,
        # so a command or path is never read as markup.
        self._title.label = self._title_content

    def set_status(self, status: Status, duration_ms: float | None = None) -> None:
        if duration_ms is not None:
            self.duration_ms = duration_ms
        self.remove_class(f"-{self.status}")
        self.status = status
        self.add_class(f"-{status}")
        self._retitle()
        self._sync_preview()

    def set_input(self, input: dict[str, Any], summary: str) -> None:
        self.input, self.summary = input, summary
        self._diff = proposed_change(self.tool_name, input, self.cwd)
        self._retitle()

    def set_result(self, text: str, is_error: bool) -> None:
        """The matching tool_result arrived; shown now if expanded, else on expand."""
        self.result = text
        if is_error and self.status != "error":
            self.set_status("error")
        self._retitle()
        self._sync_preview()
        if not self.collapsed and self.is_mounted:
            self._refresh_output()

    # -- preview (collapsed) -----------------------------------------------------

    def failed(self) -> bool:
        """An error result, or a Bash command that exited non-zero."""
        if self.status == "error":
            return True
        return self.tool_name == "Bash" and self.result is not None and split_bash_exit(self.result)[1] is not None

    def preview_text(self) -> Text | None:
        """What a collapsed panel shows under its title: Bash output or an error's first lines."""
        if self.result is None or not self.result.strip():
            return None
        if self.status != "error" and self.tool_name != "Bash":
            return None
        output = self.result
        if self.tool_name == "Bash" and self.status != "error":
            output = split_bash_exit(output)[0].strip("\n")
            output = output.removeprefix("---\n")  # no stdout: the stderr separator leads
        shown, more = output_preview(output, PREVIEW_LINES)
        if not shown:
            return Text("└ (no output)", style="dim")
        text = Text(style="red" if self.failed() else "")
        for i, line in enumerate(shown):
            text.append("└ " if i == 0 else "  ", style="dim")
            text.append(line[:500] + ("\n" if i < len(shown) - 1 or more else ""))
        if more:
            text.append(f"  … +{more} lines (ctrl+o to expand)", style="dim")
        return text

    def _make_preview(self, text: Text) -> ToolPreview:
        self._preview = ToolPreview(text, classes="tool-preview", markup=False)
        self._preview.set_class(self.failed(), "-error")
        return self._preview

    def _sync_preview(self) -> None:
        text = self.preview_text() if self.collapsed else None
        if self._preview is None:
            if text is not None and self.is_mounted:
                self.mount(self._make_preview(text))  # after the body: right under the title when collapsed
            return
        if text is not None:
            self._preview.update(text)
        self._preview.set_class(self.failed(), "-error")
        self._preview.display = text is not None

    def watch_collapsed(self, collapsed: bool) -> None:
        self._sync_preview()

    # -- output ---------------------------------------------------------------

    def on_mount(self) -> None:
        self._sync_preview()
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
            if bash_title(self.input)[0] != command.strip():  # the title shows only a cut first line
                out.append(ToolOutput(Text(f"$ {command}", style="bold"), classes="tool-output"))
            if self.result is not None:
                style = "red" if self.status == "error" else ""
                block = ScrollBlock(
                    Static(Text(self.result[-MAX_RESULT_CHARS:], style=style), markup=False),
                    classes="tool-output bash-output",
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
    """A subagent's transcript, nested in its Subagent tool panel (recursively).

    The title counts the subagent's tool calls and tokens and shows its elapsed
    time: ticking while it runs, the run's own duration once it is done.
    """

    def __init__(self, run_id: str, display_name: str, subagent_type: str, *, show_timings: bool = True) -> None:
        self.run_id = run_id
        self.display_name = display_name
        self.subagent_type = subagent_type
        self.body = VerticalGroup(classes="subagent-body")
        self.state = "running"
        self.tool_calls = 0
        self.tokens = 0
        self.show_timings = show_timings
        self.started = time.monotonic()
        self.duration_ms: float | None = None
        self._timer: Timer | None = None
        self._title_content = self._make_title()
        super().__init__(self.body, title=self._title_content.plain, collapsed=False, classes="subagent-pane")
        self._title.label = self._title_content

    def on_mount(self) -> None:
        if self.show_timings and self.state == "running":
            self._timer = self.set_interval(1.0, self._retitle)

    def _make_title(self) -> Content:
        mark = {"running": "⋯", "success": "✓"}.get(self.state, "✗")
        kind = f" ({self.subagent_type})" if self.subagent_type and self.subagent_type != "_default" else ""
        suffix = "" if self.state in ("running", "success") else f" — {self.state}"
        stats = [f"{self.tool_calls} tool{'' if self.tool_calls == 1 else 's'}"]
        if self.tokens:
            stats.append(f"{format_tokens(self.tokens)} tokens")
        if self.show_timings:
            elapsed = self.duration_ms if self.duration_ms is not None else 1000 * (time.monotonic() - self.started)
            stats.append(format_duration(elapsed))
        return Content.assemble(f"{mark} {self.display_name}{kind}{suffix}", (f"  · {' · '.join(stats)}", "dim"))

    def _retitle(self) -> None:
        self._title_content = self._make_title()
        self.title = self._title_content.plain

    def _watch_title(self, title: str) -> None:
        self._title.label = self._title_content

    def note(self, event: Event) -> None:
        """Count what the subagent's own event adds (tool calls, tokens)."""
        if isinstance(event, ToolCallStartEvent):
            self.tool_calls += 1
        elif isinstance(event, UsageEvent):
            self.tokens = event.cumulative.input_tokens + event.cumulative.output_tokens
        elif isinstance(event, ResultEvent):
            self.tokens = max(self.tokens, event.total_usage.input_tokens + event.total_usage.output_tokens)
            self.duration_ms = event.duration_ms
        else:
            return
        self._retitle()

    def finish(self, subtype: str) -> None:
        self.state = subtype
        if self.duration_ms is None:
            self.duration_ms = 1000 * (time.monotonic() - self.started)
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._retitle()


def panels_in(root: Widget) -> Iterator[Collapsible]:
    """Every tool panel, subagent pane and thinking block under `root`."""
    yield from root.query(ToolPanel)
    yield from root.query(SubagentPane)
    yield from root.query(".thinking").results(Collapsible)


def toggle_panels(root: Widget, expanded: bool) -> bool:
    """Ctrl+O: expand every panel under `root` if any is collapsed, else collapse them all.

    `expanded` is the current state, flipped when there is no panel yet. Returns
    the new state (True: expanded), which panels mounted later follow.
    """
    panels = list(panels_in(root))
    expand = any(p.collapsed for p in panels) if panels else not expanded
    for panel in panels:
        panel.collapsed = not expand
    return expand
