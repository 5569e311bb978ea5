"""A small YAML-subset parser for frontmatter, used when PyYAML is absent.

Supports what skill and agent frontmatter uses: `key: value` mappings (nested
by indentation), plain / single- / double-quoted scalars, `true`/`false`,
`null`/`~`, integers and floats, flow lists `[a, "b c"]`, block lists
(`- item`), block scalars (`|` keeps newlines, `>` folds), and `#` comments.
Anything else raises `ValueError`.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["parse"]

_KEY = re.compile(r"^([^\s#'\"\[\]{}][^:#]*?|'[^']*'|\"[^\"]*\")\s*:(?:\s+(.*))?$")
_INT = re.compile(r"^[-+]?\d+$")
_FLOAT = re.compile(r"^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$")


def _strip_comment(text: str) -> str:
    if text.startswith(("'", '"')):
        return text
    cut = re.search(r"\s#", text)
    return text[: cut.start()].rstrip() if cut else text.rstrip()


def _quoted(text: str) -> tuple[str, str]:
    """Parse a quoted scalar at the start of `text`; returns (value, rest)."""
    quote = text[0]
    out: list[str] = []
    i = 1
    while i < len(text):
        ch = text[i]
        if quote == "'" and ch == "'":
            if text[i + 1 : i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return "".join(out), text[i + 1 :]
        if quote == '"' and ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(nxt, "\\" + nxt))
            i += 2
            continue
        if quote == '"' and ch == '"':
            return "".join(out), text[i + 1 :]
        out.append(ch)
        i += 1
    raise ValueError("unterminated quoted string")


def _scalar(text: str) -> Any:
    text = text.strip()
    if not text:
        return None
    if text[0] in "'\"":
        value, rest = _quoted(text)
        if _strip_comment(rest).strip():
            raise ValueError(f"unexpected text after quoted string: {rest!r}")
        return value
    if text.startswith("["):
        return _flow_list(text)
    if text.startswith(("{", "&", "*", "!", "%", "@", "`")):
        raise ValueError(f"unsupported YAML value: {text!r}")
    text = _strip_comment(text)
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "~"):
        return None
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


def _flow_list(text: str) -> list[Any]:
    body = _strip_comment(text).strip()
    if not body.endswith("]"):
        raise ValueError("unterminated flow list")
    inner = body[1:-1].strip()
    items: list[Any] = []
    while inner:
        if inner[0] in "'\"":
            value, rest = _quoted(inner)
            items.append(value)
            rest = rest.lstrip()
        else:
            cut = inner.find(",")
            token, rest = (inner, "") if cut == -1 else (inner[:cut], inner[cut:])
            if "[" in token or "]" in token:
                raise ValueError("nested flow collections are not supported")
            items.append(_scalar(token))
        if rest and not rest.startswith(","):
            raise ValueError("expected ',' in flow list")
        inner = rest[1:].strip()
    return items


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block(lines: list[str], start: int, indent: int, trailing_newline: bool = True) -> tuple[Any, int]:
    """Parse the block starting at `lines[start]` with the given indent."""
    first = lines[start].strip()
    if first.startswith("- ") or first == "-":
        items: list[Any] = []
        i = start
        while i < len(lines) and _indent(lines[i]) == indent and lines[i].strip().startswith("-"):
            items.append(_scalar(lines[i].strip()[1:]))
            i += 1
        return items, i
    mapping: dict[str, Any] = {}
    i = start
    while i < len(lines):
        line = lines[i]
        if _indent(line) < indent:
            break
        if _indent(line) > indent:
            raise ValueError(f"unexpected indentation: {line.strip()!r}")
        match = _KEY.match(line.strip())
        if match is None:
            raise ValueError(f"expected 'key: value': {line.strip()!r}")
        key = match.group(1).strip().strip("'\"")
        raw = (match.group(2) or "").strip()
        i += 1
        if raw in ("|", ">", "|-", ">-", "|+", ">+"):
            collected: list[str] = []
            while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
                collected.append(lines[i])
                i += 1
            base = min((_indent(c) for c in collected if c.strip()), default=0)
            texts = [c[base:] for c in collected]
            while texts and not texts[-1].strip():
                texts.pop()
            value = "\n".join(texts) if raw[0] == "|" else " ".join(t.strip() for t in texts if t.strip())
            keep_newline = not raw.endswith("-") and (i < len(lines) or trailing_newline)
            mapping[key] = value + "\n" if keep_newline else value
        elif _strip_comment(raw):
            mapping[key] = _scalar(raw)
        elif i < len(lines) and (_indent(lines[i]) > indent or lines[i].strip().startswith("- ")):
            child_indent = _indent(lines[i])
            mapping[key], i = _block(lines, i, child_indent, trailing_newline)
        else:
            mapping[key] = None
    return mapping, i


def parse(text: str) -> Any:
    """Parse `text` (the frontmatter between the `---` lines)."""
    trailing_newline = text.endswith("\n")
    lines = [ln.rstrip() for ln in text.split("\n")]
    lines = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        return None
    value, end = _block(lines, 0, _indent(lines[0]), trailing_newline)
    if end != len(lines):
        raise ValueError(f"unexpected line: {lines[end].strip()!r}")
    return value
