from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from skawld_core import Agent
from skawld_core.sessions.memory import InMemorySessionStore
from skawld_core.testing import ScriptedProvider
from tests.support.mock_tools import MockAlwaysFail, MockExec, MockRead, MockWrite

MakeAgent = Callable[..., Agent]


@pytest.fixture
def make_agent(tmp_path: Any) -> MakeAgent:
    """An Agent over a ScriptedProvider, mock tools and an in-memory store."""

    def make(provider: ScriptedProvider, **kwargs: Any) -> Agent:
        kwargs.setdefault("model", "test-model")
        kwargs.setdefault("tools", [MockRead(), MockWrite(), MockExec(), MockAlwaysFail()])
        kwargs.setdefault("session_store", InMemorySessionStore())
        kwargs.setdefault("cwd", tmp_path)
        return Agent(provider=provider, **kwargs)

    return make
