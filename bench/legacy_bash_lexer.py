"""BENCH-ONLY baseline: the hand-written Bash lexer skawld used before the tree-sitter analyzer.

Copied (both modules, `permissions/bash.py` and `permissions/bash_rules.py`, in one file,
imports adjusted) from the commit before issue #10 replaced them, so `bench/permissions.py`
can time today's analyzer against it in the same run. Nothing in skawld imports this file;
never use it for decisions: it misses function bodies, wrapper options, ANSI-C escapes and more.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from skawld_core.permissions.rules import BashRule
from skawld_core.permissions.types import Decision

__all__ = [
    "evaluate_bash",
    "command_words",
    "has_bare_carriage_return",
    "nested_commands",
    "risky_construct",
    "shell_tokens",
    "split_bash_segments",
]

_SAFE_WRITE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_FD_DUP = re.compile(r"[0-9]+-?|-")
_WORD_BREAK = frozenset(" \t\n\r;&|()<>")

SpanKind = Literal["ch", "esc", "sq", "ansi", "dq", "sub", "proc", "comment"]


@dataclass(frozen=True)
class _Span:
    kind: SpanKind
    start: int
    end: int
    body: str = ""  # inner command of `sub` / `proc` spans


def _lex(s: str, i: int = 0, *, in_sub: bool = False) -> tuple[list[_Span], int]:
    """Lex `s` from `i` into spans. With `in_sub`, stop after the closing `)`."""
    spans: list[_Span] = []
    n = len(s)
    depth = 0
    while i < n:
        c = s[i]
        at_word_start = not spans or (spans[-1].kind == "ch" and s[spans[-1].start] in _WORD_BREAK)
        if c == "\\":
            spans.append(_Span("esc", i, min(i + 2, n)))
            i += 2
        elif c == "'":
            j = s.find("'", i + 1)
            j = n if j < 0 else j + 1
            spans.append(_Span("sq", i, j))
            i = j
        elif c == "$" and i + 1 < n and s[i + 1] == "'":
            j = i + 2
            while j < n and s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            j = min(j + 1, n)
            spans.append(_Span("ansi", i, j))
            i = j
        elif c == '"' or (c == "$" and i + 1 < n and s[i + 1] == '"'):
            i = _lex_double(s, i + (2 if c == "$" else 1), i, spans)
        elif c == "$" and i + 1 < n and s[i + 1] == "(":
            i = _lex_sub(s, i, 2, "sub", spans)
        elif c in "<>" and i + 1 < n and s[i + 1] == "(":
            i = _lex_sub(s, i, 2, "proc", spans)
        elif c == "`":
            i = _lex_backtick(s, i, spans)
        elif c == "#" and at_word_start:
            j = i
            while j < n and s[j] not in "\n\r":
                j += 1
            spans.append(_Span("comment", i, j))
            i = j
        else:
            if in_sub:
                if c == "(":
                    depth += 1
                elif c == ")":
                    if depth == 0:
                        return spans, i + 1
                    depth -= 1
            spans.append(_Span("ch", i, i + 1))
            i += 1
    return spans, n


def _lex_double(s: str, i: int, start: int, spans: list[_Span]) -> int:
    """Lex a double-quoted string whose content starts at `i`; substitutions stay visible."""
    n = len(s)
    seg_start = start
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
        elif c == '"':
            i += 1
            break
        elif c == "$" and i + 1 < n and s[i + 1] == "(":
            spans.append(_Span("dq", seg_start, i))
            i = _lex_sub(s, i, 2, "sub", spans)
            seg_start = i
        elif c == "`":
            spans.append(_Span("dq", seg_start, i))
            i = _lex_backtick(s, i, spans)
            seg_start = i
        else:
            i += 1
    i = min(i, n)
    spans.append(_Span("dq", seg_start, i))
    return i


def _lex_sub(s: str, i: int, skip: int, kind: SpanKind, spans: list[_Span]) -> int:
    _, j = _lex(s, i + skip, in_sub=True)
    body_end = j - 1 if j <= len(s) and s[j - 1 : j] == ")" and j - 1 >= i + skip else j
    spans.append(_Span(kind, i, j, s[i + skip : body_end]))
    return j


def _lex_backtick(s: str, i: int, spans: list[_Span]) -> int:
    n = len(s)
    j = i + 1
    while j < n and s[j] != "`":
        j += 2 if s[j] == "\\" else 1
    body = s[i + 1 : min(j, n)]
    j = min(j + 1, n)
    spans.append(_Span("sub", i, j, body))
    return j


def split_bash_segments(command: str) -> list[str]:
    """Split a shell command into simple-command segments.

    Separators (outside quotes, escapes, comments and substitutions): `&&`,
    `||`, `;`, `|`, a standalone `&`, newline and CR. Segments keep their
    surrounding whitespace (`"a && b"` → `["a ", " b"]`); blank segments are
    dropped.
    """
    spans, _ = _lex(command)
    plain = {sp.start: command[sp.start] for sp in spans if sp.kind == "ch"}
    segments: list[str] = []
    seg_start = 0
    k = 0
    while k < len(spans):
        sp = spans[k]
        width = 0
        if sp.kind == "ch":
            c = command[sp.start]
            nxt = plain.get(sp.start + 1, "")
            prev = plain.get(sp.start - 1, "")
            if c in "\n\r;":
                width = 1
            elif c == "|":
                width = 2 if nxt in ("|", "&") else 1
            elif c == "&":
                if nxt == "&":
                    width = 2
                elif prev not in ("<", ">") and nxt != ">":
                    width = 1
        if width:
            seg = command[seg_start : sp.start]
            if seg.strip():
                segments.append(seg)
            seg_start = sp.start + width
            k += width  # each `ch` span is one character
        else:
            k += 1
    tail = command[seg_start:]
    if tail.strip():
        segments.append(tail)
    return segments


def shell_tokens(segment: str) -> list[str]:
    """Whitespace-separated words of a segment with quotes and escapes removed.

    A `#` comment ends the token list.
    """
    tokens: list[str] = []
    cur: list[str] = []
    in_word = False
    spans, _ = _lex(segment)
    for sp in spans:
        text = segment[sp.start : sp.end]
        if sp.kind == "comment":
            break
        if sp.kind == "ch" and text.isspace():
            if in_word:
                tokens.append("".join(cur))
                cur.clear()
                in_word = False
            continue
        in_word = True
        if sp.kind == "esc":
            cur.append(text[1:] if text[1:] != "\n" else "")
        elif sp.kind == "sq":
            cur.append(text[1:-1] if text.endswith("'") and len(text) > 1 else text[1:])
        elif sp.kind == "ansi":
            cur.append(text[2:-1])
        elif sp.kind == "dq":
            cur.append(_unquote_double(text))
        else:
            cur.append(text)
    if in_word:
        tokens.append("".join(cur))
    return tokens


def command_words(segment: str) -> list[str]:
    """The words bash would run for a segment: quotes removed, redirections dropped.

    Unlike `shell_tokens`, unquoted metacharacters (`<`, `>`, `(`, `)`) end a
    word, and redirection operators (`>out`, `2>&1`, `<<EOF`, `&>log`, …) are
    removed together with their target word, so `>log rm -rf x` gives
    `["rm", "-rf", "x"]`. Used to let deny rules see the real command.
    """
    spans, _ = _lex(segment)
    words: list[str] = []
    cur: list[str] = []
    in_word = False
    plain_digits = True
    skip_next_word = False

    def end_word() -> None:
        nonlocal in_word, plain_digits, skip_next_word
        if in_word:
            if skip_next_word:
                skip_next_word = False
            else:
                words.append("".join(cur))
        cur.clear()
        in_word = False
        plain_digits = True

    k = 0
    while k < len(spans):
        sp = spans[k]
        text = segment[sp.start : sp.end]
        if sp.kind == "comment":
            break
        if sp.kind == "ch" and (text in "<>" or (text == "&" and _ch(segment, _at(spans, k + 1)) == ">")):
            # A redirection operator; a plain-digit word right before it is its fd.
            if in_word and plain_digits and cur and "".join(cur).isdigit():
                cur.clear()
                in_word = False
            end_word()
            while k < len(spans) and _ch(segment, spans[k]) in ("<", ">", "&", "|", "-"):
                k += 1
            skip_next_word = True
            while k < len(spans) and _ch(segment, spans[k]) in (" ", "\t"):
                k += 1
            continue
        if sp.kind == "proc" or (sp.kind == "ch" and (text.isspace() or text in "();&|")):
            end_word()  # a process substitution is its own (dropped) word
        else:
            in_word = True
            if sp.kind != "ch" or not text.isdigit():
                plain_digits = False
            if sp.kind == "esc":
                cur.append(text[1:] if text[1:] != "\n" else "")
            elif sp.kind == "sq":
                cur.append(text[1:-1] if text.endswith("'") and len(text) > 1 else text[1:])
            elif sp.kind == "ansi":
                cur.append(text[2:-1])
            elif sp.kind == "dq":
                cur.append(_unquote_double(text))
            else:
                cur.append(text)
        k += 1
    end_word()
    return words


def _at(spans: list[_Span], k: int) -> _Span | None:
    return spans[k] if 0 <= k < len(spans) else None


def _unquote_double(text: str) -> str:
    if text.startswith('$"'):
        text = text[1:]
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            continue
        if c == "\\" and i + 1 < len(text) and text[i + 1] in '"\\$`\n':
            out.append(text[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def has_bare_carriage_return(command: str) -> bool:
    """Whether `command` has an unquoted CR.

    The reference splits on CR, but bash treats it as an ordinary character, so
    segment-wise analysis of such a command does not describe what bash runs.
    """
    spans, _ = _lex(command)
    return any(sp.kind == "ch" and command[sp.start] == "\r" for sp in spans)


def nested_commands(segment: str) -> list[str]:
    """Segments of every command/process substitution inside `segment`, recursively."""
    out: list[str] = []
    spans, _ = _lex(segment)
    for sp in spans:
        if sp.kind in ("sub", "proc"):
            for inner in split_bash_segments(sp.body):
                out.append(inner)
                out.extend(nested_commands(inner))
    return out


def risky_construct(segment: str) -> str | None:
    """Why `segment` can never be allowed by a rule alone, or None if it can.

    Reports command substitution (`$(…)`, backticks; also inside double quotes),
    process substitution (`<(…)`, `>(…)`) and output redirections that write a
    file (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&file`). Descriptor duplication
    (`2>&1`, `>&2`, `>&-`) and writes to `/dev/null`, `/dev/stdout`,
    `/dev/stderr` are fine.
    """
    spans, _ = _lex(segment)
    for sp in spans:
        if sp.kind == "sub":
            return "command substitution"
        if sp.kind == "proc":
            return "process substitution"
    for k, sp in enumerate(spans):
        if sp.kind != "ch":
            continue
        c = segment[sp.start]
        if c == "<" and k + 1 < len(spans) and _ch(segment, spans[k + 1]) == ">":
            return "file redirection"
        if c != ">" or (k > 0 and _ch(segment, spans[k - 1]) in (">", "<")):
            continue  # the second char of `>>`, `<>` is handled with the first
        j = k + 1
        if _ch(segment, spans[j] if j < len(spans) else None) in (">", "|"):
            j += 1
        if _ch(segment, spans[j] if j < len(spans) else None) == "&" and _ch(segment, spans[j - 1]) == ">":
            # `>&N`, `>&-` duplicate a descriptor; `>&file` writes a file.
            target, plain = _word(segment, spans, j + 1)
            if target is not None and (
                (plain and _FD_DUP.fullmatch(target) is not None) or target in _SAFE_WRITE_TARGETS
            ):
                continue
            return "file redirection"
        target, _ = _word(segment, spans, j)
        if target is None or target not in _SAFE_WRITE_TARGETS:
            return "file redirection"
    return None


def _ch(s: str, sp: _Span | None) -> str:
    return s[sp.start] if sp is not None and sp.kind == "ch" else ""


def _word(s: str, spans: list[_Span], k: int) -> tuple[str | None, bool]:
    """The word starting at span `k` (blanks skipped) with quotes removed, and whether it was
    written without any quoting or escapes. The word is None when it is not static text."""
    while k < len(spans) and spans[k].kind == "ch" and s[spans[k].start] in " \t":
        k += 1
    parts: list[str] = []
    plain = True
    while k < len(spans):
        sp = spans[k]
        if sp.kind == "ch":
            c = s[sp.start]
            if c in _WORD_BREAK:
                break
            if c == "$":
                return None, False  # a variable target is never known to be safe
        elif sp.kind in ("sub", "proc", "comment", "esc"):
            return None, False  # escapes: bash's reading of a trailing `\` is not worth guessing
        else:
            plain = False
        parts.append(s[sp.start : sp.end])
        k += 1
    toks = shell_tokens("".join(parts))
    return (toks[0] if len(toks) == 1 else None), plain


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_DURATION = re.compile(r"[0-9.]+[smhd]?")
# Words after which a new command starts (reserved words, grouping).
_COMMAND_STARTERS = frozenset({"!", "{", "(", "if", "then", "else", "elif", "do", "while", "until", "time", "coproc"})
# Commands that run their arguments as a command (leading options are skipped too).
_WRAPPERS = frozenset(
    {"command", "builtin", "exec", "nohup", "env", "sudo", "doas", "nice", "xargs", "timeout", "stdbuf", "setsid"}
)
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_MAX_DEPTH = 4


@lru_cache(maxsize=512)
def _compile(regex: str) -> re.Pattern[str] | None:
    try:
        return re.compile(regex)
    except (re.error, RecursionError, OverflowError):
        return None


@lru_cache(maxsize=512)
def _pattern_tokens(pattern: str) -> tuple[str, ...]:
    return tuple(shell_tokens(pattern))


def _prefix(tokens: Sequence[str], pattern: Sequence[str]) -> bool:
    return 0 < len(pattern) <= len(tokens) and tuple(tokens[: len(pattern)]) == tuple(pattern)


def _matches(rule: BashRule, segment: str, tokens: Sequence[str]) -> bool:
    if isinstance(rule.pattern, str):
        return _prefix(tokens, _pattern_tokens(rule.pattern))
    rx = _compile(rule.pattern.regex)
    return rx is not None and rx.search(segment.strip()) is not None


def _unwrapped(words: list[str]) -> list[str]:
    """Words with leading assignments, reserved words, wrappers (and their options) stripped;
    the command name reduced to its basename."""
    out = list(words)
    while out:
        head = out[0]
        if _ASSIGNMENT.match(head) or head in _COMMAND_STARTERS:
            out.pop(0)
        elif os.path.basename(head) in _WRAPPERS:
            out.pop(0)
            while out and out[0].startswith("-") and len(out[0]) > 1:
                out.pop(0)
            if os.path.basename(head) == "timeout" and out and _DURATION.fullmatch(out[0]):
                out.pop(0)
        elif head[:1] in "({" and len(head) > 1:
            out[0] = head[1:]
        else:
            break
    if out and "/" in out[0]:
        out[0] = os.path.basename(out[0]) or out[0]
    return out


def _inline_script(words: list[str]) -> str | None:
    """The script of `eval …`, `sh -c '…'`, `bash -lc '…'`, or None."""
    if words[0] == "eval":
        return " ".join(words[1:])
    if words[0] in _SHELLS:
        for i in range(1, len(words)):
            w = words[i]
            if w.startswith("-") and not w.startswith("--") and "c" in w[1:]:
                return words[i + 1] if i + 1 < len(words) else None
    return None


def _first(rules: Sequence[BashRule], segment: str) -> Decision | None:
    tokens = shell_tokens(segment)
    for rule in rules:
        if _matches(rule, segment, tokens):
            return rule.decision
    return None


def _denied_deep(rules: Sequence[BashRule], segment: str, depth: int) -> bool:
    """Whether a deny rule matches the real command(s) of a segment.

    Looks past redirections, assignments, wrappers and reserved words (every
    command start in the segment), and into `eval`/`sh -c` scripts. The plain
    token list itself is left to first-match-wins.
    """
    deny_rules = [r for r in rules if r.decision == "deny"]
    if not deny_rules:
        return False
    raw = shell_tokens(segment)
    words = command_words(segment)
    starts = [0, *(i for i in range(1, len(words)) if words[i - 1] in _COMMAND_STARTERS)]
    for start in starts:
        bare = _unwrapped(words[start:])
        if not bare:
            continue
        if bare != raw and any(_matches(r, " ".join(bare), bare) for r in deny_rules):
            return True
        script = _inline_script(bare)
        if script is not None and depth < _MAX_DEPTH and evaluate_bash(script, deny_rules, _depth=depth + 1) == "deny":
            return True
    return False


def evaluate_bash(command: str, rules: Sequence[BashRule], *, _depth: int = 0) -> Decision | None:
    """The bash rule set's decision for `command`, or None (fall through)."""
    segments = split_bash_segments(command)
    if not segments or not rules:
        return None
    any_ask = False
    all_allowed = True
    for seg in segments:
        decision = _first(rules, seg)
        for inner in nested_commands(seg):
            if _first(rules, inner) == "deny" or _denied_deep(rules, inner, _depth):
                return "deny"
        if decision == "deny" or _denied_deep(rules, seg, _depth):
            return "deny"
        if decision == "ask":
            any_ask = True
        if decision != "allow" or risky_construct(seg) is not None:
            all_allowed = False
    if any_ask:
        return "ask"
    if has_bare_carriage_return(command):
        return None  # bash does not split on CR: never allow on a per-segment analysis
    return "allow" if all_allowed else None
