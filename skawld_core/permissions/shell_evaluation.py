"""Where bash evaluates text as code beyond the command words, and when that cannot be known.

Bash evaluates arithmetic (`$((…))`, `((…))`, `let`, `[[ a -eq b ]]`, the
subscript of an indexed array, `${x:off:len}`, assignments to `declare -i`
variables) by reading each variable name in it and evaluating that variable's
value as arithmetic again. A value holding an array subscript runs the
subscript's command substitution: `x='a[$(rm -f v)]'; echo $((x))` runs `rm`.
Builtins that take a variable name (`test -v`, `printf -v`, `read`,
`declare`, `mapfile`, `getopts`, `wait -p`, `unset`) evaluate a subscript in
it the same way; `${x@P}` expands a value as a prompt, command substitutions
included; and a shell runs `PS4`, `PROMPT_COMMAND`, `BASH_ENV`… as code.

`Evaluation` collects those places from a syntax tree (`scan_tree`) and from
the simple commands found in it, wrappers and scripts included
(`scan_command`), then `resolve()` says why one of them is unknown: a
substitution in an arithmetic context, or a variable in one whose value this
command sets to anything but a plain number (read from input, a substitution,
a file name, a string). A variable the command never sets comes from the
user's environment and is trusted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .shell_syntax import Word, decode_word, node_text

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["HOOK_VARIABLES", "Evaluation", "scan_command", "scan_tree"]

# Variables a shell may run as code.
HOOK_VARIABLES = frozenset({"PS0", "PS1", "PS2", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV"})
# Set by bash itself from input or file names, never plain numbers the command chose.
_RUNTIME_VARIABLES = frozenset({"REPLY", "MAPFILE", "OPTARG", "BASH_REMATCH", "COPROC"})
# A value that stands for "whatever input or a substitution gives" (it holds a substitution).
_FROM_INPUT = "$(input)"
_SUBSTITUTION = re.compile(r"\$\((?!\()|`|[<>]\(")
# Constants (`0x1f`, `16#ff`, `10`), lengths (`${#a[@]}`) and names, in that order.
_TOKENS = re.compile(r"\b0[xX][0-9A-Fa-f]+|\b[0-9]+#[0-9A-Za-z@_]+|\b[0-9]\w*|\$\{#\w*|(?P<name>[A-Za-z_]\w*)")
_PLAIN_NUMBER = re.compile(r"[\s0-9+\-*/%()<>=!&|^~?:,]*")
_ARITH_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_DECLARE = frozenset({"declare", "typeset", "local", "export", "readonly"})
_NUMERIC_BRACE = re.compile(r"\{-?[0-9]+\.\.-?[0-9]+(?:\.\.-?[0-9]+)?\}")
# Options taking an argument, per builtin that assigns to the names among its operands.
_READ_ARG = "adinNptu"
_MAPFILE_ARG = "dnOsucC"


def _names(text: str) -> frozenset[str]:
    """The variable names an arithmetic expression reads."""
    return frozenset(m.group("name") for m in _TOKENS.finditer(text) if m.group("name"))


@dataclass
class _Reference:
    array: str  # the array subscripted, "" for a plain arithmetic context
    names: frozenset[str]
    what: str


@dataclass
class Evaluation:
    """Arithmetic contexts and assignments of one command (and the scripts it runs)."""

    references: list[_Reference] = field(default_factory=list)
    values: dict[str, list[str | None]] = field(default_factory=dict)  # None: a plain number
    integers: set[str] = field(default_factory=set)
    associative: set[str] = field(default_factory=set)
    unknown: str | None = None

    def not_known(self, reason: str) -> None:
        if self.unknown is None:
            self.unknown = reason

    def merge(self, other: Evaluation) -> None:
        """Add what a script run by this command found (it may share variables with it)."""
        self.references.extend(other.references)
        for name, values in other.values.items():
            self.values.setdefault(name, []).extend(values)
        self.integers |= other.integers
        self.associative |= other.associative
        if other.unknown is not None:
            self.not_known(other.unknown)

    def arithmetic(self, text: str, what: str, array: str = "") -> None:
        """`text` is evaluated as arithmetic (as a subscript of `array`)."""
        if _SUBSTITUTION.search(text):
            self.not_known(f"{what} holds a command substitution that bash evaluates as arithmetic")
            return
        names = _names(text)
        if names:
            self.references.append(_Reference(array, names, what))

    def assign(self, name: str, value: str | None, what: str) -> None:
        """`name` is set to `value` (None: a plain number; `_FROM_INPUT`: anything)."""
        if name in HOOK_VARIABLES:
            self.not_known(f"{what} sets `{name}`, which a shell may run as code")
        if value is not None and _PLAIN_NUMBER.fullmatch(value) is not None:
            value = None
        self.values.setdefault(name, []).append(value)

    def variable_operand(self, word: Word, what: str, value: str | None = _FROM_INPUT) -> None:
        """`word` names a variable a builtin sets or reads; a subscript in it is arithmetic."""
        if not word.static:
            self.not_known(f"{what} names a variable only known when the command runs")
            return
        name, bracket, subscript = word.value.partition("[")
        if bracket:
            self.arithmetic(subscript.removesuffix("]"), f"the subscript in {what}", name)
        if value is not None or name in HOOK_VARIABLES:
            self.assign(name, value, what)

    def resolve(self) -> str | None:
        """Why an evaluation in the command cannot be known before it runs, or None."""
        if self.unknown is not None:
            return self.unknown
        tainted = {name for name, values in self.values.items() if any(v is not None for v in values)}
        tainted = (tainted - self.integers) | _RUNTIME_VARIABLES  # an integer variable holds a number
        for ref in self.references:
            if ref.array in self.associative:
                continue  # an associative array's subscript is a string, not arithmetic
            hit = sorted(ref.names & tainted)
            if hit:
                return (
                    f"{ref.what} evaluates `{hit[0]}`, whose value is only known when the command runs "
                    "(an array subscript in it would run as code)"
                )
        for name in sorted(self.integers):
            for value in self.values.get(name, ()):
                if value is None:
                    continue
                if _SUBSTITUTION.search(value) or _names(value) & tainted:
                    return f"`{name}` is an integer variable set to a value bash evaluates as arithmetic"
        return None


# -- the syntax tree --------------------------------------------------------------------------


def scan_tree(root: Node, data: bytes) -> Evaluation:
    """The arithmetic contexts, assignments and prompt expansions written in the tree."""
    out = Evaluation()
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        kind = node.type
        if kind == "arithmetic_expansion":
            out.arithmetic(node_text(node, data), "arithmetic expansion")
        elif kind == "compound_statement" and node.child_count and node.children[0].type == "((":
            out.arithmetic(node_text(node, data), "an arithmetic command")
        elif kind == "c_style_for_statement":
            head = b"".join(data[c.start_byte : c.end_byte] + b" " for c in node.children if c.type != "do_group")
            out.arithmetic(head.decode("utf-8", "surrogateescape"), "an arithmetic `for` loop")
        elif kind == "subscript":
            _subscript(node, data, out)
        elif kind == "expansion":
            _expansion(node, data, out)
        elif kind == "test_command":
            _test_command(node, data, out)
        elif kind == "variable_assignment":
            _assignment(node, data, out)
        elif kind == "for_statement":
            _loop(node, data, out)
        elif kind == "declaration_command":
            _declaration(node, data, out)
        elif kind == "unset_command":
            for child in node.named_children:
                word = Word(node_text(child, data)) if child.type == "variable_name" else decode_word(child, data)
                out.variable_operand(word, "`unset`", value=None)
    return out


def _subscript(node: Node, data: bytes, out: Evaluation) -> None:
    array = node.child_by_field_name("name")
    index = node.child_by_field_name("index")
    if index is None:
        return
    text = node_text(index, data)
    if text not in ("@", "*"):
        out.arithmetic(text, "an array subscript", node_text(array, data) if array is not None else "")


def _expansion(node: Node, data: bytes, out: Evaluation) -> None:
    kinds = [c.type for c in node.children]
    text = node_text(node, data)
    if "@" in kinds and kinds[kinds.index("@") + 1 : kinds.index("@") + 2] == ["P"]:
        out.not_known("`${…@P}` expands a value as a prompt, command substitutions included")
    if len(kinds) > 1 and kinds[1] == "!":
        names = [node_text(c, data) for c in node.named_children if c.type == "variable_name"]
        if names:
            out.references.append(_Reference("", frozenset(names[:1]), "an indirect expansion `${!…}`"))
    if ":" in kinds:
        # `${x:offset:length}`: both are arithmetic
        out.arithmetic(text[text.index(":") + 1 : -1], "a substring expansion")
    for operator in (":=", "="):
        if operator in kinds:
            name = node.named_children[0] if node.named_child_count else None
            if name is not None and name.type == "variable_name":
                out.assign(node_text(name, data), _FROM_INPUT, f"`${{…{operator}…}}`")


def _test_command(node: Node, data: bytes, out: Evaluation) -> None:
    """`[[ a -eq b ]]` evaluates both sides as arithmetic (`[ … ]` does not); both read `-v NAME`."""
    double = node.child_count > 0 and node.children[0].type == "[["
    stack = list(node.named_children)
    while stack:
        expression = stack.pop()
        if expression.type == "binary_expression" and double:
            _test(expression, data, out)
        elif expression.type == "unary_expression":
            _test_variable(expression, data, out)
        if expression.type in ("binary_expression", "unary_expression", "parenthesized_expression"):
            stack.extend(expression.named_children)


def _test(node: Node, data: bytes, out: Evaluation) -> None:
    operator = node.child_by_field_name("operator")
    if operator is None or node_text(operator, data) not in _ARITH_TESTS:
        return
    for side in ("left", "right"):
        operand = node.child_by_field_name(side)
        if operand is not None:
            word = decode_word(operand, data)
            out.arithmetic(word.value, f"the operand of `{node_text(operator, data)}` in `[[ … ]]`")


def _test_variable(node: Node, data: bytes, out: Evaluation) -> None:
    children = node.children
    if len(children) == 2 and node_text(children[0], data) == "-v":
        out.variable_operand(decode_word(children[1], data), "`-v` in a test", value=None)


def _value(node: Node | None, data: bytes) -> str | None:
    """What an assignment's value node gives: None for a plain number, else its text."""
    if node is None:
        return None
    kind = node.type
    if kind == "arithmetic_expansion" or (kind == "expansion" and node_text(node, data).startswith("${#")):
        return None  # a number
    if kind == "array":
        values = [_value(c, data) for c in node.named_children]
        return next((v for v in values if v is not None), None)
    word = decode_word(node, data)
    return word.value if word.static else node_text(node, data)


