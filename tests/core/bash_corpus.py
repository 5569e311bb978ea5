"""A deterministic corpus of Bash commands for the differential test against real bash.

Commands combine wrappers (with their option arguments), quoting and ANSI-C
strings, lists, pipelines, subshells, functions, substitutions, inline scripts
(`bash -c`, `eval`, `env -S`), `find -exec`, `xargs`, redirections, dynamic
command words and globs. Every program is named by a bare name or through
`./bin/` (a link to the shim directory), so real bash can only start shims.
"""

from __future__ import annotations

import random
import re
import shlex

_ABSOLUTE_BIN = re.compile(r"(?<![\w./])/(?:usr/(?:local/)?)?bin/")
_ABSOLUTE_ETC = re.compile(r"(?<![\w./])/etc/")

__all__ = ["DIFF_PROGRAMS", "REAL_WRAPPERS", "generate_corpus", "sanitize"]

# Programs shimmed as "log and exit 0".
DIFF_PROGRAMS = (
    "rm",
    "touch",
    "git",
    "ls",
    "cat",
    "grep",
    "curl",
    "chmod",
    "mv",
    "cp",
    "make",
    "npm",
    "sed",
    "head",
    "wc",
    "sort",
    "date",
    "mkdir",
    "python3",
    "sudo",
    "doas",
)
# Programs shimmed as "log, then run the real program" (which then looks its command up in PATH).
REAL_WRAPPERS = ("env", "nice", "ionice", "nohup", "timeout", "stdbuf", "chrt", "taskset", "xargs", "find", "setsid")

_NAMES = ("rm", "rm", "touch", "git", "ls", "cat", "curl", "chmod", "mv", "make", "npm", "python3")
_ARGS = ("-rf", "x", "'a b'", '"q r"', "-n", "1", "--", "-f", "dist", "-la", "status", "push", "\\-x", "$'y\\tz'")
_WRAPPERS = (
    "nice",
    "nice -n 1",
    "nice -n 5",
    "nice --adjustment=2",
    "nice -10",
    "timeout 5",
    "timeout -s KILL 5",
    "timeout -k 1 5s",
    "timeout --signal=TERM 5",
    "timeout --preserve-status 5",
    "stdbuf -oL",
    "stdbuf -o 0 -e L",
    "stdbuf --output=L",
    "env",
    "env A=1",
    "env -u HOME",
    "env -C .",
    "env --chdir=. B=2",
    "nohup",
    "setsid",
    "ionice -c 3",
    "ionice -c3 -n7",
    "ionice -t -c 2 -n 0",
    "chrt -o 0",
    "chrt -b 0",
    "taskset 0x1",
    "taskset -c 0",
    "exec",
    "exec -a foo",
    "command",
    "command --",
    "time",
    "time -p",
    "sudo",
    "sudo -u root",
    "doas -u root",
    "busybox",
)


def _hex(name: str) -> str:
    return "$'" + "".join(f"\\x{ord(c):02x}" for c in name) + "'"


def _octal(name: str) -> str:
    return "$'" + "".join(f"\\{ord(c):03o}" for c in name) + "'"


def _unicode(name: str) -> str:
    return "$'" + "".join(f"\\u{ord(c):04x}" for c in name) + "'"


def _name_form(rnd: random.Random, name: str) -> str:
    forms = [
        lambda: name,
        lambda: name,
        lambda: name,
        lambda: f"'{name}'",
        lambda: f'"{name}"',
        lambda: f"{name[0]}'{name[1:]}'",
        lambda: f"\\{name}",
        lambda: f"{name[0]}\\{name[1:]}" if len(name) > 1 else name,
        lambda: _hex(name),
        lambda: _octal(name),
        lambda: _unicode(name),
        lambda: f"./bin/{name}",
        lambda: f"./bin/../bin/{name}",
        lambda: f'"./bin/{name}"',
        lambda: f"./bin/{name[:-1]}?",
        lambda: f"./bin/{name[0]}*" if name == "rm" else f"./bin/{name}",
        lambda: f'$"{name}"',
        lambda: f"{name[0]}\\\n{name[1:]}",
        lambda: f"-x\n\\{name}",
        lambda: f"{name[0]}$'{name[1:]}'",
    ]
    return rnd.choice(forms)()


