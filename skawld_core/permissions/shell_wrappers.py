"""Programs that run another command from their arguments, and how to find that command.

`inner_commands(words)` returns what a command like `nice -n 1 rm x`,
`sudo -u root rm`, `env -S 'rm x'`, `find . -exec rm {} ;`, `xargs -n1 rm`,
`busybox rm` or `timeout -s KILL 5 rm` runs, with each wrapper's options (and
the arguments those options take) skipped as the program itself parses them.
Shell scripts (`bash -c`, `eval`) are returned as text, to be parsed again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from .shell_syntax import Word

__all__ = ["Inner", "inner_commands"]


@dataclass(frozen=True)
class Inner:
    """What a wrapper runs: a command (`words`), a shell `script`, or an `unknown` reason.

    `open_ended` means the program appends more arguments (xargs, find -exec).
    """

    words: tuple[Word, ...] = ()
    script: str | None = None
    unknown: str | None = None
    open_ended: bool = False
    via: str = ""


@dataclass(frozen=True)
class _Spec:
    """Option syntax of a wrapper: short options taking an argument, long ones likewise."""

    short_arg: str
    long_arg: frozenset[str]
    positional: int  # fixed operands before the command (timeout's duration, chrt's priority)
    # short options after which the program runs no command (`command -v`, `ionice -p`)
    no_command: str


def _spec(short_arg: str = "", long_arg: str = "", positional: int = 0, no_command: str = "") -> _Spec:
    return _Spec(short_arg, frozenset(long_arg.split()), positional, no_command)


_WRAPPERS: dict[str, _Spec] = {
    "sudo": _spec(
        "ugpCrtUDRTh",
        "--user --group --prompt --close-from --role --type --other-user --chdir --chroot --command-timeout --host",
        no_command="lvkKeV",
    ),
    "doas": _spec("uC", no_command="L"),
    "env": _spec("uCPS", "--unset --chdir --split-string --block-signal --default-signal --ignore-signal"),
    "nice": _spec("n", "--adjustment"),
    "ionice": _spec("cnp", "--class --classdata --pid --pgid --uid", no_command="pPu"),
    "nohup": _spec(),
    "timeout": _spec("sk", "--signal --kill-after", positional=1),
    "stdbuf": _spec("ioe", "--input --output --error"),
    "time": _spec("fo", "--format --output"),
    "chrt": _spec("TPD", "--sched-runtime --sched-period --sched-deadline", positional=1, no_command="pm"),
    "taskset": _spec("", "", positional=1, no_command="p"),
    "exec": _spec("a"),
    "command": _spec("", no_command="vV"),
    "builtin": _spec(),
    "setsid": _spec(),
    "xargs": _spec(
        "adEILnPsS",
        "--arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars --process-slot-var",
    ),
    "busybox": _spec(),
    "nocache": _spec(),
    "coproc": _spec(),
    "flock": _spec("wEc", "--timeout --conflict-exit-code --command"),
    "chroot": _spec("", "--userspec --groups", positional=1),
    "strace": _spec(
        "abeEIoOPsSuUX", "--trace --output --signal --status --user --env --columns --strsize", no_command="p"
    ),
    "unshare": _spec(
        "SGRw",
        "--propagation --setgroups --map-user --map-group --map-users --map-groups --root --wd --setuid --setgid"
        " --monotonic --boottime",
    ),
    "unbuffer": _spec(),
    # util-linux and friends
    "nsenter": _spec("tSGW", "--target --setuid --setgid --wdns"),
    "setpriv": _spec(
        "",
        "--ambient-caps --inh-caps --bounding-set --ruid --euid --rgid --egid --reuid --regid --groups"
        " --securebits --pdeathsig --selinux-label --apparmor-profile --landlock-access --landlock-rule",
        no_command="d",
    ),
    "prlimit": _spec("o", "--output --pid", no_command="p"),
    "setarch": _spec(positional=1),
    "linux32": _spec(),
    "linux64": _spec(),
    "pkexec": _spec("", "--user"),
    "chpst": _spec("uUbe/nlLmdofcrt"),
    "fakeroot": _spec("lsib", "--lib --faked"),
    "eatmydata": _spec(),
    "valgrind": _spec(),
    "xvfb-run": _spec("efnpsw", "--error-file --auth-file --server-num --xauth-protocol --server-args --wait"),
    "dumb-init": _spec("r", "--rewrite"),
    "tini": _spec("ep"),
    "gosu": _spec(positional=1),
    "su-exec": _spec(positional=1),
    "setuidgid": _spec(positional=1),
    "envdir": _spec(positional=1),
}
# Programs that run a command (or a shell) with option syntax the analyzer does not follow.
_OPAQUE = frozenset(
    {"systemd-run", "systemd-nspawn", "firejail", "nsjail", "minijail0", "bwrap", "proot", "fakechroot"}
    | {"schroot", "capsh", "runcon", "cgexec", "numactl", "sem", "parallel", "daemonize", "start-stop-daemon"}
    | {"dbus-run-session", "dbus-launch", "ssh-agent", "sshpass", "expect", "ltrace", "gdb", "catchsegv"}
    | {"torsocks", "proxychains", "proxychains4", "tsocks", "rlwrap", "chronic", "ifne", "pee", "softlimit"}
    | {"cpulimit", "trickle", "faketime", "entr", "watchexec", "unshare-user", "machinectl", "toolbox"}
)
# Programs whose options may also follow their fixed operand (`setarch x86_64 -R cmd`).
_OPTIONS_AFTER_OPERAND = frozenset({"setarch"})
# Programs that run their `-c` argument as a shell script (otherwise a shell on standard input).
_SCRIPT_C = {"su": "sgG", "runuser": "sgGu", "script": "OIBTEm", "sg": ""}
# Options whose argument may be attached but is optional (xargs -e[eof], -i[replace], -l[n]).
_OPTIONAL_ATTACHED = {"xargs": "eil", "unshare": "muinpUCT", "nsenter": "muinpCUTrw", "prlimit": "cdefilmnqrstuvxy"}
_NO_OPTIONS = frozenset({"nohup", "builtin", "coproc"})
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "rbash"})
_SHELL_ARG_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_SOURCE = frozenset({"source", "."})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def inner_commands(words: tuple[Word, ...]) -> list[Inner]:
    """What `words` (a command whose name is known) runs besides itself, if anything."""
    name = os.path.basename(words[0].value)
    if name in _SHELLS:
        return [_shell(words)]
    if name == "eval":
        return [_eval(words)]
    if name in _SOURCE:
        return [Inner(unknown=f"`{name}` runs a script file the analyzer cannot see", via=name)]
    if name == "find":
        return _find(words)
    if name == "watch":
        return _watch(words)
    if name == "trap":
        return _trap(words)
    if name == "alias" and any("=" in w.value or not w.static for w in words[1:]):
        return [Inner(unknown="`alias` gives a command name a meaning the analyzer cannot follow", via=name)]
    if name == "hash" and any(w.value.startswith("-") and "p" in w.value for w in words[1:]):
        return [Inner(unknown="`hash -p` maps a command name to another program", via=name)]
    if name in _SCRIPT_C:
        return [_script_c(name, words)]
    if name in _OPAQUE:
        return [Inner(unknown=f"`{name}` runs a command the analyzer does not follow", via=name)]
    if name == "ip" and any(w.value == "exec" or not w.static for w in words[1:]):
        return [Inner(unknown="`ip netns exec` runs a command the analyzer does not follow", via=name)]
    spec = _WRAPPERS.get(name)
    if spec is None:
        return []
    return [_wrapped(name, spec, words)]


def _wrapped(name: str, spec: _Spec, words: tuple[Word, ...]) -> Inner:
    rest = list(words[1:])
    split_string: str | None = None
    optional = _OPTIONAL_ATTACHED.get(name, "")
    while rest:
        w = rest[0]
        if not w.static:
            return Inner(unknown=f"an option of `{name}` is only known when the command runs", via=name)
        v = w.value
        if v == "--":
            rest.pop(0)
            break
        if name in ("env", "sudo") and "=" in v and not v.startswith("-"):
            rest.pop(0)  # NAME=value assignments
            continue
        if name == "env" and v == "-":
            rest.pop(0)
            continue
        if not v.startswith("-") or v == "-" or name in _NO_OPTIONS:
            break
        rest.pop(0)
        if v.startswith("--"):
            key, eq, attached = v.partition("=")
            if key in spec.long_arg and not eq:
                if not rest:
                    return Inner(via=name)
                arg = rest.pop(0)
                attached = arg.value
                if not arg.static:
                    return Inner(unknown=f"an option of `{name}` is only known when the command runs", via=name)
            if key in ("--split-string",) and name == "env":
                split_string = attached
            if name == "flock" and key == "--command":
                return Inner(script=attached, via=name)
            continue
        # a cluster of short options; the first one taking an argument consumes the rest or the next word
        for pos in range(1, len(v)):
            opt = v[pos]
            if opt in spec.no_command:
                return Inner(via=name)
            if opt in optional:
                break
            if opt in spec.short_arg:
                attached = v[pos + 1 :]
                if not attached:
                    if not rest:
                        return Inner(via=name)
                    arg = rest.pop(0)
                    if not arg.static:
                        return Inner(unknown=f"an option of `{name}` is only known when the command runs", via=name)
                    attached = arg.value
                if name == "env" and opt == "S":
                    split_string = attached
                if name == "flock" and opt == "c":
                    return Inner(script=attached, via=name)
                break
    if not rest and name in ("sudo", "doas") and any(_starts_shell(w) for w in words[1:]):
        return Inner(unknown=f"`{name}` starts a shell that reads commands from standard input", via=name)
    if split_string is not None:
        # `env -S 'rm -rf x' y` runs the split string's words, then the remaining operands.
        tail = " ".join(_quote(w.value) for w in rest if w.static)
        return Inner(script=f"{split_string} {tail}".strip(), via=name)
    for _ in range(spec.positional):
        if not rest:
            return Inner(via=name)
        if not rest[0].static:
            return Inner(unknown=f"an operand of `{name}` is only known when the command runs", via=name)
        rest.pop(0)
    if name in _OPTIONS_AFTER_OPERAND and spec.positional:
        return _wrapped(name, replace(spec, positional=0), (words[0], *rest))
    if name == "flock" and rest:
        rest.pop(0)  # the lock file
        if rest and rest[0].value in ("-c", "--command") and len(rest) > 1:
            if not rest[1].static:
                return Inner(unknown="the script given to `flock -c` is only known when it runs", via=name)
            return Inner(script=rest[1].value, via=name)
    if name == "xargs" and not rest:
        rest = [Word("echo")]
    return Inner(words=tuple(rest), open_ended=name == "xargs", via=name)


def _starts_shell(word: Word) -> bool:
    """`sudo -s`, `-i` (alone or in a cluster), `--shell`, `--login`: a shell, without a command."""
    v = word.value
    if not word.static or not v.startswith("-"):
        return False
    if v.startswith("--"):
        return v in ("--shell", "--login")
    return "s" in v or "i" in v


def _script_c(name: str, words: tuple[Word, ...]) -> Inner:
    """`su -c CMD`, `runuser -u user -- CMD…`, `script -c CMD`; without a command, a shell reads stdin."""
    takes_arg = _SCRIPT_C[name]
    rest = list(words[1:])
    user_given = False
    while rest:
        w = rest.pop(0)
        if not w.static:
            return Inner(unknown=f"an argument of `{name}` is only known when the command runs", via=name)
        v = w.value
        if v == "--":
            break
        key, eq, attached = v.partition("=")
        if key == "--command" or v == "-c" or (v.startswith("-") and not v.startswith("--") and v.endswith("c")):
            if not eq:
                if not rest or not rest[0].static:
                    return Inner(unknown=f"the script given to `{name} -c` is only known when it runs", via=name)
                attached = rest.pop(0).value
            return Inner(script=attached, via=name)
        if v.startswith("-") and len(v) == 2 and v[1] in takes_arg:
            user_given = user_given or v == "-u"
            if rest:
                rest.pop(0)
        elif not v.startswith("-") and name in ("su", "runuser", "sg") and not user_given:
            user_given = True  # the user (or group) operand
        elif not v.startswith("-"):
            rest.insert(0, w)
            break
    if rest and name == "runuser":
        return Inner(words=tuple(rest), via=name)
    return Inner(unknown=f"`{name}` runs a shell the analyzer cannot see into", via=name)


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def _shell(words: tuple[Word, ...]) -> Inner:
    name = os.path.basename(words[0].value)
    rest = list(words[1:])
    has_c = False
    while rest:
        w = rest[0]
        if not w.static:
            what = f"the script given to `{name} -c`" if has_c else f"an argument of `{name}`"
            return Inner(unknown=f"{what} is only known when the command runs", via=name)
        v = w.value
        if v in ("--", "-"):
            rest.pop(0)
            break
        if v in _SHELL_ARG_OPTIONS:
            del rest[:2]  # the option and its argument
            continue
        if v.startswith("--"):
            rest.pop(0)
            continue
        if len(v) > 1 and v[0] in "-+":
            rest.pop(0)
            if v[0] == "-" and "c" in v[1:]:
                has_c = True
            if v[0] in "-+" and v[-1] in "oO" and rest:
                rest.pop(0)  # `-eo pipefail`
            continue
        break
    if has_c:
        if not rest:
            return Inner(via=name)
        if not rest[0].static:
            return Inner(unknown=f"the script given to `{name} -c` is only known when the command runs", via=name)
        return Inner(script=rest[0].value, via=name)
    return Inner(unknown=f"`{name}` reads commands from a file or standard input the analyzer cannot see", via=name)


def _eval(words: tuple[Word, ...]) -> Inner:
    if not all(w.static for w in words[1:]):
        return Inner(unknown="the script given to `eval` is only known when the command runs", via="eval")
    return Inner(script=" ".join(w.value for w in words[1:]), via="eval")


def _find(words: tuple[Word, ...]) -> list[Inner]:
    out: list[Inner] = []
    i = 1
    n = len(words)
    while i < n:
        w = words[i]
        if not w.static and i + 1 < n:
            # a dynamic word could be `-exec` itself
            out.append(Inner(unknown="an argument of `find` is only known when the command runs", via="find"))
        if w.value in _FIND_EXEC:
            j = i + 1
            while j < n and not (words[j].static and words[j].value in (";", "+")):
                j += 1
            cmd = tuple(Word(x.value, False) if "{}" in x.value else x for x in words[i + 1 : j])
            if cmd:
                out.append(Inner(words=cmd, open_ended=True, via=f"find {w.value}"))
            i = j + 1
            continue
        i += 1
    return out


def _watch(words: tuple[Word, ...]) -> list[Inner]:
    rest = list(words[1:])
    while rest and rest[0].static and rest[0].value.startswith("-"):
        opt = rest.pop(0).value
        if opt in ("-n", "-d", "--interval", "-q", "--equexit") and rest:
            rest.pop(0)
    if not rest:
        return []
    if not all(w.static for w in rest):
        return [Inner(unknown="the command given to `watch` is only known when it runs", via="watch")]
    return [Inner(script=" ".join(w.value for w in rest), via="watch")]


def _trap(words: tuple[Word, ...]) -> list[Inner]:
    """`trap 'cmd' SIG…` runs `cmd` later; `trap SIG`, `trap - SIG`, `trap -p` run nothing."""
    rest = list(words[1:])
    if rest and rest[0].value == "--":
        rest.pop(0)
    if len(rest) < 2 or rest[0].value in ("-", "-p", "-l", "-lp", "-pl"):
        return []
    if not rest[0].static:
        return [Inner(unknown="the command given to `trap` is only known when it runs", via="trap")]
    return [Inner(script=rest[0].value, via="trap")]
