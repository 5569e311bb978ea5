"""Exact analyses at the edges the analyzer defends: redirections with trailing words, reserved
words the parser misreads, escapes and line continuations it skips, trailing bytes no token
covers, carriage returns, and the bounds on nesting, wrapper chains and script depth.

Each row pins the whole analysis (commands with their flags and wrappers, blocker, unknown), so
a change to a defensive branch shows here; `bench/mutation.py` measures how many such changes do.
The fuzz at the end runs whitespace and trailing-byte variants through real bash.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from skawld_core.permissions.shell_analysis import (
    MAX_SCRIPT_DEPTH,
    _analyze_cached,
    analyze_shell,
)

from .bash_shims import BASH, make_shims, run_with_shims
from .test_bash_differential import _check

Row = tuple[tuple[tuple[str, ...], bool, bool, bool, str], ...]

# (command, ((words, top, derived, open_ended, via), …), blocker, unknown)
EXACT: list[tuple[str, Row, str | None, str | None]] = [
    ("git >/dev/null push", ((("git", "push"), True, False, False, ""),), None, None),
    (">/dev/null rm x", ((("rm", "x"), True, False, False, ""),), None, None),
    ("ls 2>/dev/null rm", ((("ls", "rm"), True, False, False, ""),), None, None),
    (
        "{ ls; } >/dev/null rm x",
        ((("ls",), False, False, False, ""),),
        "a command group",
        "words follow a redirection target",
    ),
    ("ls >out", ((("ls",), True, False, False, ""),), "a file redirection", None),
    ("ls >&2", ((("ls",), True, False, False, ""),), None, None),
    ("ls >&-", ((("ls",), True, False, False, ""),), None, None),
    ("ls 2>&1 x", ((("ls", "x"), True, False, False, ""),), None, None),
    ("ls <&3", ((("ls",), True, False, False, ""),), None, None),
    ("ls >&x", ((("ls",), True, False, False, ""),), "a file redirection", None),
    ("ls &>/dev/null", ((("ls",), True, False, False, ""),), None, None),
    ("ls >$f", ((("ls",), True, False, False, ""),), "a file redirection", None),
    (
        "! { rm x; }",
        ((("rm", "x"), False, True, False, ""),),
        "a reserved word the parser read as a command",
        "the parser misread a reserved word",
    ),
    (
        "time { rm x; }",
        (
            (("time", "{", "rm", "x"), True, False, False, ""),
            (("{", "rm", "x"), False, True, False, "time"),
            (("rm", "x"), False, True, False, "time"),
        ),
        "a reserved word the parser read as a command",
        "the parser misread a reserved word",
    ),
    ("/bin/rm x", ((("/bin/rm", "x"), True, False, False, ""), (("rm", "x"), False, True, False, "")), None, None),
    (
        "./bin/../rm y",
        ((("./bin/../rm", "y"), True, False, False, ""), (("rm", "y"), False, True, False, "")),
        None,
        None,
    ),
    ("x=1 ls", ((("ls",), True, False, False, ""),), "a variable assignment", None),
    ("ls\nrm x", ((("ls",), True, False, False, ""), (("rm", "x"), True, False, False, "")), None, None),
    (
        "cat <<E\n$(rm x)\nE",
        ((("rm", "x"), False, False, False, ""), (("cat",), True, False, False, "")),
        "a here-document",
        None,
    ),
    (
        "cat <<E\na \\\nb\nE\nrm y",
        ((("cat",), True, False, False, ""), (("rm", "y"), True, False, False, "")),
        "a here-document",
        None,
    ),
    ("ls 2>/dev/null", ((("ls",), True, False, False, ""),), None, None),
    ("ls >>/dev/null", ((("ls",), True, False, False, ""),), None, None),
    ("ls </dev/null", ((("ls",), True, False, False, ""),), None, None),
    ("ls >|/dev/null", ((("ls",), True, False, False, ""),), None, None),
    ("ls &>>/dev/null", ((("ls",), True, False, False, ""),), None, None),
    ('ls >"/dev/null"', ((("ls",), True, False, False, ""),), "a file redirection", None),
    (
        "ls <>/dev/null",
        ((("ls",), True, False, False, ""),),
        "syntax the analyzer does not understand",
        "the command could not be parsed completely",
    ),
    ('ls >&"2"', ((("ls",), True, False, False, ""),), "a file redirection", None),
    ("ls 3>&-x", ((("ls",), True, False, False, ""),), "a file redirection", None),
    ("r\\\nm x", ((("rm", "x"), True, False, False, ""),), "an escaped character", None),
    ("ls \\\n-l", ((("ls", "-l"), True, False, False, ""),), None, None),
    ("\\\nrm x", ((("rm", "x"), True, False, False, ""),), None, None),
    ("echo \\\\ #; rm x", ((("echo", "\\"), True, False, False, ""),), None, None),
    ("echo x\\\t\\rm", ((("echo", "x\t", "rm"), True, False, False, ""),), "an escaped character", None),
    (
        "\\\t\t;$'\\t'",
        ((("\t",), True, False, False, ""), (("\t",), True, False, False, "")),
        "an escaped character",
        None,
    ),
    ("ls\\\t", ((("ls\t",), True, False, False, ""),), "an escaped character", None),
    (
        "ls;\n\\",
        ((("ls",), False, False, False, ""),),
        "syntax the analyzer does not understand",
        "the parser skipped part of the command",
    ),
    (
        "rm x \\\n\\",
        ((("rm", "x"), False, False, False, ""),),
        "syntax the analyzer does not understand",
        "the parser skipped part of the command",
    ),
    ("if", (), "syntax the analyzer does not understand", "the command could not be parsed completely"),
    ("a[1]=2 ls", ((("ls",), True, False, False, ""),), "a variable assignment", None),
    (
        "ls ${x:-$(rm y)}",
        ((("ls", "${x:-$(rm y)}"), True, False, False, ""), (("rm", "y"), False, False, False, "")),
        "command substitution",
        None,
    ),
    (
        "echo `rm x`",
        ((("echo", "`rm x`"), True, False, False, ""), (("rm", "x"), False, False, False, "")),
        "command substitution",
        None,
    ),
    ("f() { rm x; }", ((("rm", "x"), False, False, False, ""),), "a function definition", None),
    ("case x in y) rm z;; esac", ((("rm", "z"), False, False, False, ""),), "a case statement", None),
    (
        "ls | wc -l && rm x &",
        (
            (("ls",), True, False, False, ""),
            (("wc", "-l"), True, False, False, ""),
            (("rm", "x"), True, False, False, ""),
        ),
        None,
        None,
    ),
    (
        'eval "rm x"',
        ((("eval", "rm x"), True, False, False, ""), (("rm", "x"), False, True, False, "eval")),
        None,
        None,
    ),
    (
        "find . -exec rm {} +",
        (
            (("find", ".", "-exec", "rm", "{}", "+"), True, False, False, ""),
            (("rm", "{}"), False, True, True, "find -exec"),
        ),
        None,
        None,
    ),
    ("xargs rm", ((("xargs", "rm"), True, False, False, ""), (("rm",), False, True, True, "xargs")), None, None),
    (
        "ls\rrm x",
        (
            (("ls", "rm", "x"), True, False, False, ""),
            (("ls",), False, False, False, ""),
            (("rm", "x"), False, False, False, ""),
        ),
        "a carriage return or other unusual whitespace",
        "it has a carriage return or other whitespace bash does not split on",
    ),
    (
        "ls\x0crm x",
        (
            (("ls", "rm", "x"), True, False, False, ""),
            (("ls",), False, False, False, ""),
            (("rm", "x"), False, False, False, ""),
        ),
        "a carriage return or other unusual whitespace",
        "it has a carriage return or other whitespace bash does not split on",
    ),
    (
        "sudo -u root /bin/rm x",
        (
            (("sudo", "-u", "root", "/bin/rm", "x"), True, False, False, ""),
            (("/bin/rm", "x"), False, True, False, "sudo"),
            (("rm", "x"), False, True, False, "sudo"),
        ),
        None,
        None,
    ),
    (
        'bash -c "nice rm x"',
        (
            (("bash", "-c", "nice rm x"), True, False, False, ""),
            (("nice", "rm", "x"), False, True, False, "bash"),
            (("rm", "x"), False, True, False, "bash > nice"),
        ),
        None,
        None,
    ),
    ('echo $"hi"', ((("echo", "$", "hi"), True, False, False, ""),), "a word only known when the command runs", None),
    (
        "x=$(rm y) ls",
        ((("ls",), True, False, False, ""), (("rm", "y"), False, False, False, "")),
        "a variable assignment",
        None,
    ),
    ("ls >/dev/null 2>&1 rm", ((("ls", "rm"), True, False, False, ""),), None, None),
    (
        "coproc rm x",
        ((("coproc", "rm", "x"), True, False, False, ""), (("rm", "x"), False, True, False, "coproc")),
        None,
        None,
    ),
    ("ls 2>&1-", ((("ls",), True, False, False, ""),), None, None),
    ("exec 3>&-", ((("exec",), True, False, False, ""),), None, None),
    ("$(}", (), "syntax the analyzer does not understand", "the parser skipped part of the command"),
    ("ls\\\t\n", ((("ls\t",), True, False, False, ""),), "an escaped character", None),
    (
        "ls<<E\n}",
        ((("ls",), True, False, False, ""),),
        "syntax the analyzer does not understand",
        "the parser skipped part of the command",
    ),
    (
        "{ ls; } >/dev/null $(rm x)",
        ((("ls",), False, False, False, ""), (("rm", "x"), False, False, False, "")),
        "a command group",
        "words follow a redirection target",
    ),
    ("ls\\\n -l", ((("ls", "-l"), True, False, False, ""),), None, None),
    ("ls a\\ b", ((("ls", "a b"), True, False, False, ""),), None, None),
    (
        "/bin/r? x",
        ((("/bin/r?", "x"), True, False, False, ""),),
        "a command name that is not a literal word",
        "the command name `/bin/r?` is a glob",
    ),
    (
        "time { rm; }",
        (
            (("time", "{", "rm"), True, False, False, ""),
            (("{", "rm"), False, True, False, "time"),
            (("rm",), False, True, False, "time"),
        ),
        "a reserved word the parser read as a command",
        "the parser misread a reserved word",
    ),
    (
        "echo $(ls >/dev/null rm x)",
        ((("echo", "$(ls >/dev/null rm x)"), True, False, False, ""), (("ls", "rm", "x"), False, False, False, "")),
        "command substitution",
        None,
    ),
    (
        "ls >$(rm x)",
        ((("rm", "x"), False, False, False, ""), (("ls",), True, False, False, "")),
        "a file redirection",
        None,
    ),
    (
        "ls >",
        ((("ls",), True, False, False, ""),),
        "syntax the analyzer does not understand",
        "the command could not be parsed completely",
    ),
    (
        "ls 2>&",
        ((("ls",), True, False, False, ""),),
        "a file redirection",
        "the command could not be parsed completely",
    ),
    ("{}\\\t\\", (), "a command group", "the parser skipped part of the command"),
    ("\\\nr\\\nm x", ((("rm", "x"), True, False, False, ""),), "an escaped character", None),
    ("ls # x; rm y", ((("ls",), True, False, False, ""),), None, None),
]


def _shape(command: str) -> tuple[Row, str | None, str | None]:
    a = analyze_shell(command)
    return tuple((c.values, c.top, c.derived, c.open_ended, c.via) for c in a.commands), a.blocker, a.unknown


@pytest.mark.parametrize(("command", "commands", "blocker", "unknown"), EXACT)
def test_exact_analysis(command: str, commands: Row, blocker: str | None, unknown: str | None) -> None:
    assert _shape(command) == (commands, blocker, unknown)
    assert [c.name for c in analyze_shell(command).commands] == [c[0][0] for c in commands]


def _wrapped(count: int) -> str:
    return "nice " * count + "rm x"


def test_wrapper_chains_are_followed_up_to_the_bound() -> None:
    # 31 wrappers and the command: 32 steps, followed to the end
    inside = analyze_shell(_wrapped(31))
    assert inside.unknown is None and inside.commands[-1].values == ("rm", "x")
    outside = analyze_shell(_wrapped(32))
    assert outside.unknown == "too many nested wrapper commands"
    assert len(outside.commands) == 33  # the walk stops at the bound


def _scripts(depth: int) -> str:
    script = "rm x"
    for _ in range(depth):
        script = "bash -c " + "'" + script.replace("'", "'\\''") + "'"
    return script


def test_scripts_are_parsed_again_up_to_the_bound() -> None:
    inside = analyze_shell(_scripts(MAX_SCRIPT_DEPTH))
    assert inside.unknown is None and ("rm", "x") in [c.values for c in inside.commands]
    outside = analyze_shell(_scripts(MAX_SCRIPT_DEPTH + 1))
    assert outside.unknown == "shell scripts are nested too deeply to analyze"
    assert ("rm", "x") not in [c.values for c in outside.commands]


def test_nesting_is_bounded_without_exhausting_the_stack() -> None:
    deep = analyze_shell("echo $(" * 3000 + "rm x" + ")" * 3000)
    assert (deep.blocker, deep.unknown) == ("nesting too deep", "the command is nested too deeply to analyze")
    assert ("rm", "x") not in [c.values for c in deep.commands]  # past the bound, nothing is read
    shallow = analyze_shell("echo $(" * 20 + "rm x" + ")" * 20)
    assert (shallow.blocker, shallow.unknown) == ("command substitution", None)
    assert ("rm", "x") in [c.values for c in shallow.commands]


# How deep each construct nests before the bound (200 tree levels) stops the walk: one level
# per `$(`, subshell or group, two where the tree has an extra node (a string, a redirection, an
# assignment, a function body).
NESTING = [
    ("echo $(", ")", 199),
    ("( ", " )", 199),
    ("{ ", "; }", 199),
    ("if true; then ", "; fi", 199),
    ("cat <(", ")", 199),
    ('echo "$(', ')"', 99),
    ("ls >$(", ")", 99),
    ("a=$(", ")", 99),
    ("a=$(", ") ls", 99),
    ("ls | (", ")", 99),
    ("f() { ", "; }", 99),
    ("{ ", "; } >/dev/null", 99),
    ("echo >/dev/null $(", ")", 99),
]


@pytest.mark.parametrize(("opener", "closer", "deepest"), NESTING)
def test_nesting_bound_is_exact(opener: str, closer: str, deepest: int) -> None:
    inside = analyze_shell(opener * deepest + "rm x" + closer * deepest)
    assert inside.unknown is None
    outside = analyze_shell(opener * (deepest + 1) + "rm x" + closer * (deepest + 1))
    assert outside.unknown == "the command is nested too deeply to analyze"


def test_long_commands_are_analyzed_but_not_cached() -> None:
    _analyze_cached.cache_clear()
    long = "ls " + "a" * 4093  # 4096 characters: cached
    assert len(long) == 4096 and analyze_shell(long).commands[0].values[0] == "ls"
    assert _analyze_cached.cache_info().currsize == 1
    longer = long + "b"
    assert analyze_shell(longer).commands[0].values == ("ls", "a" * 4093 + "b")
    assert _analyze_cached.cache_info().currsize == 1
    # a long command is analyzed from the top: its scripts get the whole depth
    padded = "ls " + "a" * 5000 + "; " + _scripts(MAX_SCRIPT_DEPTH)
    assert analyze_shell(padded).unknown is None


# -- real bash: whitespace and trailing-byte variants ---------------------------------------

_BLANKS = (" ", "\t", "\\\n", "\\\t", "\\ ", "\r", "\n", "\\\r\n")
_TAILS = ("", "\\", " \\", "#", " #x", ";", "\\\n", "\t\\", "'", '"', "$(", "`", "\\\t")


def _variants() -> list[str]:
    out = []
    for blank, tail in itertools.product(_BLANKS, _TAILS):
        out.append(f"ls{blank}rm{blank}x{tail}")
        out.append(f"r{blank}m x{tail}")
        out.append(f"echo a;{blank}rm x{tail}")
        out.append(f"git{blank}status{tail}")
    return out


@pytest.mark.skipif(not os.access(BASH, os.X_OK), reason="needs /bin/bash")
def test_real_bash_whitespace_and_trailing_bytes(tmp_path: Path) -> None:
    shims = make_shims(tmp_path)
    problems = []
    for index, command in enumerate(_variants()):
        ran = run_with_shims(command, tmp_path / f"w{index}", shims)
        problem = _check(command, ran)
        if problem:
            problems.append(f"{command!r}: {problem}")
    assert problems == []
