"""Edit and Write diffs computed against the file on disk."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from skawld_tui.file_diff import FileChange, proposed_change, render_diff, unified_diff

LINES = "".join(f"line {i}\n" for i in range(1, 21))


def rendered(change: object, **kw: object) -> str:
    console = Console(width=100, record=True, color_system=None)
    console.print(render_diff(change, **kw))  # type: ignore[arg-type]
    return console.export_text()


def test_edit_has_real_line_numbers_context_and_a_relative_path(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(LINES)
    change = proposed_change(
        "Edit",
        {"file_path": str(tmp_path / "src" / "app.py"), "old_string": "line 12", "new_string": "LINE 12"},
        tmp_path,
    )
    assert change is not None and change.from_disk
    assert unified_diff(change).splitlines() == [
        "--- a/src/app.py",
        "+++ b/src/app.py",
        "@@ -9,7 +9,7 @@",
        " line 9",
        " line 10",
        " line 11",
        "-line 12",
        "+LINE 12",
        " line 13",
        " line 14",
        " line 15",
    ]


def test_write_over_an_existing_file_shows_what_it_replaces(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep me\nold detail\n")
    change = proposed_change("Write", {"file_path": "notes.txt", "content": "keep me\nnew detail\n"}, tmp_path)
    assert change is not None and change.exists
    diff = unified_diff(change)
    assert "--- a/notes.txt" in diff and "-old detail" in diff and "+new detail" in diff and " keep me" in diff


def test_a_new_file_diffs_from_dev_null(tmp_path: Path) -> None:
    change = proposed_change("Write", {"file_path": "new.py", "content": "x = 1\n"}, tmp_path)
    assert change is not None and not change.exists
    assert unified_diff(change).splitlines()[:3] == ["--- /dev/null", "+++ b/new.py", "@@ -0,0 +1 @@"]


def test_replace_all_changes_every_occurrence(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\nx\n")
    change = proposed_change(
        "Edit", {"file_path": "a.txt", "old_string": "x", "new_string": "y", "replace_all": True}, tmp_path
    )
    assert change is not None and change.after == "y\ny\n"


def test_without_the_file_the_diff_says_line_numbers_are_unknown() -> None:
    change = proposed_change("Edit", {"file_path": "gone.py", "old_string": "a", "new_string": "b"}, None)
    assert change is not None and not change.from_disk
    assert "@@ (line numbers unknown) @@" in unified_diff(change)


def test_changed_words_are_marked_and_large_diffs_collapse(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(LINES)
    change = proposed_change("Write", {"file_path": "big.txt", "content": ""}, tmp_path)
    assert change is not None
    text = rendered(change, max_lines=10)
    assert "… 13 more diff lines" in text
    pair = proposed_change(
        "Write", {"file_path": "big.txt", "content": LINES.replace("line 3", "line three")}, tmp_path
    )
    assert pair is not None
    group = render_diff(pair)
    removed = next(t for t in group.renderables if str(t).endswith(" -line 3"))  # type: ignore[attr-defined]
    marked = {str(removed)[span.start : span.end] for span in removed.spans if "#7a2a2e" in str(span.style)}
    assert marked == {"3"}


def test_other_tools_have_no_diff() -> None:
    assert proposed_change("Read", {"file_path": "a.py"}, None) is None


def test_every_code_line_is_numbered_as_in_the_file() -> None:
    """Claude Code numbers each line: the old number for a removed line, the new one otherwise."""
    before = "".join(f"line {i}\n" for i in range(1, 13))
    after = before.replace("line 9\n", "line nine\n").replace("line 2\n", "")
    console = Console(width=60, color_system=None, record=True)
    console.print(render_diff(FileChange("a.txt", before, after, exists=True, from_disk=True)))
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    assert lines[3:5] == [" 1  line 1", " 2 -line 2"]
    assert " 9 -line 9" in lines and " 8 +line nine" in lines and "11  line 12" in lines
    unknown = Console(width=60, color_system=None, record=True)
    unknown.print(render_diff(FileChange("a.txt", "x\n", "y\n", exists=True, from_disk=False)))
    assert "-x" in unknown.export_text().splitlines()  # no numbers when the file was not read
