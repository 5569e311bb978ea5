"""Permission answers that stick: the user's "always allow" rules, saved for the project.

Where they go: ``permissions.allow`` of the project's ``.claude/settings.local.json``,
in Claude Code's rule syntax (``Bash(npm run test:*)``, ``Edit(src/**)``), the file
Claude Code itself writes its local answers to and that skawld already reads
(`skawld_core.claude_settings`). Other keys of that file are kept as they are; the
file is replaced atomically.

Why they need no trust prompt: a project file is untrusted (a cloned repository
may ship it), so an allow rule in it widens nothing until the user accepts the
project. Rules written by the answer dialog are the user's own, so each one is
also recorded in ``~/.skawld/remembered-rules.json`` (keyed by the settings file's
absolute path). When the loader reads the local settings file, allow rules listed
there for that file are exempt from the trust gate and from the trust digest
(`gated_document`); every other rule of the file (one a repository shipped, or one
edited in by hand) is gated as before. A repository cannot write into the user's
home, so it cannot pre-approve its own rules.

Keeping it out of git: when the project is in a git repository and the file is
not ignored yet, ``/<path>/.claude/settings.local.json`` is appended to the
repository's top-level ``.gitignore``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..config_files import read_config_file, user_config_dir
from ..errors import ConfigError
from ..tools.atomic_write import atomic_write_bytes
from .claude_rules import parse_claude_rule

__all__ = [
    "LOCAL_SETTINGS_FILE",
    "LEDGER_NAME",
    "forget_allow_rule",
    "gated_document",
    "gated_settings",
    "ignore_in_git",
    "ledger_path",
    "local_settings_path",
    "remember_allow_rules",
    "remembered_rules",
]

LOCAL_SETTINGS_FILE = Path(".claude") / "settings.local.json"
LEDGER_NAME = "remembered-rules.json"


def ledger_path(env: Mapping[str, str] | None = None) -> Path:
    """``~/.skawld/remembered-rules.json``: which allow rules the user saved, per settings file."""
    return user_config_dir(env) / LEDGER_NAME


def local_settings_path(project_root: str | os.PathLike[str]) -> Path:
    """The project's ``.claude/settings.local.json`` (absolute, resolved)."""
    return (Path(project_root) / LOCAL_SETTINGS_FILE).resolve()


def _read_json(path: Path) -> object | None:
    try:
        data: object = json.loads(path.read_text(encoding="utf-8"))
        return data
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError):
        return None


def _ledger(env: Mapping[str, str] | None) -> dict[str, list[str]]:
    data = _read_json(ledger_path(env))
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {
        str(k): [r for r in v if isinstance(r, str)]
        for k, v in files.items()
        if isinstance(k, str) and isinstance(v, list)
    }


