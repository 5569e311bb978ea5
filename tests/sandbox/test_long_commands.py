"""Commands and sandboxes larger than the kernel's argv limits (128 KiB per argument,
about 2 MiB in all): the script and bwrap's arguments go through descriptors."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from skawld_core.sandbox import ShellPolicy
from skawld_core.sandbox.spec import SandboxSpec

from .conftest import bash, context, needs_bwrap, text

pytestmark = pytest.mark.timeout(120)


async def test_a_one_megabyte_command_runs(project: Path, any_policy: ShellPolicy) -> None:
    payload = "A" * (1 << 20)
    command = f"x='{payload}'\necho ${{#x}}\necho \"$0\" | wc -l"
    result = text(await bash(context(project, any_policy), command))
    assert result.startswith("1048576\n1\n"), result[:300]


async def test_a_syntax_error_still_reports_and_exits_2(project: Path, any_policy: ShellPolicy) -> None:
    result = text(await bash(context(project, any_policy), "echo before\nif then fi"))
    assert result.startswith("before\n") and "syntax error" in result and result.endswith("exit: 2"), result


class ManyHidden:
    """A spec source hiding thousands of files: bwrap's arguments exceed the argv limit."""

    def __init__(self, files: list[str]) -> None:
        self.files = files

    def sandbox_spec(self, base: SandboxSpec) -> SandboxSpec:
        return replace(base, hidden_files=(*base.hidden_files, *self.files))


def hidden_files(folder: Path, count: int) -> list[str]:
    folder.mkdir(parents=True)
    files = []
    for i in range(count):
        path = folder / f"{i:05d}-{'s' * 240}.env"
        path.write_text("hunter2\n")
        files.append(str(path))
    return files


@needs_bwrap
async def test_bwrap_arguments_beyond_the_argv_limit(project: Path) -> None:
    # paths of about 1,000 characters: 2,500 of them are more than the 2 MiB argv bound
    files = hidden_files(project / ("d" * 240) / ("e" * 240) / ("f" * 240), 2_500)
    assert sum(len(f) for f in files) > 2 * 1024 * 1024
    policy = ShellPolicy(sandbox="required", permissions=ManyHidden(files))
    try:
        result = text(await bash(context(project, policy), f"cat {files[0]} {files[-1]} | wc -c"))
    finally:
        policy.close()
    assert result.startswith("0\n"), result[:300]


@needs_bwrap
async def test_more_hidden_paths_than_bwrap_takes_are_hidden_all_the_same(project: Path) -> None:
    files = hidden_files(project / "many", 3_500)
    policy = ShellPolicy(sandbox="required", permissions=ManyHidden(files))
    try:
        result = await bash(context(project, policy), "cat many/* | wc -c")
    finally:
        policy.close()
    assert not result.is_error
    assert text(result).startswith("0\n"), text(result)[:300]


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def test_no_descriptor_is_left_open(project: Path, any_policy: ShellPolicy) -> None:
    await bash(context(project, any_policy), "true")  # first call: probe, tmp dir, imports
    before = open_fds()
    for _ in range(5):
        await bash(context(project, any_policy), "echo hi")
    await bash(context(project, any_policy), "sleep 30", run_in_background=True)
    await any_policy.end_background()
    await bash(context(project, any_policy), "true")  # the session's network holder (two pipes) again
    assert open_fds() == before


@needs_bwrap
async def test_a_call_past_bwraps_arguments_leaves_no_descriptor_open(project: Path) -> None:
    files = hidden_files(project / "many", 3_100)
    policy = ShellPolicy(sandbox="required", permissions=ManyHidden(files))
    try:
        await bash(context(project, policy), "true")
        before = open_fds()
        assert text(await bash(context(project, policy), "true")).endswith("exit: 0")
        assert open_fds() == before
    finally:
        policy.close()


class Refusing:
    """A spec source that cannot know what to hide."""

    def sandbox_spec(self, base: SandboxSpec) -> SandboxSpec:
        return replace(base, refusal="the files under Read deny rules could not be listed (test)")


@needs_bwrap
async def test_a_spec_that_refuses_stops_the_call(project: Path) -> None:
    policy = ShellPolicy(sandbox="required", permissions=Refusing())
    try:
        before = open_fds()
        result = await bash(context(project, policy), "echo ran > ran.txt")
        assert open_fds() == before
    finally:
        policy.close()
    assert result.is_error and "could not be listed (test)" in text(result)
    assert not (project / "ran.txt").exists()
