"""Bash rules: segment splitting and a table of adversarial commands (reference rules.test + hardening)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from skawld_core.permissions import BashRule, PendingToolCall, PermissionEngine, RegexPattern, split_bash_segments
from skawld_core.permissions.bash import nested_commands, risky_construct, shell_tokens

ROOT = Path("/repo")


def bash_call(command: str) -> PendingToolCall:
    return PendingToolCall(
        tool_name="Bash",
        tool_use_id="toolu_1",
        input={"command": command},
        summary=f"Bash {command}",
        scope="exec",
        cwd=ROOT,
    )


def decide(command: str, rules: list[Any], mode: Any = "default") -> str:
    engine = PermissionEngine(mode=mode, rules=rules, project_root=ROOT)
    return engine.evaluate(bash_call(command)).behavior


ALLOW_GIT_STATUS = [BashRule(pattern="git status", decision="allow")]
ALLOW_GIT = [
    BashRule(pattern="git status", decision="allow"),
    BashRule(pattern="git diff", decision="allow"),
    BashRule(pattern="echo", decision="allow"),
    BashRule(pattern="rm", decision="deny"),
]


# ---------------------------------------------------------------------------------------------
# split_bash_segments and the other views of the syntax-tree analysis


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("a && b", ["a", "b"]),
        ("a\nb && c & d", ["a", "b", "c", "d"]),
        ("a || b", ["a", "b"]),
        ("a; b", ["a", "b"]),
        ("a | b", ["a", "b"]),
        ("a |& b", ["a", "b"]),
        # bash reads a CR as part of a word; the reference's reading (a separator) is looked at too
        ("a\rb", ["a\rb", "a", "b"]),
        ("& rm", ["rm"]),
        ("&rm", ["rm"]),
        ("git status 2>&1", ["git status"]),
        ("make >&2", ["make"]),
        ("make &>log", ["make"]),
        ("a 2>&1 & b", ["a", "b"]),
        ("echo 'a && b; c | d'", ["echo 'a && b; c | d'"]),
        ('echo "a && b; c | d"', ['echo "a && b; c | d"']),
        ("echo 'line1\nline2'", ["echo 'line1\nline2'"]),
        ('echo "x & y"', ['echo "x & y"']),
        ("echo a\\;b", ["echo a\\;b"]),
        ("echo a\\&\\&b", ["echo a\\&\\&b"]),
        # nested commands are listed after the command that holds them
        ("echo $(a; b) ; c", ["echo $(a; b)", "a", "b", "c"]),
        ('echo "$(a && b)" && c', ['echo "$(a && b)"', "a", "b", "c"]),
        ("echo `a; b`; c", ["echo `a; b`", "a", "b", "c"]),
        ("diff <(a; b) c", ["diff <(a; b) c", "a", "b"]),
        ("f() { rm -rf /; }; (ls)", ["rm -rf /", "ls"]),
        # a `'` inside a comment does not open a quote: the next line is a new command
        ("git status #'\nrm -rf /\n'", ["git status", "rm -rf /"]),
        # ANSI-C quoting: \' does not close the quote
        ("echo $'\\'' ; rm", ["echo $'\\''", "rm"]),
        # an escaped space before # is part of a word, not a comment (tree-sitter drops the
        # escape, so the analyzer reads it quoted)
        ("echo \\ #; rm -rf /", ["echo ' '#", "rm -rf /"]),
        ("echo \\>&rm", ["echo \\>", "rm"]),
        ("", []),
        ("  ;; ", []),
    ],
)
def test_split_bash_segments(command: str, expected: list[str]) -> None:
    assert split_bash_segments(command) == expected


@pytest.mark.parametrize(
    ("segment", "tokens"),
    [
        ('git "status" --short', ["git", "status", "--short"]),
        ("git 'status'", ["git", "status"]),
        ("g'i't st\\atus", ["git", "status"]),
        ('echo "a \\" b"', ["echo", 'a " b']),
        ("git status # comment", ["git", "status"]),
        ("echo $'a b'", ["echo", "a b"]),
        ("$'\\x72\\u006d' $'\\162' $'a\\x00b'", ["rm", "r", "a"]),
    ],
)
def test_shell_tokens(segment: str, tokens: list[str]) -> None:
    assert shell_tokens(segment) == tokens


@pytest.mark.parametrize(
    ("segment", "risk"),
    [
        ("git status", None),
        ("git status 2>&1", None),
        ("git status >/dev/null", None),
        ("git status > /dev/null 2>&1", None),
        ("git status 2>/dev/null", None),
        ("git status >&2", None),
        ("git status 2>&-", None),
        ("echo 'a > b'", None),
        ('echo "a > b"', None),
        ("echo a\\>b", None),
        ("echo '$(id)' '`id`'", None),
        ("ls *.py", None),
        # stricter than the hand lexer: only /dev/null and descriptors, not input files
        ("git status < input", "a file redirection"),
        ("git status $(rm -rf ~)", "command substitution"),
        ('git status "$(rm -rf ~)"', "command substitution"),
        ("git status `rm -rf ~`", "command substitution"),
        ('git status "`id`"', "command substitution"),
        ("git status $((1+1))", "arithmetic expansion"),
        ("diff <(cat a) b", "process substitution"),
        ("tee >(sh)", "process substitution"),
        ("git status > ~/.bashrc", "a file redirection"),
        ("git status >> ~/.bashrc", "a file redirection"),
        ("git status >| f", "a file redirection"),
        ("git status &> f", "a file redirection"),
        ("git status &>> f", "a file redirection"),
        ("git status 2> err.log", "a file redirection"),
        ("git status >&f", "a file redirection"),
        ("git status <> f", "a file redirection"),
        ("git status > $HOME/.bashrc", "a file redirection"),
        ("git status >", "syntax the analyzer does not understand"),
        ("f() { ls; }", "a function definition"),
        ("(ls)", "a subshell"),
        ("{ ls; }", "a command group"),
        ("ls $HOME", "a variable expansion"),
        ("FOO=1 ls", "a variable assignment"),
        ("cat <<EOF\nx\nEOF", "a here-document"),
        ("cat <<< x", "a here-string"),
        ("if a; then b; fi", "an if statement"),
        ("$x", "a command name that is not a literal word"),
        ("echo {a,b}", "a word only known when the command runs"),
    ],
)
def test_risky_construct(segment: str, risk: str | None) -> None:
    assert risky_construct(segment) == risk


def test_nested_commands_recursive() -> None:
    assert nested_commands('echo $(rm -rf ~; ls `id`) <(cat x) "$(a)"') == ["rm -rf ~", "ls `id`", "id", "cat x", "a"]


# ---------------------------------------------------------------------------------------------
# adversarial command table: (command, rules, expected decision in default mode)

ADVERSARIAL: list[tuple[str, list[Any], str]] = [
    # plain matches
    ("git status", ALLOW_GIT_STATUS, "allow"),
    ("git status --short", ALLOW_GIT_STATUS, "allow"),
    ('git "status" --short', ALLOW_GIT_STATUS, "allow"),
    ("git 'status'", ALLOW_GIT_STATUS, "allow"),
    ("  git status  ", ALLOW_GIT_STATUS, "allow"),
    ("git statusx", ALLOW_GIT_STATUS, "ask"),
    ("git", ALLOW_GIT_STATUS, "ask"),
    ("gitstatus", ALLOW_GIT_STATUS, "ask"),
    # chaining with a deny rule for rm: the whole command is denied
    ("git status && rm -rf dist", ALLOW_GIT, "deny"),
    ("git status || rm -rf dist", ALLOW_GIT, "deny"),
    ("git status; rm -rf dist", ALLOW_GIT, "deny"),
    ("git status | rm -rf dist", ALLOW_GIT, "deny"),
    ("git status\nrm -rf dist", ALLOW_GIT, "deny"),
    ("git status\r\nrm -rf dist", ALLOW_GIT, "deny"),
    ("git status\rrm -rf dist", ALLOW_GIT, "deny"),
    ("git status & rm -rf dist", ALLOW_GIT, "deny"),
    ("git status &rm -rf dist", ALLOW_GIT, "deny"),
    # chaining without a deny rule: not every segment is allowed → mode (ask)
    ("git status && rm -rf /", ALLOW_GIT_STATUS, "ask"),
    ("git status; rm", ALLOW_GIT_STATUS, "ask"),
    ("git status | sh", ALLOW_GIT_STATUS, "ask"),
    ("git status\nrm -rf /", ALLOW_GIT_STATUS, "ask"),
    ("git status\r\nrm -rf /", ALLOW_GIT_STATUS, "ask"),
    ("git status & rm", ALLOW_GIT_STATUS, "ask"),
    ("git status &rm", ALLOW_GIT_STATUS, "ask"),
    ("git status |& sh", ALLOW_GIT_STATUS, "ask"),
    # every segment allowed
    ("git status\ngit diff", ALLOW_GIT, "allow"),
    ("git status && git diff | echo", ALLOW_GIT, "allow"),
    # substitutions never allowed by a prefix rule; their inner commands meet deny rules
    ("git status $(rm -rf ~)", ALLOW_GIT_STATUS, "ask"),
    ('git status "$(rm -rf ~)"', ALLOW_GIT_STATUS, "ask"),
    ("git status `rm -rf ~`", ALLOW_GIT_STATUS, "ask"),
    ("git status $(rm -rf ~)", ALLOW_GIT, "deny"),
    ("git status `rm -rf ~`", ALLOW_GIT, "deny"),
    ("echo $(echo $(rm -rf ~))", ALLOW_GIT, "deny"),
    ("git diff <(rm -rf ~)", ALLOW_GIT, "deny"),
    ("git diff <(cat a) b", ALLOW_GIT, "ask"),
    ("git status >(sh)", ALLOW_GIT_STATUS, "ask"),
    ("echo '$(rm -rf ~)'", ALLOW_GIT, "allow"),
    # redirections that write files
    ("git status > ~/.bashrc", ALLOW_GIT_STATUS, "ask"),
    ("git status >> ~/.bashrc", ALLOW_GIT_STATUS, "ask"),
    ("echo evil >~/.ssh/authorized_keys", ALLOW_GIT, "ask"),
    ("git status &> out", ALLOW_GIT_STATUS, "ask"),
    ("git status >&out", ALLOW_GIT_STATUS, "ask"),
    ("git status 2>&1", ALLOW_GIT_STATUS, "allow"),
    ("git status 2>&1 | git diff", ALLOW_GIT, "allow"),
    ("git status >/dev/null 2>&1", ALLOW_GIT_STATUS, "allow"),
    ("git status 2>/dev/null", ALLOW_GIT_STATUS, "allow"),
    ("git status >&2", ALLOW_GIT_STATUS, "allow"),
    ("echo 'a > b'", ALLOW_GIT, "allow"),
    # quoted and escaped operators do not split
    ("echo 'a && rm -rf /'", ALLOW_GIT, "allow"),
    ('echo "a; rm -rf /"', ALLOW_GIT, "allow"),
    ("echo a\\;rm", ALLOW_GIT, "allow"),
    ("echo 'a\nrm -rf /'", ALLOW_GIT, "allow"),
    ("echo 'x & y'", ALLOW_GIT, "allow"),
    # quote games that would hide a real separator
    ("git status #'\nrm -rf /\n'", ALLOW_GIT_STATUS, "ask"),
    ("echo $'\\'' ; rm -rf /", ALLOW_GIT, "deny"),
    ("echo \\ #; rm -rf /", ALLOW_GIT, "deny"),
    ("echo \\>&rm -rf /", ALLOW_GIT, "deny"),
    # deny rules see through wrappers
    ("FOO=1 rm -rf /", ALLOW_GIT, "deny"),
    ("(rm -rf /)", ALLOW_GIT, "deny"),
    ("/bin/rm -rf /", ALLOW_GIT, "deny"),
    ("command rm -rf /", ALLOW_GIT, "deny"),
    ("env X=1 rm -rf /", ALLOW_GIT, "deny"),
    ("git status && { rm -rf /; }", ALLOW_GIT, "deny"),
    ("f() { rm -rf /; }; f", ALLOW_GIT, "deny"),
    ("if true; then rm -rf /; fi", ALLOW_GIT, "deny"),
    ("while true; do rm x; done", ALLOW_GIT, "deny"),
    ("git status | xargs -0 rm", ALLOW_GIT, "deny"),
    ("timeout 5 rm x", ALLOW_GIT, "deny"),
    ("sudo -n rm x", ALLOW_GIT, "deny"),
    ("bash -c 'rm -rf /'", ALLOW_GIT, "deny"),
    ('sh -lc "echo; rm x"', ALLOW_GIT, "deny"),
    ("eval rm -rf /", ALLOW_GIT, "deny"),
    ("eval 'bash -c \"rm x\"'", ALLOW_GIT, "deny"),
    ("echo rm", ALLOW_GIT, "allow"),
    ("2>/dev/null rm -rf /", ALLOW_GIT, "deny"),
    (">log rm -rf /", ALLOW_GIT, "deny"),
    ("<<EOF rm -rf /", ALLOW_GIT, "deny"),
    # the command word `<()rm` is only known when it runs: ask (refused in yolo)
    ("<()rm -rf /", ALLOW_GIT, "ask"),
    # bash does not split on CR, so a command with a bare CR is never allowed segment-wise
    ("echo echo2>&1\r", ALLOW_GIT, "ask"),
    ("git status\r\ngit diff", ALLOW_GIT, "ask"),
    # an escaped fd number is not a descriptor duplication
    ("echo x >&1\\", ALLOW_GIT, "ask"),
    # a deny in any segment beats allows
    ("rm x && git status", ALLOW_GIT, "deny"),
    # empty command: no bash decision
    ("   ", ALLOW_GIT, "ask"),
]


@pytest.mark.parametrize(("command", "rules", "expected"), ADVERSARIAL)
def test_adversarial_commands(command: str, rules: list[Any], expected: str) -> None:
    assert decide(command, rules) == expected


def test_deny_reason_names_bash_rule() -> None:
    engine = PermissionEngine(rules=ALLOW_GIT, project_root=ROOT)
    decision = engine.evaluate(bash_call("git status && rm -rf dist"))
    assert decision.behavior == "deny"
    assert decision.reason == "bash rule matched Bash."


def test_explicit_deny_beats_yolo() -> None:
    rules = [BashRule(pattern="git push", decision="deny")]
    assert decide("git push origin main", rules, mode="yolo") == "deny"


def test_no_bash_decision_falls_through_to_yolo() -> None:
    assert decide("git status > out", ALLOW_GIT_STATUS, mode="yolo") == "allow"


def test_regex_tests_raw_segment() -> None:
    rules = [BashRule(pattern=RegexPattern(regex=r"^npm (test|run lint)$"), decision="allow")]
    assert decide("npm test", rules) == "allow"
    assert decide("npm run lint && npm test", rules) == "allow"
    assert decide("npm publish", rules) == "ask"
    assert decide("NPM TEST", rules) == "ask"  # no flags


def test_regex_does_not_bypass_substitution_rule() -> None:
    rules = [BashRule(pattern=RegexPattern(regex=r"^echo"), decision="allow")]
    assert decide("echo hi", rules) == "allow"
    assert decide("echo $(id)", rules) == "ask"
    assert decide("echo hi > /etc/passwd", rules) == "ask"


def test_invalid_regex_never_matches_nor_raises() -> None:
    rules = [
        BashRule(pattern=RegexPattern(regex="(unclosed"), decision="deny"),
        BashRule(pattern="git status", decision="allow"),
    ]
    assert decide("git status", rules) == "allow"
    assert decide("(unclosed", rules) == "ask"


def test_json_regex_rule() -> None:
    rules = [{"kind": "bash", "pattern": {"regex": "^ls( |$)"}, "decision": "allow"}]
    assert decide("ls -la", rules) == "allow"


def test_first_match_wins_in_both_orders() -> None:
    allow_first = [BashRule(pattern="git", decision="allow"), BashRule(pattern="git push", decision="deny")]
    deny_first = [BashRule(pattern="git push", decision="deny"), BashRule(pattern="git", decision="allow")]
    assert decide("git push origin main", allow_first) == "allow"
    assert decide("git push origin main", deny_first) == "deny"


def test_bash_ask_rule_asks_even_in_yolo() -> None:
    rules = [BashRule(pattern="git push", decision="ask"), BashRule(pattern="git", decision="allow")]
    assert decide("git push", rules, mode="yolo") == "ask"
    assert decide("git status", rules, mode="yolo") == "allow"


def test_bash_rules_only_apply_to_bash_tool() -> None:
    engine = PermissionEngine(rules=[BashRule(pattern="rm", decision="deny")], project_root=ROOT)
    call = PendingToolCall(
        tool_name="Other", tool_use_id="t", input={"command": "rm"}, summary="", scope="exec", cwd=ROOT
    )
    assert engine.evaluate(call).behavior == "ask"


def test_bash_set_evaluated_at_first_bash_rule_position() -> None:
    from skawld_core.permissions import ToolRule

    # bash set (position 0) has no decision for `make` → falls through to the later tool rule
    rules: list[Any] = [
        BashRule(pattern="git status", decision="allow"),
        ToolRule(tool="Bash", decision="deny"),
        BashRule(pattern="make", decision="allow"),
    ]
    # `make` is allowed by the bash set evaluated at index 0 using bash rules from there on
    assert decide("make", rules) == "allow"
    assert decide("ls", rules) == "deny"
    # a tool rule before the first bash rule wins first
    rules2: list[Any] = [ToolRule(tool="Bash", decision="deny"), BashRule(pattern="git status", decision="allow")]
    assert decide("git status", rules2) == "deny"


# ---------------------------------------------------------------------------------------------
# property check against real bash: whatever the engine allows (or does not deny) must not
# write a file (allow rule "echo") or run `touch` (deny rule "touch", yolo)

_FRAGMENTS = [
    "echo",
    " ",
    "a",
    "'",
    '"',
    "\\",
    "#",
    ";",
    "&",
    "|",
    "&&",
    "||",
    "\n",
    "\r",
    "$(",
    ")",
    "`",
    ">",
    ">>",
    "2>&1",
    "<(",
    ">(",
    "$'",
    "touch T",
    "{ ",
    " }",
    "(",
    "&>",
    ">&",
    "x",
    "/dev/null",
    "|&",
    " M",
    "<<",
    "EOF",
    "=",
    "<",
    "\\\n",
    "1",
    "-",
    "FOO=1 ",
    "command ",
    "/usr/bin/",
    "! ",
    "t'ouch' T",
    "env ",
    "eval ",
    "bash -c ",
    "then ",
    "xargs ",
]


def _run_bash(command: str, cwd: Path) -> None:
    try:
        subprocess.run(
            ["bash", "-c", command],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=5,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
    except subprocess.TimeoutExpired:
        pass


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_real_bash_never_writes_for_allowed_commands(tmp_path: Path) -> None:
    rnd = random.Random(20261129)
    engine = PermissionEngine(rules=[BashRule(pattern="echo", decision="allow")], project_root=tmp_path)
    checked = 0
    for i in range(1500):
        command = "echo " + "".join(rnd.choice(_FRAGMENTS) for _ in range(rnd.randint(2, 8)))
        if engine.evaluate(bash_call(command)).behavior != "allow":
            continue
        work = tmp_path / f"w{i}"
        work.mkdir()
        _run_bash(command, work)
        assert list(work.iterdir()) == [], repr(command)
        checked += 1
    assert checked > 100


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("touch") is None, reason="needs bash and touch")
def test_real_bash_never_runs_a_denied_command(tmp_path: Path) -> None:
    rnd = random.Random(1129)
    engine = PermissionEngine(mode="yolo", rules=[BashRule(pattern="touch", decision="deny")], project_root=tmp_path)
    checked = 0
    # yolo now refuses what cannot be parsed or known, so more draws are needed for 50 runs
    for i in range(4000):
        command = "".join(rnd.choice(_FRAGMENTS) for _ in range(rnd.randint(2, 8)))
        if "ouch" not in command or engine.evaluate(bash_call(command)).behavior == "deny":
            continue
        work = tmp_path / f"w{i}"
        work.mkdir()
        _run_bash(command, work)
        assert not (work / "T").exists(), repr(command)
        checked += 1
    assert checked > 50
