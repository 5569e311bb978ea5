"""The scrolling transcript: follows the bottom, prunes far-off turns, and
re-renders earlier history from the session on demand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual._styles_cache import StylesCache
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.message import Message as TMessage
from textual.widget import Widget
from textual.widgets import Static

from ...transcript_model import AssistantItem, Item, NoteItem, ThinkingItem, ToolItem, UserItem, summarize_tool

if TYPE_CHECKING:
    from .blocks import UserMessage


class HistoryMarker(Static):
    """Top-of-transcript line standing for messages that are not mounted."""

    class Load(TMessage):
        """The user asked for earlier history: by a click or Ctrl+Up (the view jumps to
        its top), or by scrolling to the top (`keep_position`: what was on screen stays)."""

        def __init__(self, *, keep_position: bool = False) -> None:
            super().__init__()
            self.keep_position = keep_position

    def __init__(self) -> None:
        super().__init__("", classes="history-marker")
        self.hidden_messages = 0
        self.display = False

    def set_hidden(self, count: int) -> None:
        self.hidden_messages = count
        self.display = count > 0
        self.update(Text(f"▲ {count} earlier messages — click or press ctrl+up to show more", style="dim"))

    def on_click(self) -> None:
        self.post_message(self.Load())


class Transcript(VerticalScroll, can_focus=False):
    """The conversation log. Only a tail of the conversation is mounted.

    `prune()` removes whole turns from the top once more than `MAX_TURNS`
    are mounted (only while the view follows the bottom), and the marker
    records how many history messages are no longer shown. A resumed session
    mounts a short tail, then earlier chunks until the view is full
    (`fill_view`); scrolling up to the top mounts the previous chunk above (as
    a long log does), so the first turn is reached by scrolling alone.
    """

    # Few turns stay mounted: each run's layout and paint walk every mounted widget, so
    # the per-turn cost is that of the mounted turns, flat from the first turns on; the
    # rest is rebuilt from the session when the user scrolls up.
    MAX_TURNS = 8
    KEEP_TURNS = 4
    loading_earlier = False  # a scroll-triggered load is under way

    def fill_view(self) -> None:
        """After a layout: while the mounted tail does not fill the view (nothing to scroll
        up by) and earlier history is hidden, mount the previous chunk."""
        if self.max_scroll_y <= 0 and not self.loading_earlier and self.marker.hidden_messages > 0:
            self.loading_earlier = True
            self.post_message(HistoryMarker.Load(keep_position=True))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        at_top = new_value < old_value and new_value <= 0 and self.max_scroll_y > 0
        if at_top and not self.loading_earlier and self.marker.hidden_messages > 0:
            self.loading_earlier = True
            self.post_message(HistoryMarker.Load(keep_position=True))

    _follow = False

    def compose(self):  # type: ignore[no-untyped-def]
        yield HistoryMarker()

    def anchor(self, anchor: bool = True) -> None:
        """Follow the bottom as content is added (Textual's anchor), once there is more than fits."""
        self._follow = anchor
        super().anchor(anchor)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        # Textual scrolls an anchored container to its content's bottom even when the content is
        # shorter than the view (a negative scroll), which drew a short transcript, the welcome
        # block, at the bottom under empty rows in a real terminal. Anchor only once it overflows.
        result = super().arrange(size, optimal)
        view = self.container_size.height - self.scrollbar_size_horizontal
        self._anchored = self._follow and result.spatial_map.total_region.bottom > view
        return result

    @property
    def marker(self) -> HistoryMarker:
        return self.query_one(HistoryMarker)

    def update_node_styles(self, animate: bool = True) -> None:
        """Skip restyling every descendant on focus/hover changes (as Toad does)."""

    def turn_starts(self) -> list[UserMessage]:
        from .blocks import UserMessage  # lazy: the transcript's blocks load after the first frame

        return [c for c in self.children if isinstance(c, UserMessage) and c.history_index is not None]

    async def prune(self, *, force: bool = False) -> int:
        """Drop the oldest turns when too many are mounted; returns widgets removed."""
        starts = self.turn_starts()
        if len(starts) <= self.MAX_TURNS:
            return 0
        if not force and self.scroll_y < self.max_scroll_y - 2:
            return 0  # the user is reading history: leave it alone
        first_kept = starts[len(starts) - self.KEEP_TURNS]
        doomed: list[Widget] = []
        for child in self.children:
            if child is first_kept:
                break
            if not isinstance(child, HistoryMarker):
                doomed.append(child)
        if not doomed:
            return 0
        await self.remove_children(doomed)
        release_styles_cache()
        assert first_kept.history_index is not None
        self.marker.set_hidden(first_kept.history_index)
        return len(doomed)

    async def clear(self) -> None:
        await self.remove_children([c for c in self.children if not isinstance(c, HistoryMarker)])
        self.marker.set_hidden(0)


def release_styles_cache() -> None:
    """Let removed widgets go: Textual's `StylesCache.get_inner_outer` is an `lru_cache`
    on a method, so its 1,024 entries keep the `StylesCache` (and every rendered line) of
    widgets long removed (Textual issue #6665); emptying it costs a few style lookups."""
    cached = getattr(StylesCache.get_inner_outer, "cache_clear", None)
    if cached is not None:
        cached()


def history_widgets(items: Sequence[Item], *, show_timings: bool, registry: Any = None) -> list[Widget]:
    """Widgets for stored history items (resume, show-earlier)."""
    from .blocks import AssistantMarkdown, NoteLine, ThinkingBlock, UserMessage  # lazy: after the first frame
    from .tool_panel import ToolPanel

    out: list[Widget] = []
    for item in items:
        if isinstance(item, UserItem):
            out.append(UserMessage(item.text, history_index=item.index))
        elif isinstance(item, AssistantItem):
            out.append(AssistantMarkdown(item.text))
        elif isinstance(item, ThinkingItem):
            out.append(ThinkingBlock(item.text))
        elif isinstance(item, ToolItem):
            panel = ToolPanel(
                item.tool_use_id,
                item.name,
                item.input,
                summarize_tool(item.name, item.input, registry),
                status="error" if item.is_error else ("ok" if item.result is not None else "error"),
                show_timings=show_timings,
            )
            if item.result is not None:
                panel.set_result(item.result, item.is_error)
            out.append(panel)
        elif isinstance(item, NoteItem):
            out.append(NoteLine(item.text))
    return out
