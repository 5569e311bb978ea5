"""The pure helpers behind readable tool panels (titles, previews, exit trailers)."""

from __future__ import annotations

from skawld_tui.transcript_model import bash_title, count_lines, output_preview, split_bash_exit


def test_bash_title_is_the_command_and_its_description() -> None:
    assert bash_title({"command": "ls -la", "description": "List files"}) == ("ls -la", "List files")
    assert bash_title({"command": "cd x\nmake"}) == ("cd x …", "")
    long, _ = bash_title({"command": "echo " + "a" * 300}, limit=20)
    assert long == "echo " + "a" * 14 + "…" and len(long) == 20
    assert bash_title({}) == ("", "")


def test_output_preview_keeps_first_lines_and_counts_the_rest() -> None:
    assert output_preview("a\nb\nc\nd\ne\n\n", 3) == (["a", "b", "c"], 2)
    assert output_preview("\nonly\n", 3) == (["only"], 0)
    assert output_preview("", 3) == ([], 0)
    assert count_lines("x\ny\n") == 2


def test_split_bash_exit() -> None:
    assert split_bash_exit("hello\n\nexit: 0") == ("hello", None)
    assert split_bash_exit("boom\n\nexit: 2") == ("boom", "2")
    assert split_bash_exit("\nexit: signal SIGKILL") == ("", "signal SIGKILL")
    assert split_bash_exit("no trailer") == ("no trailer", None)
