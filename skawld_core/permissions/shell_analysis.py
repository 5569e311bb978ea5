"""What a Bash command runs, read from its tree-sitter syntax tree.

`analyze_shell(command)` lists every simple command anywhere in the tree:
those of the top-level lists and pipelines, those inside substitutions,
subshells, function bodies, compound commands and here-documents, and those
run by wrappers (`sudo`, `nice -n 1`, `env -S`, `find -exec`, `xargs`…) or by
inline scripts (`bash -c`, `eval`, `trap`), parsed again up to a bounded depth.

It also reports why the command can never be allowed by rules alone (the
`blocker`: anything but lists/pipelines of literal simple commands with
harmless redirections) and why some command it runs cannot be known before it
runs (`unknown`: a variable or substitution in command position, a glob, a
script read from a file).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from .shell_evaluation import Evaluation, scan_command, scan_tree
from .shell_syntax import Word, decode_word, node_text, parse_bash
from .shell_wrappers import inner_commands

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["ShellAnalysis", "SimpleCommand", "analyze_shell"]

MAX_SCRIPT_DEPTH = 4
_MAX_NESTING = 200
_MAX_WRAPPERS = 32
# Whitespace tree-sitter skips but bash reads as part of a word.
_ODD_SPACE = re.compile(r"[^\S \t\n]")
_STRUCTURE = frozenset({"program", "list", "pipeline", "negated_command"})
_WORDS = frozenset({"word", "number", "raw_string", "ansi_c_string"})
# Nodes that run nothing by themselves (their children are still looked at).
_INERT = frozenset(
    {
        "string",
        "concatenation",
        "string_content",
        "file_descriptor",
        "variable_name",
        "heredoc_start",
        "heredoc_end",
        "heredoc_content",
        "heredoc_body",
        "binary_expression",
        "unary_expression",
        "ternary_expression",
        "parenthesized_expression",
        "postfix_expression",
        "subscript",
        "test_operator",
        "special_variable_name",
        "regex",
        "extglob_pattern",
        "array",
    }
)
_SAFE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_FD = re.compile(r"[0-9]+-?|-")
_BLOCKERS = {
    "function_definition": "a function definition",
    "subshell": "a subshell",
    "compound_statement": "a command group",
    "command_substitution": "command substitution",
    "process_substitution": "process substitution",
    "arithmetic_expansion": "arithmetic expansion",
    "simple_expansion": "a variable expansion",
    "expansion": "a parameter expansion",
    "brace_expression": "brace expansion",
    "heredoc_redirect": "a here-document",
    "herestring_redirect": "a here-string",
    "variable_assignment": "a variable assignment",
    "variable_assignments": "a variable assignment",
    "declaration_command": "a declaration",
    "unset_command": "unset",
    "test_command": "a test expression",
    "if_statement": "an if statement",
    "while_statement": "a loop",
    "for_statement": "a loop",
    "c_style_for_statement": "a loop",
    "case_statement": "a case statement",
    "ERROR": "syntax the analyzer does not understand",
}
_RESERVED = frozenset(
    {"{", "}", "!", "[[", "]]", "if", "then", "else", "elif", "fi", "do", "done", "case", "esac"}
    | {"while", "until", "for", "in", "function", "select"}
)


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: its words (assignments and redirections removed).

    `derived` commands were found by looking through a wrapper or inside an
    inline script (`sudo rm` gives `rm`); `top` commands are the ones of the
    top-level lists and pipelines, the only ones an allow rule can allow.
    `open_ended` means more arguments are appended when it runs (xargs,
    find -exec); `via` names the wrappers or scripts it was found through.
    """

    words: tuple[Word, ...]
    source: str
    derived: bool
    top: bool
    open_ended: bool
    via: str

    @property
    def name(self) -> str:
        """The command word as bash sees it (decoded)."""
        return self.words[0].value

    @property
    def values(self) -> tuple[str, ...]:
        """The decoded words."""
        return tuple(w.value for w in self.words)


@dataclass(frozen=True)
class ShellAnalysis:
    """The result of `analyze_shell`; see the module docstring."""

    commands: tuple[SimpleCommand, ...]
    blocker: str | None = None
    unknown: str | None = None
    # what the command evaluates as arithmetic and the variables it sets, for an enclosing
    # script that shares its variables (`x=…; eval '…$((x))'`)
    evaluation: Evaluation = field(default_factory=Evaluation, compare=False, repr=False)


