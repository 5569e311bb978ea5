"""`base_spec`: the floor every sandboxed call gets, computed from real folders in a
temporary HOME (the bubblewrap tests check that the sandbox enforces it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skawld_core.sandbox.spec import SandboxSpec, base_spec, global_git_config


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    return home


def _spec(cwd: Path, *writable: Path, **flags: bool) -> object:
    return base_spec(
        cwd,
        list(writable),
        network=flags.get("network", False),
        unix_sockets=flags.get("unix_sockets", False),
        tmp_dir=None,
    )


def test_writable_roots_keep_their_agent_config_read_only(home: Path, tmp_path: Path) -> None:
    project, extra = tmp_path / "project", tmp_path / "extra"
    for folder in (project / ".skawld", project / ".claude", extra / ".claude"):
        folder.mkdir(parents=True)
    (project / ".mcp.json").write_text("{}")
    (extra / ".skawld").symlink_to(project / ".skawld")  # a link is not mounted over
    spec = base_spec(project, [extra, project], network=True, unix_sockets=True, tmp_dir=tmp_path)
    assert spec.cwd == project and spec.writable == (project, extra)  # the cwd first, once
    assert spec.read_only == (project / ".skawld", project / ".claude", project / ".mcp.json", extra / ".claude")
    assert spec.network and spec.unix_sockets and spec.tmp_dir == tmp_path and spec.refusal is None


def test_runtime_folders_and_skawld_home_are_emptied(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    for name in ("skills", "agents", "sessions"):
        (home / ".skawld" / name).mkdir(parents=True)
    spec = base_spec(tmp_path, [], network=False, unix_sockets=False, tmp_dir=None)
    assert spec.emptied[0] == "/run"
    assert ("/var/run" in spec.emptied) is (os.path.isdir("/var/run") and not os.path.islink("/var/run"))
    assert str(runtime) in spec.emptied and str(home / ".skawld") in spec.emptied
    assert str(home / ".skawld" / "skills") in spec.kept_read_only
    assert str(home / ".skawld" / "agents") in spec.kept_read_only
    assert str(home / ".skawld" / "sessions") not in spec.kept_read_only
    assert str(home / ".skawld" / "plugins") not in spec.kept_read_only  # only what exists
    assert not spec.network and not spec.unix_sockets


@pytest.mark.parametrize("runtime", ["relative/run", "/no/such/runtime", ""])
def test_a_runtime_dir_that_is_not_an_absolute_folder_is_ignored(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime: str
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
    (tmp_path / "relative" / "run").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    spec = base_spec(tmp_path, [], network=False, unix_sockets=False, tmp_dir=None)
    assert not any(e.endswith("run") and e not in ("/run", "/var/run") for e in spec.emptied), spec.emptied


def test_a_symlinked_skawld_home_is_not_emptied(home: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (home / ".skawld").symlink_to(tmp_path / "elsewhere")
    spec = base_spec(tmp_path, [], network=False, unix_sockets=False, tmp_dir=None)
    assert str(home / ".skawld") not in spec.emptied


def test_programs_under_run_on_path_are_kept(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    existing = sorted(p for p in os.listdir("/run") if os.path.isdir(os.path.join("/run", p)))
    if not existing:
        pytest.skip("/run has no folder here")
    top = existing[0]
    monkeypatch.setenv("PATH", os.pathsep.join([f"/run/{top}/sw/bin", "/run", "/usr/bin", f"/run/{top}/x"]))
    spec = base_spec(tmp_path, [], network=False, unix_sockets=False, tmp_dir=None)
    assert spec.kept_read_only.count(f"/run/{top}") == 1  # kept once, and `/run` itself never
    assert "/run" not in spec.kept_read_only
    monkeypatch.setenv("PATH", "/run/no-such-folder-here/bin")
    assert (
        "/run/no-such-folder-here"
        not in base_spec(tmp_path, [], network=False, unix_sockets=False, tmp_dir=None).kept_read_only
    )


def test_path_entries_never_keep_run_itself(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    existing = sorted(p for p in os.listdir("/run") if os.path.isdir(os.path.join("/run", p)))
    if not existing:
        pytest.skip("/run has no folder here")
    top = existing[0]
    monkeypatch.setenv("PATH", os.pathsep.join(["/run/", "/run//", "/run/../etc", f"/run//{top}/bin", "/run/./"]))
    spec = base_spec(tmp_path, [], network=False, unix_sockets=False, tmp_dir=None)
    assert [k for k in spec.kept_read_only if k.startswith("/run")] == [f"/run/{top}"]


def test_a_spec_has_no_network_and_no_unix_sockets_unless_given(tmp_path: Path) -> None:
    spec = SandboxSpec(cwd=tmp_path, writable=(tmp_path,))
    assert spec.network is False and spec.unix_sockets is False  # fail closed


def test_an_existing_xdg_git_folder_is_kept(home: Path) -> None:
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "config").write_text("[core]\n")
    assert global_git_config(home, [home]) == [home / ".gitconfig", home / ".config" / "git"]
    assert (home / ".config" / "git" / "config").read_text() == "[core]\n"


def test_global_git_config_inside_a_root_is_created_and_kept_read_only(home: Path) -> None:
    spec = base_spec(home, [], network=False, unix_sockets=False, tmp_dir=None)
    assert (home / ".gitconfig").is_file() and (home / ".config" / "git").is_dir()
    assert home / ".gitconfig" in spec.read_only and home / ".config" / "git" in spec.read_only


def test_global_git_config_outside_the_roots_is_left_alone(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert global_git_config(home, [project]) == []
    assert not (home / ".gitconfig").exists() and not (home / ".config").exists()
    assert global_git_config(None, [home]) == []


def test_global_git_config_follows_xdg_and_keeps_existing_files(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    (home / ".gitconfig").write_text("[user]\n\tname = me\n")
    found = global_git_config(home, [home, tmp_path])
    assert found == [home / ".gitconfig", xdg / "git"]
    assert (home / ".gitconfig").read_text() == "[user]\n\tname = me\n"  # not truncated
    assert (xdg / "git").is_dir()
    assert global_git_config(home, [home]) == [home / ".gitconfig"]  # the XDG folder is outside


def test_a_git_config_that_cannot_be_created_is_skipped(home: Path) -> None:
    (home / ".config").write_text("a file where a folder should be")
    assert global_git_config(home, [home]) == [home / ".gitconfig"]
