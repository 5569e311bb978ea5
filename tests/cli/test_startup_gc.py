"""The console script starts with the garbage collector off and always turns it back on."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core.sessions import rows
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
    was, owned = gc.isenabled(), startup_gc._owned
    yield
    startup_gc.resume()
    startup_gc._owned = owned  # `pause` claims the process; the tests after this one are not the console script
    rows.freeze_loaded_history(False)
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
    assert rows._freeze_loaded  # the console script's process: loaded histories join the frozen heap
    await agent.close()


async def test_building_the_agent_in_process_leaves_the_callers_policy(collector: None, tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "ANTHROPIC_API_KEY": "sk-test-gc"}
    settings = resolve_settings(CliOptions(cwd=str(tmp_path), model="test-model"), env=env)
    startup_gc._owned = False  # as in an embedding program (or a test) that never ran the console script
    agent = build_agent(settings)
    assert not rows._freeze_loaded
    await agent.close()


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_idle_collection_frees_frozen_garbage_only_once_the_frozen_heap_grew(collector: None) -> None:
    gc.enable()
    startup_gc.collect_idle()  # the baseline full pass
    young = Cycle()
    young_ref = weakref.ref(young)
    del young
    assert startup_gc.collect_idle() is False  # a pass over what was allocated since
    assert young_ref() is None
    frozen = Cycle()
    frozen_ref = weakref.ref(frozen)
    gc.freeze()
    del frozen
    assert startup_gc.collect_idle() is False
    assert frozen_ref() is not None  # frozen garbage waits for a full pass
    ballast = [Cycle() for _ in range(gc.get_freeze_count())]  # the heap doubles
    assert startup_gc.collect_idle() is False  # ... and is frozen
    assert frozen_ref() is not None
    assert startup_gc.collect_idle() is True
    assert frozen_ref() is None
    del ballast
