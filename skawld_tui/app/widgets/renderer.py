"""Routes skawld events into transcript widgets.

Each agent path owns a `Sink` (a container plus the text segment being
streamed): `()` is the main agent, `("run-a", "run-b")` a subagent of a
subagent. Tool panels are found by `(path, tool_use_id)`, so parallel calls
update their own panel whatever order their events arrive in.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, assert_never

from textual.widget import Widget
from textual.widgets import Collapsible

from skawld_core.events import (
    AssistantEvent,
    CompactionEvent,
    ErrorEvent,
    Event,
    HookErrorEvent,
    PartialAssistantEvent,
    PartialText,
    PartialThinking,
    PermissionRequestEvent,
    ResultEvent,
    SkillCompletedEvent,
    SkillInvokedEvent,
    SkillsLoadedEvent,
    SubagentEvent,
    SystemEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UsageEvent,
    UserEvent,
)
from skawld_core.messages import TextBlock, ToolResultBlock
from skawld_core.messages import ThinkingBlock as ThinkingContent

from ...transcript_model import (
    format_tokens,
    run_footer,
    summarize_tool,
    tool_result_text,
    user_prompt_text,
)
from .blocks import AssistantMarkdown, Divider, ErrorBlock, NoteLine, ThinkingBlock, UserMessage
from .tool_panel import SUBAGENT_TOOLS, SubagentPane, ToolPanel, toggle_panels

Path = tuple[str, ...]


@dataclass
class Sink:
    """Where one agent's output goes."""

    container: Widget
    text: AssistantMarkdown | None = None
    thinking: ThinkingBlock | None = None
    panels: dict[str, ToolPanel] = field(default_factory=dict)
    pane: SubagentPane | None = None