def _simple(rnd: random.Random, depth: int = 0) -> str:
    name = rnd.choice(_NAMES)
    words = [_name_form(rnd, name)] + [rnd.choice(_ARGS) for _ in range(rnd.randint(0, 3))]
    cmd = " ".join(words)
    for _ in range(rnd.choice((0, 0, 1, 1, 2, 3))):
        cmd = f"{rnd.choice(_WRAPPERS)} {cmd}"
    return cmd


def _dynamic(rnd: random.Random) -> str:
    name = rnd.choice(_NAMES)
    return rnd.choice(
        [
            f"c={name}; $c x",
            f'c={name}; "$c" x',
            f"c={name}; ${{c}} -f",
            f"$(echo {name}) x",
            f"`echo {name}` x",
            f"c={name[0]}; ${{c}}{name[1:]} x",
            f"set -- {name}; $1 x",
            f"./bin/{name[:-1]}? x",
            f"nice -n 1 $(echo {name})",
            f"f={name}; sudo $f",
            f"x=({name} y); ${{x[0]}} z",
            f"{{{name},x}}",
            f"{{{name},-f,x}} y",
        ]
    )


_PLAIN = ("ls", "cat", "git status", "echo", "grep x", "wc -l", "head -n 1", "sort")
_PLAIN_ARGS = ("a", "'b c'", '"d"', "$'e'", "-l", "*.txt", "x\\ y", ">/dev/null", "2>&1", "2>/dev/null", "#;rm")
_TRICKS = (
    "rm x",
    "$c",
    "x=1",
    "ls() { rm x; }",
    "(rm x)",
    "echo $(rm x)",
    "> out",
    "cat <in",
    "eval rm",
    "bash -c 'rm x'",
    "xargs rm",
    "nice rm",
)


def _plain(rnd: random.Random) -> str:
    """Lists of commands allow rules name, sometimes with one trick mixed in."""
    parts = []
    for _ in range(rnd.randint(1, 3)):
        name = rnd.choice(_PLAIN)
        first, _, rest = name.partition(" ")
        head = rnd.choice([first, first, f"'{first}'", f"\\{first}", _hex(first)])
        words = [head, rest] + [rnd.choice(_PLAIN_ARGS) for _ in range(rnd.randint(0, 2))]
        parts.append(" ".join(w for w in words if w))
    if rnd.random() < 0.4:
        parts.insert(rnd.randrange(len(parts) + 1), rnd.choice(_TRICKS))
    out = parts[0]
    for part in parts[1:]:
        out += rnd.choice([" && ", " || ", "; ", " | ", "\n"]) + part
    return out


_FRAGMENTS = (
    "rm",
    "touch",
    "ls",
    " ",
    " ",
    "x",
    "'",
    '"',
    "\\",
    "\\\n",
    "\n",
    "#",
    ";",
    "&",
    "|",
    "&&",
    "$(",
    ")",
    "(",
    "`",
    "{ ",
    " }",
    ">",
    "2>&1",
    "<<E\n",
    "\nE\n",
    "$'",
    "\\x72",
    "=",
    "a=",
    "$",
    "nice ",
    "env ",
    "bash -c ",
    "eval ",
    "-n ",
    "\\r",
    "r\\m",
    "t'ouch'",
)


def _fragments(rnd: random.Random) -> str:
    """Random runs of shell fragments: where a parser is most likely to read text differently."""
    return "".join(rnd.choice(_FRAGMENTS) for _ in range(rnd.randint(3, 10)))


