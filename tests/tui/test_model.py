"""Pure logic: chunk splitting, history items, pricing, slash parsing, path completion."""

from __future__ import annotations

import random
from pathlib import Path

from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from skawld_tui.app import slash_commands
from skawld_tui.app.widgets.md_chunks import ChunkSplitter
from skawld_tui.path_complete import at_token, complete_path
from skawld_tui.transcript_model import (
    AssistantItem,
    ToolItem,
    UserItem,
    context_percent,
    cost_usd,
    format_duration,
    format_tokens,
    history_items,
    summarize_tool,
    tail_start,
)


def feed_randomly(splitter: ChunkSplitter, text: str, seed: int = 3) -> list[str]:
    rng, i, chunks = random.Random(seed), 0, []
    while i < len(text):
        n = rng.randint(1, 9)
        chunks += splitter.feed(text[i : i + n])
        i += n
    return chunks


def test_chunks_end_at_blank_lines_outside_fences() -> None:
    text = ("A paragraph of prose. " * 20 + "\n\n```python\nx = 1\n\ny = 2\n```\n\n") * 10
    splitter = ChunkSplitter(target=300)
    chunks = feed_randomly(splitter, text)
    assert len(chunks) > 3
    assert "".join(chunks) + splitter.tail == text
    for chunk in chunks:
        assert chunk.endswith("\n\n")
        assert chunk.count("```") % 2 == 0  # never cut inside a fence


def test_long_fence_is_cut_and_reopened() -> None:
    text = "```js\n" + "let a = 1;\n" * 2000 + "```\n"
    splitter = ChunkSplitter(target=300, max_fence=1000)
    chunks = feed_randomly(splitter, text)
    assert len(chunks) > 10 and all(len(c) < 1100 for c in chunks)
    assert all(c.startswith("```js\n") and c.endswith("```\n") for c in chunks)
    assert ("".join(chunks) + splitter.tail).count("let a = 1;") == 2000


def test_history_items_attach_results_and_hide_env_blocks() -> None:
    messages = [
        Message(role="user", content=[TextBlock(text="<env>\nx\n</env>"), TextBlock(text="hi")]),
        Message(
            role="assistant",
            content=[TextBlock(text="ok"), ToolUseBlock(id="a", name="Read", input={"file_path": "f"})],
        ),
        Message(role="user", content=[ToolResultBlock(tool_use_id="a", content="boom", is_error=True)]),
    ]
    items = history_items(messages, offset=10)
    assert items == [
        UserItem("hi", 10),
        AssistantItem("ok"),
        ToolItem("a", "Read", {"file_path": "f"}, result="boom", is_error=True),
    ]
    assert tail_start(messages * 10, 5) % 3 == 0


def test_pricing_and_formats() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=100_000, cache_read_tokens=500_000)
    assert cost_usd("claude-sonnet-4-5", usage) == (500_000 * 3 + 500_000 * 0.3 + 100_000 * 15) / 1e6
    assert cost_usd("unknown-model", usage) is None
    assert format_tokens(950) == "950" and format_tokens(12_345) == "12.3k"
    assert format_duration(850) == "850ms" and format_duration(2400) == "2.4s" and format_duration(185_000) == "3m05s"
    assert context_percent(Usage(input_tokens=50_000, output_tokens=0), 200_000) == 25


def test_summaries() -> None:
    assert summarize_tool("Bash", {"command": "ls -la\nrm x"}) == "Bash ls -la"
    assert summarize_tool("X", {}) == "X"


def test_slash_parse_complete_and_modes() -> None:
    assert slash_commands.parse("/resume abc") == ("resume", "abc")
    assert slash_commands.parse("/quit") == ("exit", "")
    assert slash_commands.parse("//not a command") is None
    assert [c.name for c in slash_commands.complete("/m")] == ["model", "mode", "mcp", "memory"]
    assert slash_commands.complete("/model x") == []
    assert slash_commands.next_mode("yolo") == "default"


def test_at_path_completion(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("")
    (tmp_path / ".hidden").write_text("")
    assert at_token("see @sr") == "sr" and at_token("mail a@b") is None
    assert complete_path(tmp_path, "") == ["src/"]
    assert complete_path(tmp_path, "src/") == ["src/a.py"]
    assert complete_path(tmp_path, ".h") == [".hidden"]
