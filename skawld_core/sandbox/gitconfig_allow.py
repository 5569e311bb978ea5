"""Which git config entries are data: the allowlist a config written by a sandboxed command must keep to.

A git config can make git run a program in many ways (`core.fsmonitor`,
`core.hooksPath`, `core.sshCommand`, `filter.*`, `diff.*.textconv`,
`alias.*`, `include.path`, `submodule.*.update = !cmd`, …), and new ones
appear with new git versions, so this is an allowlist: the keys `git init`,
`git clone`, `git submodule`, `git worktree`, `git remote` and `git branch -u`
write, and a few more that only hold data. The file is read by git itself
(`git config --file F --list --null`), so there is no second parser to
disagree with the one that will act on it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable

__all__ = ["config_entries", "config_problems"]

# section -> keys allowed without a subsection
_PLAIN: dict[str, frozenset[str]] = {
    "core": frozenset(
        {
            "repositoryformatversion",
            "filemode",
            "bare",
            "logallrefupdates",
            "ignorecase",
            "precomposeunicode",
            "symlinks",
            "worktree",
            "sparsecheckout",
            "sparsecheckoutcone",
            "autocrlf",
            "eol",
            "safecrlf",
            "untrackedcache",
            "splitindex",
            "commitgraph",
            "multipackindex",
            "checkstat",
            "trustctime",
            "quotepath",
            "abbrev",
            "compression",
            "loosecompression",
            "bigfilethreshold",
            "preloadindex",
            "fsmonitor",  # only a boolean (git's own daemon), see _VALUES
        }
    ),
    "extensions": frozenset(
        {"objectformat", "refstorage", "worktreeconfig", "partialclone", "preciousobjects", "noop"}
    ),
    "user": frozenset({"name", "email"}),
    "init": frozenset({"defaultbranch"}),
    "index": frozenset({"version", "sparse"}),
    "pull": frozenset({"rebase", "ff"}),
    "push": frozenset({"default", "autosetupremote"}),
    "fetch": frozenset({"prune", "prunetags", "recursesubmodules", "writecommitgraph"}),
    "submodule": frozenset({"recurse", "active"}),
    "rerere": frozenset({"enabled", "autoupdate"}),
    "lfs": frozenset({"repositoryformatversion"}),
    "gc": frozenset({"auto", "autodetach"}),
    "maintenance": frozenset({"auto", "strategy"}),
    "clone": frozenset({"defaultremotename"}),
    "feature": frozenset({"manyfiles"}),
}
# section -> keys allowed with any subsection (`remote.<name>.url`)
_SUBSECTION: dict[str, frozenset[str]] = {
    "remote": frozenset(
        {
            "url",
            "pushurl",
            "fetch",
            "push",
            "tagopt",
            "prune",
            "prunetags",
            "mirror",
            "promisor",
            "partialclonefilter",
            "skipdefaultupdate",
            "skipfetchall",
        }
    ),
    "branch": frozenset({"remote", "merge", "rebase", "pushremote", "description"}),
    "submodule": frozenset(
        {"url", "active", "path", "branch", "ignore", "fetchrecursesubmodules", "shallow", "update"}
    ),
    "lfs": frozenset({"access", "locksverify"}),
}
_BOOLEANS = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
# keys whose value can name a program: allowed only with these values
_VALUES: dict[tuple[str, str], frozenset[str]] = {
    ("core", "fsmonitor"): _BOOLEANS,
    ("submodule", "update"): frozenset({"checkout", "rebase", "merge", "none"}),
}


def _problem(key: str, value: str | None) -> str | None:
    section, _, rest = key.partition(".")
    subsection, _, name = rest.rpartition(".")
    allowed = (_SUBSECTION if subsection else _PLAIN).get(section, frozenset())
    if name not in allowed:
        return key
    values = _VALUES.get((section, name))
    if values is not None and (value or "").strip().lower() not in values:
        return f"{key} = {value}"
    return None


def _entries(output: bytes) -> Iterable[tuple[str, str | None]]:
    for record in output.split(b"\0"):
        if not record:
            continue
        key, newline, value = record.decode("utf-8", "replace").partition("\n")
        yield key, value if newline else None


def config_entries(path: str) -> list[tuple[str, str | None]] | str:
    """The entries of the git config file `path` as git reads them (`section[.sub].key`,
    value or None), or why git could not read it."""
    git = shutil.which("git")
    if git is None:
        return "git is not installed to read it"
    env = {"PATH": os.environ.get("PATH", ""), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    try:
        done = subprocess.run(
            [git, "config", "--file", path, "--no-includes", "--list", "--null"],
            cwd="/",
            env=env,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"git could not read it ({exc})"
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"git cannot parse it ({reason[0] if reason else f'exit {done.returncode}'})"
    return list(_entries(done.stdout))


def config_problems(path: str) -> list[str]:
    """The entries of the git config file `path` that are not data (empty: all allowed).
    A file git cannot read counts as one problem, named."""
    entries = config_entries(path)
    if isinstance(entries, str):
        return [entries]
    return [p for p in (_problem(k, v) for k, v in entries) if p is not None]
