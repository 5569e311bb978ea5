"""Attacks on "project trust follows the scripts an accepted command runs", from the docs only.

docs/claude-code.md: after a project is accepted, a pulled change to a project script that an
accepted command's ``!`…` `` line or `Bash(…)` grant names as the program it runs (a path as the
command word, or an interpreter's script, through wrappers such as `env` or `sudo`) asks again
(headless: exit 3). Programs that read their own project files (`make`, `npm run`, `python -m`)
are the documented limit. Each case accepts a project whose command runs a harmless script, then
changes that script the way a `git pull` could (to one that creates a marker) and runs the
command with the real `skawld -p`. About 120 spellings were tried; the ones kept here are the most
valuable that held, each hole as `xfail(strict=True)` (it turns red once fixed), and one case
inside the documented limit. The 17 holes it found were closed together by covering every
project file an accepted line names (docs/claude-code.md), and are kept as tests.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli.harness import CliEnv
from tests.cli.test_attack_trust import MARKER, accept, assert_asked_again, assert_held, command, run, write

pytestmark = pytest.mark.timeout(120)

SH = "scripts/status.sh"
PY = "tools/gen.py"
APP = "tools/app/__main__.py"
AWK = "tools/x.awk"
JS = "tools/x.js"


def harmless_project(repo: Path) -> None:
    write(repo / SH, "#!/bin/sh\n. ./scripts/lib.sh\necho fine\n").chmod(0o755)
    write(repo / "scripts" / "lib.sh", "echo lib\n")
    write(repo / PY, "print('fine')\n")
    write(repo / APP, "print('fine')\n")
    write(repo / AWK, "BEGIN { print 1 }\n")
    write(repo / JS, "1\n")


def pulled_change(repo: Path, path: str) -> None:
    """What a pull brings: the same file, now creating the marker."""
    marker = repo / MARKER
    bodies = {
        ".py": f"open({str(marker)!r}, 'w')\n",
        ".awk": f'BEGIN {{ system("touch {marker}") }}\n',
        ".js": f"require('fs').writeFileSync({str(marker)!r}, '')\n",
    }
    write(repo / path, bodies.get(Path(path).suffix, f"#!/bin/sh\ntouch {marker}\n")).chmod(0o755)


def accept_then_change(cli: CliEnv, line: str, changed: str) -> None:
    harmless_project(cli.repo)
    command(cli, "st", "allowed-tools: Bash", f"!`{line}` then summarise")
    accept(cli)
    pulled_change(cli.repo, changed)


# -- held ------------------------------------------------------------------------------------

HELD = {
    "dot_dot_in_the_path": ("bash scripts/../scripts/status.sh", SH),
    "quotes_spliced_in_the_command_word": ("\"./scripts/\"'status.sh'", SH),
    "wrapper_with_an_option_argument": ("timeout -s KILL 5 ./scripts/status.sh", SH),
    "chained_wrappers": ("env nice -n 5 timeout 5 sh scripts/status.sh", SH),
    "env_clearing_the_environment": ("env -i ./scripts/status.sh", SH),
    "inside_a_command_substitution": ('echo "$(sh scripts/status.sh)"', SH),
    "a_nested_sh_c": ("bash -c 'sh scripts/status.sh'", SH),
    "through_eval": ('eval "sh scripts/status.sh"', SH),
    "sourced_with_a_dot": (". ./scripts/status.sh", SH),
}


@pytest.mark.parametrize("spelling", sorted(HELD))
def test_a_changed_script_behind_an_accepted_spelling_asks_again(cli: CliEnv, spelling: str) -> None:
    line, changed = HELD[spelling]
    accept_then_change(cli, line, changed)
    out = run(cli, "/st")
    assert_held(cli, out)
    assert_asked_again(out, "st.md")


def test_a_script_folder_replaced_by_a_link_to_another_folder_asks_again(cli: CliEnv) -> None:
    harmless_project(cli.repo)
    pulled_change(cli.repo, "alt/status.sh")
    command(cli, "st", "allowed-tools: Bash", "!`./scripts/status.sh` then summarise")
    accept(cli)
    shutil.rmtree(cli.repo / "scripts")
    (cli.repo / "scripts").symlink_to("alt")
    out = run(cli, "/st")
    assert_held(cli, out)
    assert_asked_again(out, "st.md")


def test_a_linked_script_whose_outside_target_changes_asks_again(cli: CliEnv) -> None:
    outside = write(cli.home / "tool.sh", "#!/bin/sh\necho fine\n")
    outside.chmod(0o755)
    (cli.repo / "run").symlink_to(outside)
    command(cli, "st", "allowed-tools: Bash", "!`./run` then summarise")
    accept(cli)
    write(outside, f"#!/bin/sh\ntouch {cli.repo / MARKER}\n")
    out = run(cli, "/st")
    assert_held(cli, out)
    assert_asked_again(out, "st.md")


# -- inside the documented limit ---------------------------------------------------------------


def test_a_file_the_accepted_script_sources_is_not_followed(cli: CliEnv) -> None:
    """The script reads its own project file (like make and its Makefile): the docs' limit."""
    accept_then_change(cli, "./scripts/status.sh", "scripts/lib.sh")
    out = run(cli, "/st")
    assert out.returncode == 0, out.stderr
    assert (cli.repo / MARKER).exists(), "a sourced file is followed now: the docs' limit is out of date"


# -- holes this attack found, closed (were strict xfails): every file the line names counts ---


def closed(line: str, changed: str, why: str) -> object:
    return pytest.param(line, changed, id=why)


@pytest.mark.parametrize(
    ("line", "changed"),
    [
        closed("bash -e scripts/status.sh", SH, "an interpreter option (-e) before the script hides it; -x does not"),
        closed("sh -e scripts/status.sh", SH, "an interpreter option (-e) before the script hides it"),
        closed("python3 -X dev tools/gen.py", PY, "an interpreter option taking an argument before the script"),
        closed("cd scripts && ./status.sh", SH, "a cd before the command word: the path is relative to another folder"),
        closed("env -C scripts sh status.sh", SH, "env -C (a wrapper changing folder) before the script"),
        closed('"$PWD"/scripts/status.sh', SH, "a command word built from $PWD"),
        closed("PATH=./scripts:$PATH status.sh", SH, "the script found through a PATH set on the line"),
        closed("sh < scripts/status.sh", SH, "the interpreter reads the script on its standard input"),
        closed("python3 - < tools/gen.py", PY, "python reads the script on its standard input"),
        closed("./scripts/statu?.sh", SH, "a glob as the command word"),
        closed("for f in scripts/*.sh; do sh $f; done", SH, "a loop over a glob of the scripts folder"),
        closed("python3 tools/app", APP, "python runs a script folder (its __main__.py)"),
        closed("awk -f tools/x.awk /dev/null", AWK, "awk -f runs a project script"),
        closed("BASH_ENV=scripts/status.sh bash -c true", SH, "bash runs the script named by BASH_ENV"),
        closed("a=scripts/status.sh; sh $a", SH, "the script's path in a shell variable"),
        closed('bash -c "$(cat scripts/status.sh)"', SH, "the script's text passed as bash -c code"),
        closed("node --require ./tools/x.js -e 1", JS, "an interpreter option (--require) naming a script"),
    ],
)
def test_a_changed_script_behind_a_once_unfollowed_spelling_asks_again(cli: CliEnv, line: str, changed: str) -> None:
    accept_then_change(cli, line, changed)
    out = run(cli, "/st")
    assert_held(cli, out)
    assert_asked_again(out, "st.md")