def _assignment(node: Node, data: bytes, out: Evaluation) -> None:
    target = node.child_by_field_name("name")
    if target is None:
        return
    if target.type == "subscript":
        array = target.child_by_field_name("name")
        target = array if array is not None else target
    name = node_text(target, data)
    value = node.child_by_field_name("value")
    if value is not None and value.type == "array":
        for element in value.named_children:
            text = node_text(element, data)
            if text.startswith("[") and "]=" in text:
                out.arithmetic(text[1 : text.index("]=")], "an array subscript", name)
    out.assign(name, _value(value, data), "an assignment")


def _loop(node: Node, data: bytes, out: Evaluation) -> None:
    variable = node.child_by_field_name("variable")
    if variable is None:
        return
    keyword = node.children[0].type
    values: list[str | None] = []
    for value in node.children_by_field_name("value"):
        text = node_text(value, data)
        if value.type == "brace_expression" and _NUMERIC_BRACE.fullmatch(text):
            values.append(None)
        else:
            values.append(_value(value, data))
    if keyword == "select" or not values:
        values = [_FROM_INPUT]
    for item in values:
        out.assign(node_text(variable, data), item, f"a `{keyword}` loop")


def _declaration(node: Node, data: bytes, out: Evaluation) -> None:
    flags = ""
    words: list[Word] = []
    names: list[tuple[str, Node | None]] = []
    for child in node.children[1:]:
        if child.type == "variable_assignment":
            target = child.child_by_field_name("name")
            if target is not None:
                names.append((node_text(target, data).partition("[")[0], child.child_by_field_name("value")))
        elif child.type == "variable_name":
            names.append((node_text(child, data), None))
        else:
            word = decode_word(child, data)
            if word.static and word.value[:1] in ("-", "+"):
                flags += word.value[1:] if word.value[0] == "-" else ""
            else:
                words.append(word)
    keyword = node_text(node.children[0], data) if node.child_count else "declare"
    _declared(flags, [n for n, _ in names], out)
    if "n" in flags:
        for _, value in names:
            if value is not None:
                out.variable_operand(decode_word(value, data), f"`{keyword} -n`", value=None)
    _declared_words(keyword, flags, words, out)


