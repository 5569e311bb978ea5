"""Text helpers: cat -n style numbering and truncation markers."""

from __future__ import annotations


def truncation_marker(omitted: int) -> str:
    """The marker appended where text was cut: `… (N chars truncated)`."""
    return f"… ({omitted} chars truncated)"


def unmeasured_marker(at_least: int) -> str:
    """The marker of a line cut without reading to its end: `… (N+ chars truncated; …)`."""
    return f"… ({at_least}+ chars truncated; the rest of this line was not read)"


def truncate_text(text: str, limit: int) -> str:
    """`text` unchanged when within `limit`, else cut with a newline and the marker."""
    if len(text) <= limit:
        return text
    return text[:limit] + "\n" + truncation_marker(len(text) - limit)


def number_line(number: int, text: str) -> str:
    """One cat -n style line: the number right-aligned in 6 columns, a TAB, the text."""
    return f"{number:>6}\t{text}"


def number_lines(text: str, start: int = 1) -> str:
    """Number every line of `text`; a trailing newline adds no extra line."""
    if text == "":
        return ""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return "\n".join(number_line(start + i, line) for i, line in enumerate(lines))
