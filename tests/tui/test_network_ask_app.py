"""The app asks "allow network access to NAME?" when a sandboxed Bash command (real
bubblewrap, real curl) asks skawld's proxy for a name `allowedDomains` leaves out: once
lets the request through and opens the name for the session, always saves
`WebFetch(domain:NAME)` to .claude/settings.local.json and the next call is not asked,
no refuses with the setting named. The name maps to a local server through the proxy's
test resolver (`ShellPolicy.proxy_resolve`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skawld_core.messages import ToolResultBlock
from skawld_core.testing import reply, text, tool_call
from skawld_core.tools.bash import BashTool
from skawld_tui.app.screens.network_ask import NetworkAskScreen
from skawld_tui.app.widgets.blocks import NoteLine
from tests.sandbox.conftest import needs_bwrap
from tests.sandbox.test_domain_proxy import _serve

from .helpers import SIZE, make_app, ready, run_done, send, until

pytestmark = [pytest.mark.timeout(90), needs_bwrap]


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    yield from _serve()


def _app(project: Path, port: int, *turns: Any) -> Any:
    return make_app(
        list(turns),
        tools=[BashTool()],
        mode="yolo",
        cwd=project,
        sandbox={"mode": "required", "network": False, "allowed_domains": ["pkgs.test"]},
    )


def _curl(port: int, id: str) -> Any:
    return reply(tool_call("Bash", {"command": f"curl -sS http://ask.test:{port}/"}, id=id))


def _results(app: Any) -> list[str]:
    return [
        str(block.content)
        for request in app.test_provider.requests
        for message in request.messages
        if isinstance(message.content, list)
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


async def _start(pilot: Any) -> None:
    await ready(pilot)
    await until(lambda: pilot.app.agent is not None, pilot)
    pilot.app.agent.shell_policy.proxy_resolve["ask.test"] = "127.0.0.1"


async def test_once_lets_the_request_through_for_the_session(tmp_path: Path, port: int) -> None:
    app = _app(tmp_path, port, _curl(port, "b1"), _curl(port, "b2"), reply(text("done")))
    async with app.run_test(size=SIZE) as pilot:
        await _start(pilot)
        await send(pilot, "fetch it")
        await until(lambda: isinstance(app.screen, NetworkAskScreen), pilot, timeout=30)
        assert app.screen.host == "ask.test"
        await pilot.press("y")
        await run_done(pilot)
        results = _results(app)
        assert results[0].startswith(f"hello from ask.test:{port}"), results
        assert results[-1].startswith(f"hello from ask.test:{port}"), results  # b2 was not asked
        assert app.state.asks_done == 1
        assert not (tmp_path / ".claude" / "settings.local.json").exists()


async def test_always_saves_the_rule_and_the_next_call_is_not_asked(tmp_path: Path, port: int) -> None:
    app = _app(tmp_path, port, _curl(port, "b1"), reply(text("ok")), _curl(port, "b2"), reply(text("again")))
    async with app.run_test(size=SIZE) as pilot:
        await _start(pilot)
        await send(pilot, "fetch it")
        await until(lambda: isinstance(app.screen, NetworkAskScreen), pilot, timeout=30)
        await pilot.press("a")
        await run_done(pilot)
        saved = json.loads((tmp_path / ".claude" / "settings.local.json").read_text())
        assert saved == {"permissions": {"allow": ["WebFetch(domain:ask.test)"]}}
        notes = [str(n.render()) for n in app.query(NoteLine)]
        assert any("always allowed in this project: WebFetch(domain:ask.test)" in n for n in notes), notes
        assert app.agent.shell_policy.domains.verdict("ask.test") == "allow"  # the rule is live
        await send(pilot, "again")
        await run_done(pilot, runs=2)
        results = _results(app)
        assert results[-1].startswith(f"hello from ask.test:{port}"), results
        assert app.state.asks_done == 1


async def test_no_refuses_and_names_the_setting(tmp_path: Path, port: int) -> None:
    app = _app(tmp_path, port, _curl(port, "b1"), reply(text("refused")))
    async with app.run_test(size=SIZE) as pilot:
        await _start(pilot)
        await send(pilot, "fetch it")
        await until(lambda: isinstance(app.screen, NetworkAskScreen), pilot, timeout=30)
        await pilot.press("n")
        await run_done(pilot)
        result = _results(app)[-1]
        assert "hello" not in result
        assert "network access to ask.test: the user said no (sandbox.network.allowedDomains" in result


async def test_a_homograph_is_shown_as_punycode_with_its_unicode_beside(tmp_path: Path, port: int) -> None:
    """`pypі.test` (Cyrillic і) reads as the listed `pypi.test`: the question names its punycode."""
    curl = reply(tool_call("Bash", {"command": f"curl -sS -x $ALL_PROXY http://pypі.test:{port}/"}, id="b1"))
    app = _app(tmp_path, port, curl, reply(text("done")))
    async with app.run_test(size=SIZE) as pilot:
        await _start(pilot)
        pilot.app.agent.shell_policy.proxy_resolve["xn--pyp-lhd.test"] = "127.0.0.1"
        await send(pilot, "fetch it")
        await until(lambda: isinstance(app.screen, NetworkAskScreen), pilot, timeout=30)
        assert app.screen.host == "xn--pyp-lhd.test (Unicode: pyp\u0456.test)"
        assert app.screen.rule == "WebFetch(domain:xn--pyp-lhd.test)"
        await pilot.press("n")
        await run_done(pilot)