def _declared(flags: str, names: list[str], out: Evaluation) -> None:
    if "i" in flags:
        out.integers.update(names)
    if "A" in flags:
        out.associative.update(names)


def _declared_words(keyword: str, flags: str, words: list[Word], out: Evaluation) -> None:
    """`declare 'NAME=value'` and the like: the name (and a subscript in it) as a builtin reads it."""
    for word in words:
        if not word.static:
            out.not_known(f"`{keyword}` declares a variable only known when the command runs")
            continue
        name, eq, value = word.value.partition("=")
        out.variable_operand(Word(name), f"`{keyword}`", value=value if eq else None)
        bare = name.partition("[")[0]
        _declared(flags, [bare], out)
        if "n" in flags and eq:
            out.variable_operand(Word(value), f"`{keyword} -n`", value=None)


# -- simple commands (wrappers and scripts included) ------------------------------------------


def scan_command(words: tuple[Word, ...], out: Evaluation) -> None:
    """What the builtin `words` runs evaluates (its operands that name variables, `let`, `mapfile -C`)."""
    name = words[0].value
    args = list(words[1:])
    if name == "let":
        for word in args:
            out.arithmetic(word.value, "`let`")
    elif name in ("test", "["):
        for index, word in enumerate(args[:-1]):
            if word.static and word.value == "-v":
                out.variable_operand(args[index + 1], f"`{name} -v`", value=None)
    elif name == "printf":
        _option_operands(name, args, "v", only="v", out=out)
    elif name == "read":
        _option_operands(name, args, _READ_ARG, only="a", out=out, operands=True, default="REPLY")
    elif name in ("mapfile", "readarray"):
        if any(w.static and w.value.startswith("-") and "C" in w.value for w in args):
            out.not_known(f"`{name} -C` runs its callback as code")
        _option_operands(name, args, _MAPFILE_ARG, only="", out=out, operands=True, default="MAPFILE")
    elif name == "getopts" and len(args) >= 2:
        out.variable_operand(args[1], "`getopts`")
    elif name == "wait":
        _option_operands(name, args, "p", only="p", out=out)
    elif name in _DECLARE:
        flags = "".join(w.value[1:] for w in args if w.static and w.value.startswith("-"))
        rest = [w for w in args if not (w.static and w.value[:1] in ("-", "+"))]
        _declared_words(name, flags, rest, out)
    elif name == "enable" and any(w.value.startswith("-") and "f" in w.value for w in args):
        out.not_known("`enable -f` loads a shared object, code the analyzer cannot see")


def _option_operands(
    name: str,
    args: list[Word],
    takes_arg: str,
    *,
    only: str,
    out: Evaluation,
    operands: bool = False,
    default: str = "",
) -> None:
    """Options (`takes_arg` take an argument; those in `only` name a variable), then operands."""
    rest = list(args)
    named = False
    while rest:
        word = rest.pop(0)
        if not word.static:
            if operands:
                rest.insert(0, word)
            break
        value = word.value
        if value == "--":
            break
        if not value.startswith("-") or value == "-":
            rest.insert(0, word)
            break
        for position in range(1, len(value)):
            option = value[position]
            if option not in takes_arg:
                continue
            attached = value[position + 1 :]
            argument = Word(attached) if attached else (rest.pop(0) if rest else None)
            if option in only and argument is not None:
                named = True
                out.variable_operand(argument, f"`{name} -{option}`")
            break
    if not operands:
        return
    for word in rest:
        named = True
        out.variable_operand(word, f"`{name}`")
    if not named and default:
        out.assign(default, _FROM_INPUT, f"`{name}`")
