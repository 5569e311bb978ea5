"""Code bash runs from data: arithmetic on a variable holding an array subscript, builtins that
evaluate a subscript in a variable name, `${x@P}`, hook variables set by builtins, `mapfile -C`,
and exec wrappers from util-linux and friends (issue #24).

Each form is first run by real bash with a shim `rm` that logs itself, to show it really runs
the payload; then the analyzer must not let it through a deny rule for `rm`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .bash_shims import BASH, make_shims, run_with_shims
from .test_bash_tree import decide

SUB = "$(rm -f v)"
# (command, words the refusal names)
EVALUATED = [
    (f"x='a[{SUB}]'; echo $((x))", "arithmetic expansion evaluates `x`"),
    (f"x='a[{SUB}]'; echo $[x]", "arithmetic expansion evaluates `x`"),
    (f"x='a[{SUB}]'; ((x))", "arithmetic command evaluates `x`"),
    (f"x='a[{SUB}]'; for ((i=0; i<x; i++)); do :; done", "`for` loop evaluates `x`"),
    (f"x='a[{SUB}]'; [[ $x -eq 0 ]]", "operand of `-eq`"),
    (f"x='a[{SUB}]'; [[ x -lt 1 ]]", "operand of `-lt`"),
    (f"x='a[{SUB}]'; let x", "`let` evaluates `x`"),
    (f"x='a[{SUB}]'; let y=x+1", "`let` evaluates `x`"),
    (f"declare -i n; n='a[{SUB}]'", "integer variable"),
    (f"declare -i n; n+='a[{SUB}]'", "integer variable"),
    (f"x='a[{SUB}]'; declare -i n=x", "integer variable"),
    (f"declare -i n; read n <<< 'a[{SUB}]'", "integer variable"),
    (f"i='a[{SUB}]'; echo ${{b[i]}}", "array subscript evaluates `i`"),
    (f"i='a[{SUB}]'; echo ${{b[$i]}}", "array subscript evaluates `i`"),
    (f"x='a[{SUB}]'; a[x]=1", "array subscript evaluates `x`"),
    (f"x='a[{SUB}]'; b=([x]=1)", "array subscript evaluates `x`"),
    (f"x='a[{SUB}]'; set -- 1 2; echo ${{@:x}}", "substring expansion"),
    (f"r='a[{SUB}]'; echo ${{!r}}", "indirect expansion"),
    (f"test -v 'a[{SUB}]'", "`test -v`"),
    (f"[ -v 'a[{SUB}]' ]", "`-v` in a test"),
    (f"x='a[{SUB}]'; [[ -v $x ]]", "`-v` in a test"),
    (f"printf -v 'a[{SUB}]' x", "`printf -v`"),
    (f"read 'a[{SUB}]' <<< x", "`read`"),
    (f"declare 'a[{SUB}]=1'", "`declare`"),
    (f"declare -n r='a[{SUB}]'; echo $r", "`declare -n`"),
    (f"builtin printf -v 'a[{SUB}]' x", "`printf -v`"),
    (f"x='{SUB}'; echo ${{x@P}}", "@P"),
    (f"printf -v PS4 '%s' '{SUB}'; set -x; :", "`printf -v` sets `PS4`"),
    (f"read PS4 <<< '{SUB}'; set -x; :", "`read` sets `PS4`"),
    (f"declare PS4='{SUB}'; set -x; :", "sets `PS4`"),
    (f"export PS4='{SUB}'; set -x; :", "sets `PS4`"),
    (f"for PS4 in '{SUB}'; do set -x; :; done", "sets `PS4`"),
    (f"unset PS4; : ${{PS4:='{SUB}'}}; set -x; :", "sets `PS4`"),
    (f"x='a[{SUB}]'; eval 'echo $((x))'", "evaluates `x`"),
    (f"x='a[{SUB}]' bash -c 'echo $((x))'", "evaluates `x`"),
    ("mapfile -C 'rm -f' -c 1 a <<< x", "`mapfile -C`"),
    ("readarray -C 'rm -f' -c 1 a <<< x", "`readarray -C`"),
]
# util-linux and friends: (command, wrapper path); their options are skipped and `rm` is denied
WRAPPED = [
    ("setpriv rm x", "setpriv"),
    ("setpriv --reuid=0 --inh-caps -all rm x", "setpriv"),
    ("prlimit rm x", "prlimit"),
    ("prlimit -n1024 rm x", "prlimit"),
    ("unshare -C rm x", "unshare"),
    ("unshare -r --propagation private rm x", "unshare"),
    ("nsenter -t 1 rm x", "nsenter"),
    ("setarch x86_64 -R rm x", "setarch"),
]
OPAQUE = ["systemd-run --user rm x", "firejail --quiet rm x", "capsh -- -c 'rm x'", "ip netns exec n rm x"]
# ordinary arithmetic: the analyzer sees what every name holds
ORDINARY = [
    "i=0; echo $((i + 1))",
    "for i in 1 2 3; do echo $((i * 2)); done",
    "for i in {1..5}; do echo $((i * 2)); done",
    "for ((i = 0; i < 3; i++)); do echo $i; done",
    "n=${#a[@]}; echo $((n - 1)) $((0x1f + 16#ff))",
    'n=$(wc -l < f); [ "$n" -gt 5 ] && echo big',
    "declare -A m; for k in a b; do m[$k]=1; done; echo ${m[$k]}",
    "x=$((3 * 4)); declare -i y=x; let z=y+1",
    "read -r line < f; echo ${line:0:3}",
    "echo $((HOME_COUNT + 1))",
    "unset x; unset -v a b; unset -f fn",
    'read -r line < f; printf -v y "%s" "$line"; test -v y',
    'declare -A m; m[a]=1; for k in "${!m[@]}"; do echo "${m[$k]}"; done',
    'IFS=, read -ra parts < f; echo "${parts[0]}" "${#parts[@]}"',
]

_SETARCH_OK = shutil.which("setarch") is not None


@pytest.fixture(scope="module")
def shims(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_shims(tmp_path_factory.mktemp("shims"))


def _ran_rm(command: str, tmp_path: Path, shims: Path) -> bool:
    return "rm" in run_with_shims(command, tmp_path / "w", shims)


@pytest.mark.skipif(not os.access(BASH, os.X_OK), reason="needs /bin/bash")
@pytest.mark.parametrize(("command", "why"), EVALUATED)
def test_real_bash_runs_the_payload_and_the_analyzer_refuses_it(
    command: str, why: str, tmp_path: Path, shims: Path
) -> None:
    assert _ran_rm(command, tmp_path, shims), "the form no longer runs its payload: the test proves nothing"
    assert decide(command)[0] == "ask"
    behavior, reason = decide(command, mode="yolo")
    assert behavior == "deny"
    assert reason is not None and why in reason and "rephrase" in reason


@pytest.mark.parametrize(("command", "program"), WRAPPED)
def test_util_linux_wrappers_reach_the_command(command: str, program: str, tmp_path: Path, shims: Path) -> None:
    real = shutil.which(program)
    if real is not None and os.access(BASH, os.X_OK) and os.geteuid() == 0:
        # the wrapper really starts `rm` (looked up in the shim PATH) with these options
        assert _ran_rm(f"{real} {command.split(' ', 1)[1]}", tmp_path, shims)
    assert decide(command)[0] == "deny"
    assert decide(command, mode="yolo")[0] == "deny"
    assert decide(f"{real or '/usr/bin/' + program} {command.split(' ', 1)[1]}")[0] == "deny"


@pytest.mark.parametrize("command", OPAQUE)
def test_wrappers_the_analyzer_does_not_follow_ask(command: str) -> None:
    assert decide(command)[0] == "ask"
    behavior, reason = decide(command, mode="yolo")
    assert behavior == "deny" and reason is not None and "does not follow" in reason


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_arithmetic_does_not_ask(command: str) -> None:
    assert decide(command, mode="yolo")[0] == "allow"
