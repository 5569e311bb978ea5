"""`@server:uri` completion in the app against a real stdio MCP server (tests/fixtures/
mcp_fixture_server.py, the `mcp` package's MCPServer): the server's resources are `@`
candidates, the chosen one is attached, and a resource the server adds later (it sends
`resources/list_changed`) becomes a candidate without a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp_support import fixture_entry

from skawld_core.testing import reply, tool_call
from skawld_tui.app.widgets.blocks import NoteLine
from tests.tui.helpers import SIZE, make_app, run_done, until

pytestmark = pytest.mark.timeout(90)


def candidates(app: Any) -> list[str]:
    return [str(o.id) for o in app.completions._options] if app.completions.display else []


async def clear_prompt(pilot: Any) -> None:
    pilot.app.prompt.clear()
    await pilot.pause()


async def test_resources_are_at_candidates_and_refresh_on_list_changed(tmp_path: Path) -> None:
    app = make_app(
        [reply(tool_call("mcp__fx__add_note", {"name": "todo"}, id="n")), reply("noted"), reply("read it")],
        cwd=tmp_path,
        mode="yolo",
        mcp_servers={"fx": fixture_entry()},
    )
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session_ready.is_set(), pilot, timeout=60)
        manager = app.agent.extensions.mcp
        await until(lambda: manager is not None and manager.connections["fx"].status == "ready", pilot, timeout=60)

        await pilot.press(*"see @fx:")
        await until(lambda: "@fx:note://hello" in candidates(app), pilot, timeout=30)
        assert "@fx:note://todo" not in candidates(app)
        await clear_prompt(pilot)

        # the model makes the server add a resource; the server says its list changed
        await pilot.press(*"add a note", "enter")
        await run_done(pilot)
        await until(lambda: manager.changes.get("fx:resources", 0) >= 1, pilot, timeout=30)

        await pilot.press(*"read @todo")  # matched inside the uri, not only by its start
        await until(lambda: candidates(app) == ["@fx:note://todo"], pilot, timeout=30)
        await pilot.press("tab")
        assert app.prompt.text == "read @fx:note://todo "
        await pilot.press("enter")
        await run_done(pilot)
        assert any("attached fx:note://todo" in str(n.render()) for n in app.query(NoteLine))
        sent = app.test_provider.requests[-1].messages[-1]  # what the model got with the prompt
        assert "NOTE todo" in str(sent.content)
        await app.agent.close()