@dataclass
class _Walker:
    data: bytes
    depth: int
    commands: list[SimpleCommand] = field(default_factory=list)
    blocker: str | None = None
    unknown: str | None = None
    scripts: list[Evaluation] = field(default_factory=list)

    def block(self, reason: str) -> None:
        if self.blocker is None:
            self.blocker = reason

    def not_known(self, reason: str) -> None:
        if self.unknown is None:
            self.unknown = reason

    # -- the tree -------------------------------------------------------------------------

    def walk(self, node: Node, top: bool, level: int) -> None:
        if level > _MAX_NESTING:
            self.block("nesting too deep")
            self.not_known("the command is nested too deeply to analyze")
            return
        kind = node.type
        if kind == "command":
            self.command(node, top, level)
        elif kind in _STRUCTURE:
            for child in node.named_children:
                self.walk(child, top, level + 1)
        elif kind == "redirected_statement":
            # tree-sitter puts the words after a redirection target (`git >/dev/null push`)
            # into the redirection; bash passes them to the command.
            extra: list[Node] = []
            body: Node | None = None
            for index, child in enumerate(node.children):
                if node.field_name_for_child(index) == "body":
                    body = child
                elif child.is_named:
                    self.redirect(child, level)
                    if child.type == "file_redirect":
                        extra.extend(_destinations(child)[1:])
            if body is not None and body.type == "command":
                self.command(body, top, level + 1, extra)
            elif body is not None:
                self.walk(body, top, level + 1)
            if extra and (body is None or body.type != "command"):
                self.not_known("words follow a redirection target")
                for word in extra:
                    self.walk(word, False, level + 1)
        elif kind != "comment" and node.is_named:
            if kind not in _WORDS and kind not in _INERT:
                self.block(_BLOCKERS.get(kind, f"`{kind}` syntax"))
            for child in node.children:
                self.walk(child, False, level + 1)

    def redirect(self, node: Node, level: int) -> None:
        kind = node.type
        if kind == "file_redirect":
            if not _safe_file_redirect(node, self.data):
                self.block("a file redirection")
        else:
            self.block(_BLOCKERS.get(kind, f"`{kind}` syntax"))
        extra = {c.id for c in _destinations(node)[1:]} if kind == "file_redirect" else set()
        for child in node.children:
            # words after the target are the command's arguments, looked at with the command
            if (
                child.type not in _WORDS
                and child.type != "file_descriptor"
                and child.is_named
                and child.id not in extra
            ):
                self.walk(child, False, level + 1)

    def command(self, node: Node, top: bool, level: int, extra: Sequence[Node] = ()) -> None:
        words: list[Word] = []
        nested: list[Node] = []
        dynamic = ""
        items = [(child, node.field_name_for_child(i)) for i, child in enumerate(node.children)]
        items.extend((e, "argument") for e in extra)
        position = 0
        while position < len(items):
            child, fld = items[position]
            position += 1
            kind = child.type
            if kind == "file_redirect":
                items.extend((e, "argument") for e in _destinations(child)[1:])
            if fld in ("name", "argument"):
                target = child.named_children[0] if kind == "command_name" and child.named_child_count == 1 else child
                word = decode_word(target, self.data) if child.is_named else Word(node_text(child, self.data), False)
                words.append(word)
                if not word.static:
                    dynamic = dynamic or _BLOCKERS.get(target.type, "a word only known when the command runs")
                if target.type not in _WORDS:
                    nested.extend(target.children)
            elif kind == "variable_assignment":
                self.block("a variable assignment")
                nested.extend(child.children)
            elif child.is_named:
                self.redirect(child, level)
        name = node.child_by_field_name("name")
        if words and name is not None and node_text(name, self.data) in _RESERVED:
            # tree-sitter-bash reads some compound commands (`! { cmd; }`) as a command named `{`
            self.block("a reserved word the parser read as a command")
            self.not_known("the parser misread a reserved word")
            words = words[1:]
            if words:
                self.add(tuple(words), node_text(node, self.data), derived=True, top=False, open_ended=False, via="")
        elif words:
            self.add(tuple(words), node_text(node, self.data), derived=False, top=top, open_ended=False, via="")
        for sub in nested:
            self.walk(sub, False, level + 1)
        if dynamic:
            self.block(dynamic)  # after the nested walk, whose reasons are more specific

    # -- commands and what they run -------------------------------------------------------

    def add(
        self, words: tuple[Word, ...], source: str, *, derived: bool, top: bool, open_ended: bool, via: str
    ) -> None:
        chain = 0
        pending = [(words, source, derived, top, open_ended, via)]
        while pending:
            words, source, derived, top, open_ended, via = pending.pop(0)
            self.commands.append(SimpleCommand(words, source, derived, top, open_ended, via))
            name = words[0]
            if not name.literal:
                kind = "a glob" if name.static else "only known when the command runs"
                self.not_known(f"the command name `{name.value}` is {kind}")
                if top:
                    self.block("a command name that is not a literal word")
                continue
            if name.value in _RESERVED and len(words) > 1:
                # `time { rm x; }`: tree-sitter-bash reads the group as words of `time`
                self.not_known("the parser misread a reserved word")
                pending.append((words[1:], source, True, False, open_ended, via))
                continue
            base = os.path.basename(name.value)
            if base and base != name.value:
                words = (Word(base), *words[1:])
                self.commands.append(
                    SimpleCommand(words, " ".join(w.value for w in words), True, False, open_ended, via)
                )
            chain += 1
            if chain > _MAX_WRAPPERS:
                self.not_known("too many nested wrapper commands")
                return
            for inner in inner_commands(words):
                label = f"{via} > {inner.via}" if via else inner.via
                if inner.unknown is not None:
                    self.not_known(inner.unknown)
                elif inner.script is not None:
                    self.script(inner.script, label)
                elif inner.words:
                    text = " ".join(w.value for w in inner.words)
                    pending.append((inner.words, text, True, False, open_ended or inner.open_ended, label))

    def script(self, text: str, via: str) -> None:
        if self.depth >= MAX_SCRIPT_DEPTH:
            self.not_known("shell scripts are nested too deeply to analyze")
            return
        sub = _analyze(text, self.depth + 1)
        for cmd in sub.commands:
            label = f"{via} > {cmd.via}" if cmd.via else via
            self.commands.append(replace(cmd, derived=True, top=False, via=label))
        if sub.unknown is not None:
            self.not_known(sub.unknown)
        self.scripts.append(sub.evaluation)


