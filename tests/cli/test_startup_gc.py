"""The console script starts with the garbage collector off and always turns it back on."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core.settings import CliOptions, resolve_settings
from skawld_tui import startup_gc
from skawld_tui.bootstrap import build_agent
from tests.cli.harness import CliEnv

PROBE = """
import gc, sys
from skawld_tui.cli.command import main
sys.argv = ["skawld", *sys.argv[1:]]
code = main()
print(code, gc.isenabled(), gc.get_freeze_count() > 0)
"""


@pytest.fixture
def collector() -> Iterator[None]:
    was = gc.isenabled()
    yield
    startup_gc.resume()
    gc.unfreeze()
    if was:
        gc.enable()


def test_a_start_that_fails_early_still_gets_its_collector_back(cli: CliEnv) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "-p", "   "], env=cli.env, cwd=cli.repo, capture_output=True, text=True
    )
    assert proc.stdout.split() == ["2", "True", "True"], proc.stderr
    assert "the prompt is empty" in proc.stderr


def test_an_embedding_caller_keeps_its_own_collector_state(collector: None) -> None:
    gc.disable()
    startup_gc.resume()  # not paused by us: someone else's choice stays
    assert not gc.isenabled()


async def test_building_the_agent_ends_start_up(collector: None, tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "ANTHROPIC_API_KEY": "sk-test-gc"}
    settings = resolve_settings(CliOptions(cwd=str(tmp_path), model="test-model"), env=env)
    gc.enable()
    startup_gc.pause()
    assert not gc.isenabled()
    agent = build_agent(settings)
    assert gc.isenabled() and gc.get_freeze_count() > 0
    await agent.close()
