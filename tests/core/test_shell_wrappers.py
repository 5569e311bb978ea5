"""`inner_commands`: what a wrapper (`sudo`, `env`, `timeout`, `su`, `bash -c`, `find -exec`,
`watch`, `trap`, …) runs, with each program's own option syntax. A wrong answer here lets a
denied command through behind a wrapper, so each case pins the exact result.

Words are written one per argument; a word starting with `$` is dynamic (known only when
the command runs; after `%`, the rest is a dynamic word's text, `%-e$X`)."""

from __future__ import annotations

import pytest

from skawld_core.permissions.shell_syntax import Word
from skawld_core.permissions.shell_wrappers import inner_commands


def _word(token: str) -> Word:
    if token.startswith("%"):  # dynamic, with source text that does not start with `$`
        return Word(token[1:], static=False)
    return Word(token, static=False) if token.startswith("$") else Word(token)


def inner(*tokens: str) -> list[str]:
    """What `tokens` runs: `run:WORDS` (` …` when the program adds arguments), `script:TEXT`,
    `?` (unknown: asks), `nothing` (the wrapper runs no command)."""
    out = []
    for found in inner_commands(tuple(_word(t) for t in tokens)):
        assert found.via, found
        if found.unknown is not None:
            assert not found.words and found.script is None
            out.append("?")
        elif found.script is not None:
            assert not found.words
            out.append("script:" + found.script)
        elif found.words:
            out.append("run:" + " ".join(w.value for w in found.words) + (" …" if found.open_ended else ""))
        else:
            assert not found.open_ended
            out.append("nothing")
    return out


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        # plain programs and the option parser
        (["rm", "x"], []),
        (["/usr/bin/nice", "-n", "1", "rm", "x"], ["run:rm x"]),
        (["/usr/bin/"], []),
        (["nice", "-n"], ["nothing"]),  # an option without its argument
        (["nice", "-n5", "rm"], ["run:rm"]),
        (["nice", "-10", "rm", "x"], ["run:rm x"]),  # old-style adjustment
        (["nice", "$OPT", "rm"], ["?"]),
        (["nice", "-n", "$N", "rm"], ["?"]),
        (["nice", "--adjustment", "3", "rm"], ["run:rm"]),
        (["nice", "--adjustment=3", "rm"], ["run:rm"]),
        (["nice", "--", "-rm"], ["run:-rm"]),
        (["nohup", "-x", "rm"], ["run:-x rm"]),  # nohup takes no options
        (["sudo", "--user"], ["nothing"]),
        (["sudo", "--user", "$U", "rm"], ["?"]),
        (["sudo", "-u", "root", "rm", "x"], ["run:rm x"]),
        (["sudo", "-uroot", "rm"], ["run:rm"]),
        (["sudo", "A=1", "rm"], ["run:rm"]),
        (["sudo", "-l"], ["nothing"]),
        (["sudo", "-u", "root"], ["nothing"]),
        (["sudo", "-u", "sis"], ["nothing"]),  # an option's argument is not an option
        (["sudo", "-s"], ["?"]),
        (["sudo", "-i"], ["?"]),
        (["sudo", "-Es"], ["?"]),
        (["sudo", "--shell"], ["?"]),
        (["sudo", "--login"], ["?"]),
        (["sudo", "--preserve-env"], ["nothing"]),
        (["sudo", "-s", "rm"], ["run:rm"]),
        (["doas", "-s"], ["?"]),
        (["env", "A=1", "B=2", "rm", "x"], ["run:rm x"]),
        (["env", "-", "rm"], ["run:rm"]),
        (["env", "-", "-u", "HOME", "rm"], ["run:rm"]),
        (["env", "-i", "A=1", "rm"], ["run:rm"]),
        (["env", "-u", "HOME", "rm"], ["run:rm"]),
        (["env", "-S", "rm -rf x", "y"], ["script:rm -rf x 'y'"]),
        (["env", "-S", "echo", "it's"], ["script:echo 'it'\\''s'"]),
        (["env", "--split-string=rm x"], ["script:rm x"]),
        (["env", "--split-string", "rm x"], ["script:rm x"]),
        (["env", "--chdir=/", "rm"], ["run:rm"]),
        (["nice", "--split-string=rm"], ["nothing"]),
        (["flock", "--command", "rm x", "/tmp/l"], ["script:rm x"]),
        (["flock", "--timeout", "5", "/tmp/l", "rm", "x"], ["run:rm x"]),
        (["flock", "-c", "rm x", "/tmp/l"], ["script:rm x"]),
        (["flock", "-w5", "/tmp/l", "rm"], ["run:rm"]),
        (["flock", "/tmp/l", "-c", "rm x"], ["script:rm x"]),
        (["flock", "/tmp/l", "--command", "rm x"], ["script:rm x"]),
        (["flock", "/tmp/l", "-c", "$X"], ["?"]),
        (["flock", "/tmp/l", "-c"], ["run:-c"]),
        (["xargs", "rm"], ["run:rm …"]),
        (["xargs"], ["run:echo …"]),
        (["xargs", "-n", "1", "rm"], ["run:rm …"]),
        (["xargs", "-ia", "rm", "x"], ["run:rm x …"]),  # -i takes its replace string attached only
        (["xargs", "-i", "rm", "{}"], ["run:rm {} …"]),
        (["xargs", "-0n1", "rm"], ["run:rm …"]),
        (["timeout", "5", "rm", "x"], ["run:rm x"]),
        (["timeout", "-s", "KILL", "5", "rm"], ["run:rm"]),
        (["timeout", "5", "-s", "KILL", "rm"], ["run:-s KILL rm"]),  # options end at the duration
        (["timeout"], ["nothing"]),
        (["timeout", "$T", "rm"], ["?"]),
        (["timeout", "--", "$T", "rm"], ["?"]),
        (["chrt", "5", "rm", "x"], ["run:rm x"]),
        (["taskset", "0x1", "rm", "x"], ["run:rm x"]),
        (["chroot", "/srv", "rm", "x"], ["run:rm x"]),
        (["setarch", "x86_64", "rm", "x"], ["run:rm x"]),
        (["setarch", "x86_64", "-R", "rm", "x"], ["run:rm x"]),  # options after the operand too
        (["gosu", "nobody", "rm", "x"], ["run:rm x"]),
        (["su-exec", "nobody", "rm", "x"], ["run:rm x"]),
        (["setuidgid", "nobody", "rm", "x"], ["run:rm x"]),
        (["envdir", "/etc/env", "rm", "x"], ["run:rm x"]),
        (["chrt", "-p", "5", "1234"], ["nothing"]),
        (["ionice", "-c", "3", "rm"], ["run:rm"]),
        (["command", "-v", "rm"], ["nothing"]),
        (["unshare", "-m", "rm"], ["run:rm"]),
        (["unshare", "--map-user=0", "rm"], ["run:rm"]),
        (["systemd-run", "rm"], ["?"]),
        (["ip", "netns", "exec", "n", "rm"], ["?"]),
        (["ip", "$X"], ["?"]),
        (["ip", "addr"], []),
        (["alias", "ll=ls -l"], ["?"]),
        (["alias", "$X"], ["?"]),
        (["alias", "ll"], []),
        (["hash", "-p", "/bin/rm", "ls"], ["?"]),
        (["hash", "-r"], []),
        (["hash", "pwd"], []),
        (["source", "x.sh"], ["?"]),
        (["eval", "rm", "x"], ["script:rm x"]),
        (["eval", "$X"], ["?"]),
        # su, runuser, script, sg
        (["su", "-c", "rm x"], ["script:rm x"]),
        (["su", "-c", "rm x", "$U"], ["script:rm x"]),
        (["su", "-c"], ["?"]),
        (["su", "-c", "$X"], ["?"]),
        (["su", "--command=rm x"], ["script:rm x"]),
        (["su", "-lc", "rm x"], ["script:rm x"]),
        (["su", "$U"], ["?"]),
        (["su", "bob"], ["?"]),
        (["su", "bob", "--", "rm", "x"], ["?"]),
        (["su", "-s", "/bin/sh", "bob", "-c", "rm x"], ["script:rm x"]),
        (["runuser", "-u", "bob", "rm", "x"], ["run:rm x"]),
        (["runuser", "-u", "bob", "--", "rm", "x"], ["run:rm x"]),
        (["runuser", "-u", "bob", "--", "-c", "x"], ["run:-c x"]),
        (["runuser", "-g", "wheel", "bob", "rm", "x"], ["run:rm x"]),
        (["runuser", "bob"], ["?"]),
        (["runuser", "$U", "rm", "x"], ["?"]),
        (["script", "-q", "-c", "rm x", "/dev/null"], ["script:rm x"]),
        (["sg", "wheel", "-c", "rm x"], ["script:rm x"]),
        # shells
        (["bash", "-c", "rm x"], ["script:rm x"]),
        (["/bin/sh", "-ec", "rm x"], ["script:rm x"]),
        (["bash", "-c", "--", "rm x"], ["script:rm x"]),
        (["bash", "-o", "pipefail", "-c", "rm x"], ["script:rm x"]),
        (["bash", "--rcfile", "f", "-c", "rm x"], ["script:rm x"]),
        (["bash", "--norc", "-c", "rm x"], ["script:rm x"]),
        (["bash", "-eo", "pipefail", "-c", "rm x"], ["script:rm x"]),
        (["bash", "+O", "extglob", "-c", "rm x"], ["script:rm x"]),
        (["bash", "-e", "x.sh"], ["?"]),
        (["bash", "+e", "x.sh"], ["?"]),
        (["bash", "-", "x.sh"], ["?"]),
        (["bash"], ["?"]),
        (["bash", "-c"], ["nothing"]),
        (["bash", "-c", "$X"], ["?"]),
        (["bash", "$X"], ["?"]),
        (["bash", "%-e$X", "-c", "rm x"], ["?"]),
        (["bash", "-c", "--", "$X"], ["?"]),
        (["bash", "--login", "-c", "rm x"], ["script:rm x"]),
        (["bash", "-o"], ["?"]),
        # find, watch, trap
        (["find", ".", "-exec", "rm", "{}", ";"], ["run:rm {} …"]),
        (
            ["find", ".", "-exec", "rm", "a", "b", "+", "-execdir", "cp", "{}", "y", ";"],
            ["run:rm a b …", "run:cp {} y …"],
        ),
        (["find", ".", "-name", "x", "-ok", "rm", "{}", ";", "-print"], ["run:rm {} …"]),
        (["find", ".", "-exec", ";"], []),
        (["find", "$D", "-name", "x"], ["?"]),
        (["find", ".", "$X", "-print"], ["?"]),
        (["find", ".", "-name", "$X"], []),  # the last word: nothing can follow it
        (["find", "-exec", "rm", "{}", ";"], ["run:rm {} …"]),
        (["watch", "-n", "1", "rm", "x"], ["script:rm x"]),
        (["watch", "-t", "rm", "x"], ["script:rm x"]),
        (["watch", "--interval", "1", "-d", "2", "rm"], ["script:rm"]),
        (["watch", "-n"], []),
        (["watch"], []),
        (["watch", "rm", "$X"], ["?"]),
        (["trap", "rm x", "EXIT"], ["script:rm x"]),
        (["trap", "--", "rm x", "EXIT"], ["script:rm x"]),
        (["trap", "EXIT"], []),
        (["trap", "-", "EXIT"], []),
        (["trap", "-p", "EXIT"], []),
        (["trap", "$X", "EXIT"], ["?"]),
    ],
)
def test_inner_commands(tokens: list[str], expected: list[str]) -> None:
    assert inner(*tokens) == expected


def test_a_placeholder_word_is_dynamic_and_via_names_the_wrapper() -> None:
    (found,) = inner_commands((Word("find"), Word("."), Word("-exec"), Word("rm"), Word("{}.bak"), Word(";")))
    assert [(w.value, w.static) for w in found.words] == [("rm", True), ("{}.bak", False)]
    assert found.via == "find -exec"
    (found,) = inner_commands((Word("sudo"), Word("rm")))
    assert found.via == "sudo" and not found.open_ended