def _destinations(node: Node) -> list[Node]:
    return [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "destination"]


def _safe_file_redirect(node: Node, data: bytes) -> bool:
    """`2>&1`, `>&-`, `>/dev/null` and the like; anything that may touch a file is not."""
    operator = ""
    target: Node | None = None
    for index, child in enumerate(node.children):
        if child.type == "ERROR" or child.is_missing:
            return False
        if not child.is_named:
            operator = child.type
        elif node.field_name_for_child(index) == "destination" and target is None:
            target = child  # later "destinations" are the command's arguments
    if operator in (">&-", "<&-"):
        return target is None
    if target is None or target.type not in _WORDS:
        return False
    value = decode_word(target, data)
    if not value.literal:
        return False
    if operator in (">&", "<&") and target.type in ("number", "word") and _FD.fullmatch(node_text(target, data)):
        return True
    return value.value in _SAFE_TARGETS and operator in (">", ">>", ">|", "&>", "&>>", ">&", "<")


def _suspects(root: Node, data: bytes) -> list[tuple[int, int, bool]]:
    """Where tree-sitter-bash may have misread the source: `(start, end, in_word)` ranges.

    A range no token covers must hold only blanks and line continuations; a
    plain word must not hold an unescaped blank (`wc -l\\n\\grep` is read as
    one word `\\n\\grep`).
    """
    out: list[tuple[int, int, bool]] = []
    pos = 0
    stack: list[tuple[Node, str]] = [(root, _VISIT)]
    while stack:
        node, how = stack.pop()
        if how == _END:
            pos = max(pos, node.end_byte)
            continue
        if how == _COVERED_BEFORE:
            pos = max(pos, node.start_byte)
        if node.type == "heredoc_body":
            # a here-document's text is no token; only what is inside its substitutions is
            stack.append((node, _END))
            stack.extend((c, _COVERED_BEFORE) for c in reversed(node.children) if c.type != "heredoc_content")
            continue
        if node.child_count == 0 or node.type == "comment":
            start = node.start_byte
            if start > pos and (_GAP_OK.fullmatch(data, pos, start) is None or _joins(data, pos, start)):
                out.append((pos, start, False))
            if node.type == "word" and _blank_in_word(data[start : node.end_byte]):
                out.append((start, node.end_byte, True))
            pos = max(pos, node.end_byte)
        else:
            stack.extend((c, _VISIT) for c in reversed(node.children))
    if len(data) > pos and _GAP_OK.fullmatch(data, pos) is None:
        out.append((pos, len(data), False))
    return out


