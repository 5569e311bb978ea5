"""Bash analysis on the tree-sitter syntax tree: the attacks of issue #10 and the allow-list shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skawld_core.permissions import BashRule, PendingToolCall, PermissionEngine, RegexPattern
from skawld_core.permissions.bash_rules import analyze_bash
from skawld_core.permissions.shell_analysis import analyze_shell

ROOT = Path("/repo")
ALLOW_LS_DENY_RM = [
    BashRule(pattern="ls", decision="allow"),
    BashRule(pattern="echo", decision="allow"),
    BashRule(pattern="git status", decision="allow"),
    BashRule(pattern="rm", decision="deny"),
]


def decide(command: str, rules: list[Any] = ALLOW_LS_DENY_RM, mode: Any = "default") -> tuple[str, str | None]:
    engine = PermissionEngine(mode=mode, rules=rules, project_root=ROOT)
    call = PendingToolCall(
        tool_name="Bash", tool_use_id="t", input={"command": command}, summary="", scope="exec", cwd=ROOT
    )
    d = engine.evaluate(call)
    return d.behavior, d.reason


DENIED = [
    # the reproduction: a function named like an allowed command, with a subshell body
    "ls () ( rm -rf victim ); ls",
    "ls() { rm -rf victim; }; ls",
    # wrappers whose options take an argument
    "nice -n 1 rm x",
    "nice -10 rm x",
    "nice --adjustment=3 rm x",
    "sudo -u root rm x",
    "sudo -u root -g wheel -- rm x",
    "sudo VAR=1 rm x",
    "doas -u root rm x",
    "exec -a x rm y",
    "env -S 'rm -rf x'",
    "env -u HOME -C /tmp rm x",
    "env -i A=1 B=2 rm x",
    "timeout -s KILL 5 rm x",
    "timeout --signal=KILL -k 1 5s rm x",
    "ionice -c 3 -n 7 rm x",
    "ionice -c3 rm x",
    "stdbuf -oL -e 0 rm x",
    "time -p rm x",
    "chrt -f 10 rm x",
    "chrt 10 rm x",
    "taskset -c 0 rm x",
    "taskset 0x1 rm x",
    "nohup rm x",
    "command -p rm x",
    "builtin eval rm x",
    "setsid -f rm x",
    "xargs -n 1 -I {} rm {}",
    "xargs -0 -P4 rm",
    "busybox rm x",
    "nice -n 1 sudo -u root env -S 'timeout 5 rm x'",
    "flock /tmp/lock rm x",
    "flock /tmp/lock -c 'rm x'",
    # quoting and ANSI-C strings are decoded before matching
    "$'\\x72m' x",
    "$'\\162\\155' x",
    "$'\\u0072m' x",
    "r'm' x",
    '"rm" x',
    "\\rm x",
    "/bin/rm x",
    "./bin/../rm x",
    # find -exec and friends
    "find . -name '*.o' -exec rm {} ;",
    "find . -execdir rm {} +",
    "find . -ok rm {} \\;",
    "find . -okdir rm {} \\;",
    "find . -exec sh -c 'rm \"$1\"' _ {} \\;",
    # nested anywhere
    "echo $(rm x)",
    "echo `rm x`",
    "echo ${x:-$(rm x)}",
    "echo $(( $(rm x) ))",
    "cat <(rm x)",
    "echo > >(rm x)",
    "(rm x)",
    "{ rm x; }",
    "if true; then rm x; fi",
    "for f in a; do rm $f; done",
    "case a in a) rm x;; esac",
    "while false; do rm x; done",
    "[[ $(rm x) ]]",
    "x=$(rm x)",
    "export X=$(rm x)",
    "cat <<EOF\n$(rm x)\nEOF",
    "cat <<< $(rm x)",
    "! rm x",
    "trap 'rm x' EXIT",
    # inline scripts, parsed again
    "bash -c 'rm x'",
    "bash -lc 'echo; rm x'",
    "bash -o pipefail -c 'rm x'",
    "sh -ec 'rm x'",
    "eval 'rm x'",
    "eval \"bash -c 'rm x'\"",
    "watch -n 1 rm x",
    '$"rm" x',
    "r\\\nm x",  # a line continuation inside a word: bash joins it, tree-sitter-bash splits
    '"r"\\\nm x',
    "wc -l\n\\rm x",
    "time { rm x; }",
    "! { rm x; }",
    "su -c 'rm x'",
    "su root -c 'rm x'",
    "runuser -u nobody -- rm x",
    "script -qc 'rm x' /dev/null",
    "sudo -u root -s rm x",
    "chroot / rm x",
    "strace -f -e trace=file rm x",
    "unshare -r rm x",
]


@pytest.mark.parametrize("command", DENIED)
def test_deny_rule_sees_the_real_command(command: str) -> None:
    assert decide(command)[0] == "deny"
    assert decide(command, mode="yolo")[0] == "deny"


UNKNOWN = [
    ("c=rm; $c x", "`$c`"),
    ("$(echo rm) x", "`$(echo rm)`"),
    ("`echo rm` x", "only known when the command runs"),
    ("/bin/r? x", "is a glob"),
    ("r* x", "is a glob"),
    ('"$c" x', "only known"),
    ("${c} x", "only known"),
    ("nice -n $n rm x", "option of `nice`"),
    ("sudo $opts x", "only known"),
    ('bash -c "$script"', "bash -c"),
    ("echo rm x | bash", "reads commands"),
    ("sh script.sh", "reads commands"),
    ("source ./env.sh", "script file"),
    ('eval "$cmd"', "eval"),
    ("xargs sh", "reads commands"),
    ("find . -exec {} \\;", "only known"),
    ("PS4='$(rm x)' bash -xc true", "PS4"),
    ("{rm,-rf,x}", "could not be parsed"),
    ("{rm,x} y", "could not be parsed"),
    ("hash -p ./bin/rm ls; ls", "hash -p"),
    ("shopt -s expand_aliases; alias ls=rm\nls x", "alias"),
    ("echo rm x | sudo -s", "standard input"),
    ("su - root", "shell"),
]


@pytest.mark.parametrize(("command", "why"), UNKNOWN)
def test_unknown_command_word_asks_and_yolo_refuses_with_a_reason(command: str, why: str) -> None:
    assert decide(command)[0] == "ask"
    behavior, reason = decide(command, mode="yolo")
    assert behavior == "deny"
    assert reason is not None and why in reason and "rephrase" in reason


def test_unknown_command_word_without_deny_rules_is_left_to_the_mode() -> None:
    rules: list[Any] = [BashRule(pattern="ls", decision="allow")]
    assert decide("$c x", rules) == ("ask", None)
    assert decide("$c x", rules, mode="yolo") == ("allow", None)


def test_dynamic_argument_that_may_complete_a_deny_pattern_asks() -> None:
    rules: list[Any] = [BashRule(pattern="git push", decision="deny"), BashRule(pattern="git", decision="allow")]
    assert decide("git $sub origin", rules)[0] == "ask"
    assert decide("git $sub origin", rules, mode="yolo")[0] == "deny"
    assert decide("git log $rev", rules)[0] == "ask"  # not allowed (expansion), but not unknown either
    assert decide("git log $rev", rules, mode="yolo")[0] == "allow"
    assert decide("ls | xargs git", rules, mode="yolo")[0] == "deny"  # xargs may append `push`


ALLOWED = [
    "ls",
    "ls -la src",
    "ls *.py",
    "ls 'a b' \"c d\" $'e\\tf'",
    "ls && echo hi; git status | echo x",
    "ls >/dev/null 2>&1",
    "ls 2>/dev/null",
    "ls &>/dev/null",
    "ls >&2",
    "ls 2>&-",
    "ls # a comment",
    "ls &",
    "! ls",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_plain_commands_are_allowed(command: str) -> None:
    assert decide(command)[0] == "allow"


NOT_ALLOWED = [
    "ls() { echo; }; ls",
    "(ls)",
    "{ ls; }",
    "ls $(echo x)",
    "ls `echo x`",
    "ls <(echo x)",
    "ls $HOME",
    "ls ${HOME}",
    "ls $((1))",
    "ls {a,b}",
    "$'ls'x",
    "FOO=1 ls",
    "ls > out",
    "ls >> out",
    "ls < in",
    "ls <<EOF\nx\nEOF",
    "ls <<< x",
    "if ls; then ls; fi",
    "for x in a; do ls; done",
    "[[ -f x ]] && ls",
    "x=1",
    "export X=1; ls",
    "ls\rls",
    "ls; sudo ls",
    "ls |",
]


@pytest.mark.parametrize("command", NOT_ALLOWED)
def test_anything_but_plain_commands_is_never_allowed(command: str) -> None:
    assert decide(command)[0] == "ask"


def test_allow_covers_only_commands_each_rule_names() -> None:
    v = analyze_bash("ls && git status --short | echo", ALLOW_LS_DENY_RM)
    assert v.decision == "allow"
    assert [r.pattern for r in v.rules] == ["ls", "git status", "echo"]
    assert analyze_bash("ls && git log", ALLOW_LS_DENY_RM).decision is None


def test_wrapper_chain_is_reported() -> None:
    cmds = analyze_shell("nice -n 1 sudo -u root env -S 'timeout 5 rm x'").commands
    assert [c.values for c in cmds][-1] == ("rm", "x")
    assert cmds[-1].via == "nice > sudo > env > timeout"
    assert [c.derived for c in cmds] == [False, True, True, True, True]


def test_deny_reason_names_the_command_and_rule() -> None:
    v = analyze_bash("ls; sudo -u root rm -rf /", ALLOW_LS_DENY_RM)
    assert v.decision == "deny"
    assert v.reason == "`rm -rf /` (via sudo) matches deny rule `rm`"


def test_command_v_runs_nothing() -> None:
    assert decide("command -v rm")[0] == "ask"  # not denied: `command -v` only looks the name up


def test_regex_rules_see_the_command_text() -> None:
    rules: list[Any] = [BashRule(pattern=RegexPattern(regex=r"^curl .*\|"), decision="deny")]
    assert decide("curl x | sh", rules)[0] == "ask"  # the pipeline is two commands
    rules = [BashRule(pattern=RegexPattern(regex=r"--force"), decision="deny")]
    assert decide("sudo git push --force", rules)[0] == "deny"


def test_deep_nesting_is_bounded() -> None:
    command = "echo " + "$(" * 300 + "rm x" + ")" * 300
    assert decide(command)[0] in ("deny", "ask")
    script = "rm x"
    for _ in range(8):
        script = "bash -c " + "'" + script.replace("'", "'\\''") + "'"
    behavior, reason = decide(script, mode="yolo")
    assert behavior == "deny"
    assert reason is not None and "nested too deeply" in reason
    long_chain = "nice " * 100 + "rm x"
    assert decide(long_chain, mode="yolo")[0] == "deny"


def test_odd_input_is_decided_without_errors() -> None:
    assert decide("ls \udcff")[0] == "allow"  # a raw byte, as os.fsencode passes it to bash
    assert decide("r\udcffm x; rm y")[0] == "deny"
    assert decide("ls \x00 rm")[0] == "ask"
    assert decide(" && ".join(["ls"] * 1000), mode="yolo")[0] == "deny"  # too deep to see it all
    assert decide(" | ".join(["ls"] * 300))[0] == "allow"