class EventRenderer:
    """Applies events to the widget tree. One per transcript."""

    def __init__(
        self,
        root: Widget,
        *,
        registry: Any = None,
        model: Callable[[], str] = lambda: "",
        show_timings: bool = True,
    ) -> None:
        self.root = root
        self.registry = registry
        self.model = model
        self.show_timings = show_timings
        self.cwd: pathlib.Path | None = None  # set by the app: live Edit/Write panels diff against this project
        self.sinks: dict[Path, Sink] = {(): Sink(root)}
        self.on_usage: Callable[[Any], None] | None = None
        self.expand_panels = False  # Ctrl+O: panels mounted from now on open expanded

    def toggle_panels(self) -> None:
        """Ctrl+O: expand (or collapse) every tool panel and subagent pane, and the ones to come."""
        self.expand_panels = toggle_panels(self.root, self.expand_panels)

    def _new_panel(
        self, tool_use_id: str, tool_name: str, input: dict[str, Any], summary: str, status: Any = "running"
    ) -> ToolPanel:
        return ToolPanel(
            tool_use_id,
            tool_name,
            input,
            summary,
            status=status,
            show_timings=self.show_timings,
            cwd=self.cwd,
            expanded=self.expand_panels,
        )

    def reset(self) -> None:
        self.sinks = {(): Sink(self.root)}

    def panel(self, tool_use_id: str, path: Path = ()) -> ToolPanel | None:
        sink = self.sinks.get(path)
        return sink.panels.get(tool_use_id) if sink else None

    async def mount(self, sink: Sink, widget: Widget) -> None:
        if sink.container.is_attached:
            await sink.container.mount(widget)

    # -- text segments -----------------------------------------------------------

    async def _text_widget(self, sink: Sink) -> AssistantMarkdown:
        if sink.text is None:
            sink.text = AssistantMarkdown()
            await self.mount(sink, sink.text)
            sink.text.start_stream()
        return sink.text

    async def close_text(self, sink: Sink, final: str | None = None) -> None:
        if sink.text is not None:
            widget, sink.text = sink.text, None
            await widget.finish(final)
        elif final and final.strip():
            await self.mount(sink, AssistantMarkdown(final))

    # -- dispatch -------------------------------------------------------------------

    async def apply(self, event: Event, path: Path = ()) -> None:
        sink = self.sinks.get(path)
        if sink is None:
            return
        match event:
            case PartialAssistantEvent():
                delta = event.delta
                if isinstance(delta, PartialText):
                    if sink.text is None or sink.text.feed is None:
                        await self._text_widget(sink)
                    assert sink.text is not None and sink.text.feed is not None
                    sink.text.feed.write(delta.text)
                elif isinstance(delta, PartialThinking):
                    if sink.thinking is None:
                        sink.thinking = ThinkingBlock(collapsed=not self.expand_panels)
                        await self.mount(sink, sink.thinking)
                    sink.thinking.append(delta.text)
            case AssistantEvent():
                await self._assistant(sink, event)
            case UserEvent():
                await self._user(sink, event, path)
            case PermissionRequestEvent():
                await self.close_text(sink)
                for req in event.requests:
                    panel = sink.panels.get(req.tool_use_id)
                    if panel is None:
                        panel = self._new_panel(req.tool_use_id, req.tool_name, req.input, req.summary, "pending")
                        sink.panels[req.tool_use_id] = panel
                        await self.mount(sink, panel)
                    else:
                        panel.set_status("pending")
            case ToolCallStartEvent():
                await self.close_text(sink)
                panel = sink.panels.get(event.tool_use_id)
                summary = summarize_tool(event.tool_name, event.input, self.registry)
                if panel is None:
                    panel = self._new_panel(event.tool_use_id, event.tool_name, event.input, summary)
                    sink.panels[event.tool_use_id] = panel
                    await self.mount(sink, panel)
                else:
                    if panel.input != event.input:
                        panel.set_input(event.input, summary)
                    panel.set_status("running")
            case ToolCallEndEvent():
                panel = sink.panels.get(event.tool_use_id)
                if panel is not None:
                    panel.set_status("error" if event.is_error else "ok", event.duration_ms)
            case SubagentEvent():
                await self._subagent(sink, event, path)
            case CompactionEvent():
                await self.close_text(sink)
                await self.mount(
                    sink,
                    Divider(
                        f"context compacted: {event.messages_before} → {event.messages_after} messages, "
                        f"{format_tokens(event.tokens_before)} → {format_tokens(event.tokens_after)} tokens"
                    ),
                )
            case ErrorEvent():
                await self.close_text(sink)
                await self.mount(sink, ErrorBlock(event.error.name, event.error.message))
            case HookErrorEvent():
                await self.mount(sink, NoteLine(f"hook {event.hook_event}: {event.message}", classes="note -warning"))
            case SkillInvokedEvent():
                await self.mount(sink, NoteLine(f"skill /{event.name}{' ' + event.args if event.args else ''}"))
            case ResultEvent():
                await self._result(sink, event, path)
            case SystemEvent() | SkillsLoadedEvent() | UsageEvent() | SkillCompletedEvent():
                pass  # not part of the transcript (the status line shows `RunController`'s share of them)
            case _:
                assert_never(event)

    async def _assistant(self, sink: Sink, event: AssistantEvent) -> None:
        thinking = "".join(b.thinking for b in event.message.content if isinstance(b, ThinkingContent))
        if thinking.strip():
            if sink.thinking is None:
                sink.thinking = ThinkingBlock(thinking, collapsed=not self.expand_panels)
                if sink.text is not None:
                    await sink.container.mount(sink.thinking, before=sink.text)
                else:
                    await self.mount(sink, sink.thinking)
            else:
                sink.thinking.set_text(thinking)
        sink.thinking = None
        final = "\n\n".join(b.text for b in event.message.content if isinstance(b, TextBlock) and b.text)
        await self.close_text(sink, final or None)
        # One panel per call, in the model's order, before permissions and
        # parallel execution reorder the events that fill them.
        for block in event.message.tool_uses():
            if block.id not in sink.panels:
                summary = summarize_tool(block.name, block.input, self.registry)
                panel = self._new_panel(block.id, block.name, block.input, summary, "queued")
                sink.panels[block.id] = panel
                await self.mount(sink, panel)

    async def _user(self, sink: Sink, event: UserEvent, path: Path) -> None:
        message = event.message
        if event.subtype == "tool_result" or any(isinstance(b, ToolResultBlock) for b in message.content):
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    panel = sink.panels.get(block.tool_use_id)
                    if panel is not None:
                        panel.set_result(tool_result_text(block), bool(block.is_error))
            return
        await self.close_text(sink)
        text = user_prompt_text(message)
        if event.subtype == "prompt":
            if path:  # a subagent's task; the root prompt was shown when it was sent
                await self.mount(sink, UserMessage(text))
        elif event.subtype == "steering":
            await self.mount(sink, UserMessage(text, steer=True))
        elif text:
            await self.mount(sink, NoteLine(text))

    async def _subagent(self, sink: Sink, event: SubagentEvent, path: Path) -> None:
        child = (*path, event.subagent_run_id)
        if child not in self.sinks:
            await self.close_text(sink)
            pane = SubagentPane(
                event.subagent_run_id, event.display_name, event.subagent_type, show_timings=self.show_timings
            )
            host = self._host_panel(sink, event.parent_tool_use_id)
            if host is not None:
                host.subagent_panes.append(pane)
                host.collapsed = False
                await host.query_one(Collapsible.Contents).mount(pane)
            else:
                await self.mount(sink, pane)
            self.sinks[child] = Sink(pane.body, pane=pane)
        child_pane = self.sinks[child].pane
        if child_pane is not None:
            child_pane.note(event.event)
        await self.apply(event.event, child)

    def _host_panel(self, sink: Sink, tool_use_id: str | None = None) -> ToolPanel | None:
        if tool_use_id is not None and (panel := sink.panels.get(tool_use_id)) is not None:
            return panel
        running = [p for p in sink.panels.values() if p.status == "running" and not p.subagent_panes]
        named = [p for p in running if p.tool_name in SUBAGENT_TOOLS]
        if named:
            return named[0]
        return running[0] if len(running) == 1 else None

    async def _result(self, sink: Sink, event: ResultEvent, path: Path) -> None:
        await self.close_text(sink)
        if sink.thinking is not None:
            sink.thinking = None
        if path:
            if sink.pane is not None:
                sink.pane.finish(event.subtype)
                sink.pane.collapsed = not self.expand_panels
            return
        footer = run_footer(event, self.model(), show_timings=self.show_timings)
        await self.mount(sink, NoteLine(footer, classes="note run-footer -" + event.subtype))
        # Subagent sinks are done with once the run is over.
        self.sinks = {(): Sink(self.root)}