def _command(rnd: random.Random, depth: int) -> str:
    if depth > 2:
        return _simple(rnd)
    r = rnd.random()
    if depth == 0 and r < 0.12:
        return _plain(rnd)
    if depth == 0 and r < 0.30:
        return _fragments(rnd)
    r = rnd.random()
    inner = lambda: _command(rnd, depth + 1)  # noqa: E731
    q = shlex.quote
    if r < 0.30:
        return _simple(rnd)
    if r < 0.40:
        op = rnd.choice([" && ", " || ", "; ", " | ", " & ", "\n", " |& "])
        return inner() + op + inner()
    if r < 0.44:
        return f"({inner()})"
    if r < 0.47:
        return f"{{ {inner()}; }}"
    if r < 0.51:
        fname = rnd.choice(["ls", "f", "git", "cat"])
        body = rnd.choice([f"( {inner()} )", f"{{ {inner()}; }}"])
        call = rnd.choice([f"; {fname}", f"; {fname} x", ""])
        head = rnd.choice([f"{fname} () ", f"{fname}() ", f"function {fname} "])
        return f"{head}{body}{call}"
    if r < 0.57:
        sub = rnd.choice(
            [
                "echo $({})",
                "echo `{}`",
                'echo "$({})"',
                "cat <({})",
                "x=$({})",
                "echo ${{x:-$({})}}",
                "echo $(( $({}) + 1 ))",
                "echo > >({})",
                "[[ -n $({}) ]]",
                "export X=$({})",
            ]
        )
        return sub.format(inner())
    if r < 0.65:
        form = rnd.choice(["bash -c {}", "sh -c {}", "bash -lc {}", "bash -o pipefail -c {}", "sh -ec {}", "eval {}"])
        return form.format(q(inner()))
    if r < 0.67:
        return f"eval {_simple(rnd)}"
    if r < 0.70:
        return f"env -S {q(_simple(rnd))}"
    if r < 0.75:
        flag = rnd.choice(["-exec", "-execdir", "-exec", "-ok"])
        end = rnd.choice(["\\;", "';'", "+", '";"'])
        target = rnd.choice([_simple(rnd), "sh -c " + q(_simple(rnd)) + " _"])
        return f"find . -maxdepth 0 {flag} {target} {{}} {end}"
    if r < 0.80:
        opts = rnd.choice(["", "-n 1", "-0", "-r", "-I{}", "-P 2 -n 1", "--max-args=1", "-i"])
        src = rnd.choice(["echo a", "printf 'a\\n'", "ls"])
        return f"{src} | xargs {opts} {_simple(rnd)}"
    if r < 0.85:
        redir = rnd.choice([">/dev/null", "2>&1", ">/dev/null 2>&1", ">out", "2>err", "<in", "&>/dev/null", ">&2"])
        return rnd.choice([f"{inner()} {redir}", f"{redir} {inner()}"])
    if r < 0.88:
        return f"cat <<EOF\n$({inner()})\nEOF"
    if r < 0.91:
        return rnd.choice(
            [
                f"if true; then {inner()}; fi",
                f"for i in 1; do {inner()}; done",
                f"while false; do {inner()}; done; {inner()}",
                f"case a in a) {inner()};; esac",
                f"! {inner()}",
                f"time {{ {inner()}; }}",
                f"! {{ {inner()}; }}",
                f"hash -p ./bin/{rnd.choice(_NAMES)} ls; ls x",
            ]
        )
    if r < 0.93:
        return f"trap {q(_simple(rnd))} EXIT"
    if r < 0.96:
        return _dynamic(rnd)
    return rnd.choice(
        [
            f"{inner()} # ; {inner()}",
            f"{_simple(rnd)} \\\n x",
            f"echo \\ #; {inner()}",
            f"echo $'\\'' ; {inner()}",
        ]
    )


def sanitize(command: str) -> str:
    """Point absolute program paths at the shims and keep every write inside the scratch dir."""
    command = _ABSOLUTE_BIN.sub("./bin/", command)
    return _ABSOLUTE_ETC.sub("./etc/", command)


def generate_corpus(count: int, seed: int = 20261201) -> list[str]:
    """`count` distinct commands, the same for a given seed."""
    rnd = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < count:
        out[_command(rnd, 0)] = None
    return list(out)
