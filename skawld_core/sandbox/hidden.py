"""Which files and folders the sandbox hides: those a Read deny rule covers.

Each pattern's literal base is listed once per process by the shared file index
(`skawld_core.file_index`), watched for changes, and re-listed only where
something changed, so a denied file created by one Bash call (or by the user)
is hidden from the next. Every entry counts: hidden, gitignored and vendored
ones too, with no size limit. An entry a pattern matches is confirmed with the
permission engine's own answer (so rule order and allow rules count), and what
is denied is hidden; a denied folder is hidden whole. A folder that cannot be
listed is hidden whole when a pattern could match inside it, and when the set
cannot be computed at all the call is refused (`HiddenPaths.refusal`).
Negated patterns (`!src/**`) are not expanded.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..file_index.deny import DenyPattern, DenyView, under
from ..file_index.registry import shared_tree
from ..globs import PATH_RULE, compile_glob

__all__ = ["HiddenPaths", "hidden_paths", "static_base"]

_GLOB_CHARS = frozenset("*?[{\\")
_MAX_VIEWS = 32


@dataclass
class HiddenPaths:
    """Files to cover with an empty file, folders to cover with an empty tmpfs.

    `unreadable` names the folders among `dirs` hidden because they could not
    be listed (with the reason); `refusal` is set when the set could not be
    computed, and the call must not run.
    """

    files: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)
    refusal: str | None = None


def _anchored(pattern: str, root: Path) -> str:
    if pattern.startswith("~"):
        pattern = os.path.expanduser(pattern)
    if pattern.startswith("/"):
        return pattern
    rel = pattern[2:] if pattern.startswith("./") else pattern
    return str(root).rstrip("/") + "/" + rel


def static_base(pattern: str, root: Path) -> Path | None:
    """The literal leading directory of a glob pattern, absolute; None for a negation."""
    if pattern.startswith("!"):
        return None
    literal: list[str] = []
    for part in _anchored(pattern, root).split("/"):
        if any(c in _GLOB_CHARS for c in part):
            break
        literal.append(part)
    return Path("/".join(literal) or "/")


def _inside(path: str, directory: str) -> bool:
    return (path.rstrip("/") + "/").startswith(directory.rstrip("/") + "/")


_views: OrderedDict[tuple[str, tuple[DenyPattern, ...]], tuple[DenyView, object]] = OrderedDict()
_views_lock = threading.Lock()


def _view(tree_root: str, patterns: tuple[DenyPattern, ...], denied: Callable[[str], bool], key: object) -> DenyView:
    """The cached view of `patterns` over the shared tree of `tree_root`."""
    tree = shared_tree(tree_root)
    with _views_lock:
        cached = _views.get((tree_root, patterns))
        if cached is not None and cached[0].tree is tree:
            view, old_key = cached
            _views.move_to_end((tree_root, patterns))
            if old_key != key:
                view.reset(denied)
            view.denied = denied
        else:
            if cached is not None:
                cached[0].close()
            view = DenyView(tree, patterns, denied)
        _views[(tree_root, patterns)] = (view, key)
        while len(_views) > _MAX_VIEWS:
            _, (old, _) = _views.popitem(last=False)
            old.close()
        return view


def hidden_paths(
    patterns: Iterable[str], root: Path, denied: Callable[[Path], bool], rules_key: object = None
) -> HiddenPaths:
    """What `denied` confirms among the entries the deny `patterns` match.

    `rules_key` stands for what `denied` answers from (the rules): when it
    changes, every candidate is asked again; otherwise only entries of folders
    that changed are.
    """
    check: Callable[[str], bool] = lambda path: denied(Path(path))  # noqa: E731
    groups: dict[str, list[DenyPattern]] = {}
    direct: list[DenyPattern] = []
    project = str(root)
    for p in patterns:
        base = static_base(p, root)
        if base is None:
            continue
        pattern = DenyPattern(_anchored(p, root), str(base))
        if _inside(pattern.base, project) and os.path.isdir(project):
            groups.setdefault(project, []).append(pattern)
        elif os.path.isdir(pattern.base) and not os.path.islink(pattern.base):
            groups.setdefault(pattern.base, []).append(pattern)
        else:
            direct.append(pattern)
    out = HiddenPaths()
    try:
        for tree_root, members in groups.items():
            found = _view(tree_root, tuple(members), check, rules_key).hidden()
            out.files += found.files
            out.dirs += found.dirs
            out.unreadable.update(found.unreadable)
    except (OSError, RuntimeError) as exc:
        return HiddenPaths(refusal=f"the files under Read deny rules could not be listed ({exc})")
    for pattern in direct:  # a single file or a folder that does not exist (yet)
        path = pattern.base
        if os.path.lexists(path) and compile_glob(pattern.glob, PATH_RULE).match(path) and check(path):
            (out.dirs if os.path.isdir(path) and not os.path.islink(path) else out.files).append(path)
    if len(groups) + len(direct) > 1:  # trees may overlap: cover each path once, by its topmost folder
        dirs = set(out.dirs)
        out.dirs = sorted(d for d in dirs if not under(d, dirs))
        out.files = sorted({f for f in out.files if not under(f, dirs)})
    return out
