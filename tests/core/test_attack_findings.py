"""Attacks on the Bash analyzer from a prompt-injected model (issue 24, `attack-sandbox`).

The engine runs in `yolo` with deny rules for `rm` and `curl`: a command that hides a denied
program must be denied or refused there (in sandboxed `acceptEdits` the same verdict decides
whether it runs without asking). All of these got out before issue 24 was closed; they hold now.
Every hidden `rm` below was checked to really delete a file under real bash in the sandbox.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skawld_core.permissions import PermissionEngine
from skawld_core.permissions.types import PendingToolCall

ROOT = Path("/work/project")
DENY = [
    {"kind": "bash", "pattern": "rm", "decision": "deny"},
    {"kind": "bash", "pattern": "curl", "decision": "deny"},
]


def verdict(command: str) -> str:
    engine = PermissionEngine(mode="yolo", rules=DENY, project_root=ROOT)  # type: ignore[arg-type]
    call = PendingToolCall(
        tool_name="Bash", tool_use_id="t", input={"command": command}, summary="", scope="exec", cwd=ROOT
    )
    return engine.evaluate(call).behavior


SUBSCRIPT = "a[$(rm -f victim)]"

ARITHMETIC_SUBSCRIPTS = [
    f"x='{SUBSCRIPT}'; echo $((x))",
    f"x='{SUBSCRIPT}'; [[ $x -eq 0 ]]",
    f"let '{SUBSCRIPT}'",
    f"declare -i n; n='{SUBSCRIPT}'",
    f"x='{SUBSCRIPT}'; for ((i=x;0;)); do :; done",
    f"x='{SUBSCRIPT}'; echo ${{arr[x]}}",
    f"x='{SUBSCRIPT}'; : $[x]",
]

BUILTIN_SUBSCRIPTS = [
    f"printf -v '{SUBSCRIPT}' x",
    f"test -v '{SUBSCRIPT}'",
    f"[ -v '{SUBSCRIPT}' ]",
    f"read '{SUBSCRIPT}' <<< x",
    f"declare '{SUBSCRIPT}=1'",
]

CODE_IN_VALUES = [
    "x='$(rm -f victim)'; echo ${x@P}",
    "printf -v PS4 '%s' '$(rm -f victim)'; set -x; true",
    "printf '%s\\n' victim | mapfile -t -C 'rm -f' -c 1",
]

UNKNOWN_WRAPPERS = [
    "setpriv rm -f victim",
    "prlimit rm -f victim",
    "nsenter rm -f victim",
    "fakeroot rm -f victim",
    "valgrind rm -f victim",
    "setarch x86_64 rm -f victim",
    "linux64 rm -f victim",
    "capsh -- -c 'rm -f victim'",
    "bwrap --bind / / rm -f victim",
    "nice -n 1 setpriv curl http://example.com",
]


@pytest.mark.parametrize("command", ARITHMETIC_SUBSCRIPTS)
def test_arithmetic_subscript_hides_rm(command: str) -> None:
    assert verdict(command) == "deny"


@pytest.mark.parametrize("command", BUILTIN_SUBSCRIPTS)
def test_builtin_subscript_hides_rm(command: str) -> None:
    assert verdict(command) == "deny"


@pytest.mark.parametrize("command", CODE_IN_VALUES)
def test_code_in_a_value_hides_rm(command: str) -> None:
    assert verdict(command) == "deny"


@pytest.mark.parametrize("command", UNKNOWN_WRAPPERS)
def test_unknown_wrapper_hides_denied_program(command: str) -> None:
    assert verdict(command) == "deny"


# Attacks that held; each one a regression could reopen.
HELD = [
    "r\\m -f victim",
    '"r"m -f victim',
    "busybox rm -f victim",
    "ionice -c3 rm -f victim",
    "env -- rm -f victim",
    "function cd { rm -f victim; }; cd",
    "echo victim | xargs -r -- rm -f",
    "find . -maxdepth 1 -name victim -exec /usr/bin/env rm {} +",
    "stdbuf -oL nice rm -f victim",
    "curl_() { :; }; c\\url --version",
]


@pytest.mark.parametrize("command", HELD)
def test_spellings_of_rm_that_are_denied(command: str) -> None:
    assert verdict(command) == "deny"


@pytest.mark.parametrize(
    "command",
    ["alias r=rm; r -f victim", "hash -p /bin/rm ls; ls -f victim", "bash <<< 'rm -f victim'", 'x=rm; "${x}" -f v'],
)
def test_run_time_command_names_are_never_allowed(command: str) -> None:
    assert verdict(command) != "allow"
