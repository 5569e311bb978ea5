"""Which git dirs and files the sandbox keeps data (`skawld_core.sandbox.gitdirs`), on real
folders laid out as git lays them out; no sandbox needed. The attacks through a real
sandbox are in test_git_confined.py and test_attack_git.py."""

from __future__ import annotations

import os
from pathlib import Path

from skawld_core.sandbox.gitdirs import git_dir_of, git_mounts, reachable_git_dirs, sweep_created


def git_dir(path: Path, *, common: str | None = None) -> Path:
    """A folder git takes for a git dir: HEAD and objects/ (or a commondir file instead)."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "HEAD").write_text("ref: refs/heads/main\n")
    if common is None:
        (path / "objects").mkdir(exist_ok=True)
    else:
        (path / "commondir").write_text(common + "\n")
    return path


def project(tmp_path: Path, config: str = "") -> tuple[Path, Path]:
    work = tmp_path / "work"
    gd = git_dir(work / ".git")
    (gd / "config").write_text(config)
    return work, gd


def test_a_submodules_git_dir_is_found_under_modules_and_a_half_made_one_is_not(tmp_path: Path) -> None:
    top = git_dir(tmp_path / "top")
    real = git_dir(top / "modules" / "libs" / "inner")  # a name with a slash
    half = top / "modules" / "notes"
    half.mkdir(parents=True)
    (half / "HEAD").write_text("x")  # HEAD alone: not a git dir
    nested = git_dir(half / "deeper")
    dirs, _ = reachable_git_dirs([top])
    assert set(dirs) == {top, real, nested}


def test_linked_worktrees_are_reached_but_a_symlink_in_worktrees_is_not_followed(tmp_path: Path) -> None:
    top = git_dir(tmp_path / "top")
    linked = git_dir(top / "worktrees" / "feature", common="../..")
    elsewhere = git_dir(tmp_path / "elsewhere")
    (top / "worktrees" / "planted").symlink_to(elsewhere)
    dirs, _ = reachable_git_dirs([top])
    assert linked in dirs and top in dirs
    assert elsewhere not in dirs


def test_a_linked_worktrees_common_dir_is_reached_from_it(tmp_path: Path) -> None:
    top = git_dir(tmp_path / "top")
    linked = git_dir(top / "worktrees" / "feature", common="../..")
    dirs, _ = reachable_git_dirs([linked])
    assert Path(os.path.realpath(top)) in dirs


def test_a_submodule_without_a_config_is_still_reached(tmp_path: Path) -> None:
    top = git_dir(tmp_path / "top")
    module = git_dir(top / "modules" / "m")
    files: list[Path] = []
    dirs, found = reachable_git_dirs([top], files)
    assert module in dirs and found == []


def test_a_submodules_dot_git_file_is_found_from_its_worktree_setting(tmp_path: Path) -> None:
    top = git_dir(tmp_path / "work" / ".git")
    module = git_dir(top / "modules" / "m")
    (tmp_path / "work" / "m").mkdir()
    (tmp_path / "work" / "m" / ".git").write_text("gitdir: ../.git/modules/m\n")
    (module / "config").write_text("[core]\n\tworktree = ../../../m\n")
    _, files = reachable_git_dirs([top])
    assert files == [tmp_path / "work" / "m" / ".git"]


def test_a_dot_git_file_that_names_no_git_dir_stands_for_none(tmp_path: Path) -> None:
    (tmp_path / "empty").write_text("")
    (tmp_path / "other").write_text("not a pointer\n")
    (tmp_path / "ok").write_text("gitdir: sub/.git\n")
    assert git_dir_of(tmp_path / "empty") is None
    assert git_dir_of(tmp_path / "other") is None
    assert git_dir_of(tmp_path / "ok") == tmp_path / "sub" / ".git"
    assert git_dir_of(tmp_path / "missing") is None


def test_a_hooks_path_and_included_configs_in_the_work_tree_are_read_only(tmp_path: Path) -> None:
    work, gd = project(
        tmp_path,
        "[core]\n\thooksPath = tools/hooks\n"
        '[include]\n\tpath = "../shared.cfg"\n'
        '[includeIf "gitdir:~/x/"]\n\tpath = extra.cfg\n',
    )
    (work / "tools" / "hooks").mkdir(parents=True)
    (work / "shared.cfg").write_text("")
    (gd / "extra.cfg").write_text("")
    read_only = set(git_mounts([work]).read_only)
    assert {str(work / "tools" / "hooks"), str(work / "shared.cfg"), str(gd / "extra.cfg")} <= read_only


def test_keys_of_other_sections_are_not_taken_for_hook_or_include_paths(tmp_path: Path) -> None:
    work, _ = project(tmp_path, "[alias]\n\tpath = decoy-a\n[user]\n\thookspath = decoy-b\n[core]\n\tpath = decoy-c\n")
    for name in ("decoy-a", "decoy-b", "decoy-c"):
        (work / name).mkdir()
    read_only = git_mounts([work]).read_only
    assert not [p for p in read_only if "decoy" in p], read_only


def test_a_husky_hooks_folder_makes_the_folder_above_it_read_only(tmp_path: Path) -> None:
    work, _ = project(tmp_path, "[core]\n\thooksPath = .husky/_\n")
    (work / ".husky" / "_").mkdir(parents=True)
    read_only = git_mounts([work]).read_only
    assert str(work / ".husky" / "_") in read_only and str(work / ".husky") in read_only


def test_a_config_that_is_a_link_has_its_target_made_read_only(tmp_path: Path) -> None:
    work, gd = project(tmp_path)
    (gd / "config").unlink()
    (work / "cfg").write_text("[core]\n")
    (gd / "config").symlink_to(work / "cfg")
    mounts = git_mounts([work])
    assert str(work / "cfg") in mounts.read_only
    assert str(gd / "config") not in mounts.read_only


def test_missing_hooks_and_info_are_made_empty_and_the_unmakeable_names_watched(tmp_path: Path) -> None:
    work, gd = project(tmp_path)
    mounts = git_mounts([work])
    assert (gd / "hooks").is_dir() and not any((gd / "hooks").iterdir())
    assert {str(gd / "hooks"), str(gd / "info"), str(gd / "config")} <= set(mounts.read_only)
    assert set(mounts.watched) == {str(gd / "commondir"), str(gd / "config.worktree")}
    assert mounts.mount_points == (str(gd),)


def test_sweep_removes_what_the_command_created_files_folders_and_links(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "precious").write_text("x")
    as_file, as_dir, as_link = tmp_path / "commondir", tmp_path / "config.worktree", tmp_path / "w" / "commondir"
    as_file.write_text("../..\n")
    as_dir.mkdir()
    (as_dir / "inside").write_text("x")
    as_link.parent.mkdir()
    as_link.symlink_to(kept)
    never = tmp_path / "never-made"
    removed = sweep_created([str(as_file), str(as_dir), str(as_link), str(never)])
    assert removed == [str(as_file), str(as_dir), str(as_link)]
    assert not os.path.lexists(as_file) and not os.path.lexists(as_dir) and not os.path.lexists(as_link)
    assert (kept / "precious").exists(), "a link is removed, not what it points at"
