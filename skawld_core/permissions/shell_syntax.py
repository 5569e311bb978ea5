"""Bash syntax trees (tree-sitter-bash) and the decoding of shell words into their values.

The parser is built on first use and cached, so `import skawld_core` never loads
tree-sitter. `decode_word` turns a word node (plain word, quoted strings,
`$'…'`, concatenations) into the text bash would pass, or marks it dynamic when
only running the command would tell (expansions, substitutions, brace
expansion).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = ["Word", "decode_ansi_c", "decode_word", "node_text", "parse_bash"]

_ENCODING = "utf-8"
# As `os.fsencode` does for the Bash tool's argv: lone `\udcXX` surrogates stand for raw bytes.
_ERRORS = "surrogateescape"


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word: its decoded `value` (the source text when not `static`).

    `static` means the value is known exactly before the command runs and is
    one word; `glob` means it has unquoted pattern characters (`*`, `?`, `[…]`)
    that bash may replace with file names.
    """

    value: str
    static: bool = True
    glob: bool = False

    @property
    def literal(self) -> bool:
        """Known exactly and not a pattern."""
        return self.static and not self.glob


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def parse_bash(source: str) -> tuple[Node, bytes]:
    """The root node of `source`'s syntax tree, and the bytes it indexes."""
    try:
        data = source.encode(_ENCODING, _ERRORS)
    except UnicodeEncodeError:  # other lone surrogates: bash could not be given this command anyway
        data = source.encode(_ENCODING, "surrogatepass")
    return _parser().parse(data).root_node, data


def node_text(node: Node, data: bytes) -> str:
    """The source text of `node`."""
    return data[node.start_byte : node.end_byte].decode(_ENCODING, _ERRORS)


_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ANSI_NUMERIC = re.compile(r"[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|c.")


def decode_ansi_c(body: str) -> str:
    """Decode the inside of `$'…'` as bash does (`\\x72`, octal, `\\u`, `\\cX`…); a NUL ends it."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
            continue
        m = _ANSI_NUMERIC.match(body, i + 1)
        if m is None:
            out.append("\\" + nxt)  # unknown escapes stay as written
            i += 2
            continue
        tok = m.group()
        if tok[0] == "c":
            ch = chr(ord(tok[1].upper()) ^ 0x40) if tok[1] != "?" else "\x7f"
        elif tok[0] in "xuU":
            ch = _chr(int(tok[1:], 16))
        else:
            ch = _chr(int(tok, 8) & 0xFF)
        if ch == "\0":
            break
        out.append(ch)
        i = m.end()
    return "".join(out)


def _chr(code: int) -> str:
    try:
        return chr(code)
    except (ValueError, OverflowError):
        return "\ufffd"


def _decode_unquoted(text: str) -> tuple[str, bool]:
    """An unquoted word's value (backslashes removed) and whether it has glob characters."""
    out: list[str] = []
    glob = False
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            if i + 1 < n and text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        if c in "*?[":
            glob = True
        elif c in "+@!" and i + 1 < n and text[i + 1] == "(":
            glob = True  # extglob
        out.append(c)
        i += 1
    return "".join(out), glob


def _decode_double(text: str) -> str:
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in '"\\$`\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


_DYNAMIC = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
        "brace_expression",
    }
)


def decode_word(node: Node, data: bytes) -> Word:
    """The value of a word-like node (see the module docstring)."""
    kind = node.type
    text = node_text(node, data)
    if kind == "word":
        value, glob = _decode_unquoted(text)
        return Word(value, True, glob)
    if kind == "number":
        return Word(text)
    if kind == "raw_string":
        return Word(text[1:-1] if len(text) >= 2 and text.endswith("'") else text[1:])
    if kind == "ansi_c_string":
        body = text[2:-1] if len(text) >= 3 and text.endswith("'") else text[2:]
        return Word(decode_ansi_c(body))
    if kind == "string":
        return _decode_string(node, data, text)
    if kind == "translated_string":  # $"…": the string, translated (a no-op without a catalog)
        strings = [c for c in node.named_children if c.type == "string"]
        return _decode_string(strings[0], data, text) if len(strings) == 1 else Word(text, False)
    if kind == "concatenation":
        return _decode_concatenation(node, data, text)
    if kind == "command_name" and node.named_child_count == 1:
        return decode_word(node.named_children[0], data)
    return Word(text, False)


def _decode_string(node: Node, data: bytes, text: str) -> Word:
    parts: list[str] = []
    for child in node.children:
        if child.type == "string_content":
            parts.append(_decode_double(node_text(child, data)))
        elif child.type == '"':
            continue
        elif child.type == "$" and not child.is_named:
            parts.append("$")
        elif child.type == "string":
            inner = _decode_string(child, data, node_text(child, data))
            if not inner.static:
                return Word(text, False)
            parts.append(inner.value)
        else:
            return Word(text, False)
    return Word("".join(parts))


def _decode_concatenation(node: Node, data: bytes, text: str) -> Word:
    parts: list[str] = []
    glob = False
    children: list[Any] = list(node.children)
    for index, child in enumerate(children):
        if child.type == "word" and node_text(child, data) == "{":
            rest = "".join(node_text(c, data) for c in children[index + 1 :])
            if "}" in rest and ("," in rest.split("}")[0] or ".." in rest.split("}")[0]):
                return Word(text, False)  # brace expansion: more than one word
        if child.type in _DYNAMIC or not child.is_named:
            return Word(text, False)
        part = decode_word(child, data)
        if not part.static:
            return Word(text, False)
        glob = glob or part.glob
        parts.append(part.value)
    return Word("".join(parts), True, glob)