def _write_json(path: Path, doc: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def remembered_rules(settings_file: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> frozenset[str]:
    """The allow rules the user saved through skawld into `settings_file`."""
    return frozenset(_ledger(env).get(str(Path(settings_file).resolve()), []))


def gated_document(raw: object, remembered: Iterable[str]) -> object:
    """`raw` (a settings file's JSON) without the user's remembered allow rules.

    This is what the trust gate looks at and hashes: empty containers left behind
    are dropped, so a file holding only remembered rules gates nothing.
    """
    keep = frozenset(remembered)
    if not isinstance(raw, dict):
        return raw
    perms = raw.get("permissions")
    if not isinstance(perms, dict) or not isinstance(perms.get("allow"), list):
        return raw
    allow = [r for r in perms["allow"] if not (isinstance(r, str) and r in keep)]
    out_perms = {k: v for k, v in perms.items() if k != "allow"}
    if allow:
        out_perms["allow"] = allow
    out = {k: v for k, v in raw.items() if k != "permissions"}
    if out_perms:
        out["permissions"] = out_perms
    return out


def gated_settings(raw: object, path: Path, env: Mapping[str, str] | None = None) -> tuple[object, str | None]:
    """A project settings file's JSON (`raw`, read from `path`) as the trust gate sees it:
    without the user's remembered allow rules, and its digest (None when nothing is left to gate).

    The digest is the SHA-256 of the canonical JSON, so saving or removing a remembered
    rule leaves it unchanged and an accepted project stays accepted.
    """
    gated = gated_document(raw, remembered_rules(path, env))
    if gated == {}:
        return gated, None
    canonical = json.dumps(gated, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return gated, hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _read_settings(path: Path) -> dict[str, Any]:
    raw = read_config_file(path)
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"Invalid Claude Code settings in {path}: expected a JSON object")
    perms = raw.get("permissions", {})
    if not isinstance(perms, dict):
        raise ConfigError(f"Invalid Claude Code settings in {path} (/permissions): expected an object")
    allow = perms.get("allow", [])
    if not isinstance(allow, list):
        raise ConfigError(f"Invalid Claude Code settings in {path} (/permissions/allow): expected rule strings")
    return raw


def remember_allow_rules(
    project_root: str | os.PathLike[str], rules: Iterable[str], *, env: Mapping[str, str] | None = None
) -> Path:
    """Append `rules` (Claude Code rule strings) to the project's local settings and record them.

    Each rule is checked with `parse_claude_rule` first (a `ConfigError` names a bad
    one and nothing is written). Rules already present are not repeated. Returns the
    settings file written. Raises `ConfigError` when the existing file is malformed.
    """
    new = list(dict.fromkeys(rules))
    for rule in new:
        try:
            parsed = parse_claude_rule(rule, "allow")
        except ValueError as exc:
            raise ConfigError(f"Cannot remember {rule!r}: {exc}") from None
        if not parsed.rules:
            raise ConfigError(f"Cannot remember {rule!r}: {'; '.join(parsed.notes) or 'it allows nothing'}")
    path = local_settings_path(project_root)
    doc = _read_settings(path)
    perms = dict(doc.get("permissions", {}))
    allow = list(perms.get("allow", []))
    allow += [r for r in new if r not in allow]
    perms["allow"] = allow
    doc = {**doc, "permissions": perms}
    _write_json(path, doc)
    ledger = _ledger(env)
    saved = ledger.setdefault(str(path), [])
    saved += [r for r in new if r not in saved]
    _write_json(ledger_path(env), {"version": 1, "files": ledger})
    ignore_in_git(path)
    return path


def forget_allow_rule(project_root: str | os.PathLike[str], rule: str, *, env: Mapping[str, str] | None = None) -> bool:
    """Remove `rule` from the local settings' ``permissions.allow`` and from the record.

    Returns False when the file does not hold that rule (nothing is written).
    """
    path = local_settings_path(project_root)
    doc = _read_settings(path)
    perms = dict(doc.get("permissions", {}))
    allow = list(perms.get("allow", []))
    if rule not in allow:
        return False
    perms["allow"] = [r for r in allow if r != rule]
    _write_json(path, {**doc, "permissions": perms})
    ledger = _ledger(env)
    if rule in ledger.get(str(path), []):
        ledger[str(path)] = [r for r in ledger[str(path)] if r != rule]
        _write_json(ledger_path(env), {"version": 1, "files": ledger})
    return True


def ignore_in_git(path: Path) -> bool:
    """Append `path` to its git repository's top-level ``.gitignore`` unless git ignores it already.

    Does nothing outside a git repository or without git. Returns whether it wrote.
    """

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], check=False, capture_output=True, text=True, timeout=10, cwd=path.parent)

    try:
        top = git("rev-parse", "--show-toplevel")
        if top.returncode != 0:
            return False
        ignored = git("check-ignore", "-q", str(path))
    except (OSError, subprocess.SubprocessError):
        return False
    if ignored.returncode != 1:  # 0: already ignored; 128: git could not tell
        return False
    root = Path(top.stdout.strip()).resolve()
    try:
        entry = "/" + path.relative_to(root).as_posix()
    except ValueError:
        return False
    gitignore = root / ".gitignore"
    try:
        existing = gitignore.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = ""
    except OSError:
        return False
    sep = "" if not existing or existing.endswith("\n") else "\n"
    text = f"{existing}{sep}# skawld: your own permission answers stay out of git\n{entry}\n"
    atomic_write_bytes(gitignore, text.encode("utf-8"))
    return True