# how a node on the stack is handled: read its tokens, the same after a covered gap, or only its end
_VISIT, _COVERED_BEFORE, _END = "visit", "covered before", "end"


def _joins(data: bytes, start: int, end: int) -> bool:
    """Whether a line continuation in this gap glues two words together (`r\\<newline>m`):
    bash removes it, tree-sitter-bash reads it as a blank."""
    i = data.find(b"\\\n", max(start, 1), end)  # one at the very start joins nothing
    while i >= 0:
        before = data[i - 1 : i]
        after = data[i + 2 : i + 3] or b" "
        if before not in _BLANKS and after not in _BLANKS:
            return True
        i = data.find(b"\\\n", i + 2, end)
    return False


_BLANKS = (b" ", b"\t", b"\n")


_GAP_OK = re.compile(rb"(?:[ \t\r\n\f\v]|\\\r?\n)*")
_GAP_ESCAPE = re.compile(rb"\\([^\n])")


def _blank_in_word(text: bytes) -> bool:
    escaped = False
    for byte in text:
        if escaped:
            escaped = False
        elif byte == 0x5C:  # backslash
            escaped = True
        elif byte in (0x20, 0x09, 0x0A):
            return True
    return False


_ANY_ESCAPE = re.compile(rb"\\(.)", re.DOTALL)


def _unescape(m: re.Match[bytes]) -> bytes:
    char = m.group(1)
    if char == b"\n":
        return b""  # a line continuation: bash removes it
    return b'"\'"' if char == b"'" else b"'" + char + b"'"


def _requote(data: bytes, suspects: list[tuple[int, int, bool]]) -> str | None:
    """`data` with each backslash escape in a suspect range rewritten as a quoted character,
    which means the same to bash; None when a gap held more than escapes and blanks."""
    out = bytearray()
    pos = 0
    for start, end, in_word in sorted(suspects):
        if start < pos:
            continue
        chunk = data[start:end]
        if not in_word and _GAP_OK.fullmatch(_GAP_ESCAPE.sub(b"", chunk)) is None:
            return None  # something other than escapes was skipped
        fixed = _ANY_ESCAPE.sub(_unescape, chunk)
        out += data[pos:start] + fixed
        pos = end
    out += data[pos:]
    return out.decode("utf-8", "surrogateescape")


def _analyze(command: str, depth: int, requoted: bool = False) -> ShellAnalysis:
    root, data = parse_bash(command)
    gaps = _suspects(root, data)
    if gaps:
        # tree-sitter-bash misreads some escapes (`echo \\ #; rm`): read them quoted instead;
        # anything else it skipped makes the tree untrustworthy.
        fixed = None if requoted else _requote(data, gaps)
        if fixed is not None:
            sub = _analyze(fixed, depth, requoted=True)
            return ShellAnalysis(sub.commands, sub.blocker or "an escaped character", sub.unknown, sub.evaluation)
    walker = _Walker(data, depth)
    walker.walk(root, True, 0)
    evaluation = scan_tree(root, data)
    for cmd in walker.commands:
        if cmd.words[0].literal:
            scan_command(cmd.words, evaluation)
    for script in walker.scripts:
        evaluation.merge(script)
    evaluated = evaluation.resolve()
    if evaluated is not None:
        walker.not_known(evaluated)
    if gaps:
        walker.block("syntax the analyzer does not understand")
        walker.not_known("the parser skipped part of the command")
    if root.has_error:
        walker.block("syntax the analyzer does not understand")
        walker.not_known("the command could not be parsed completely")
    if _ODD_SPACE.search(command):
        # bash reads a CR (or form feed, …) as part of a word where tree-sitter splits;
        # look at the reference's reading too, where it ends a command.
        walker.block("a carriage return or other unusual whitespace")
        walker.not_known("it has a carriage return or other whitespace bash does not split on")
        alt = _analyze(_ODD_SPACE.sub("\n", command), depth)
        walker.commands.extend(replace(c, top=False) for c in alt.commands)
    return ShellAnalysis(tuple(walker.commands), walker.blocker, walker.unknown, evaluation)


def analyze_shell(command: str) -> ShellAnalysis:
    """Analyze one Bash command (see the module docstring). Results of short commands are cached."""
    if len(command) > _CACHE_MAX_CHARS:
        return _analyze(command, 0)
    return _analyze_cached(command)


_CACHE_MAX_CHARS = 4096


@lru_cache(maxsize=256)
def _analyze_cached(command: str) -> ShellAnalysis:
    return _analyze(command, 0)
