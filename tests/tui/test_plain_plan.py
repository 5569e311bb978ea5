"""Plan mode in `--plain`: `/mode plan`, the whole plan printed, approve / keep planning."""

from __future__ import annotations

import pytest

from skawld_core.testing import ScriptedProvider, reply, tool_call
from tests.support.mock_tools import MockWrite

from .test_plain import chat

pytestmark = pytest.mark.timeout(30)

PLAN = "1. Add greet.py\n2. Test it"


async def test_plain_plan_approved_with_accept_edits() -> None:
    provider = ScriptedProvider(
        [
            reply(tool_call("ExitPlanMode", {"plan": PLAN}, id="x")),
            reply(tool_call("MockWrite", {"path": "greet.py"}, id="w")),
            reply("Done."),
        ]
    )
    code, out = await chat(["/mode plan", "plan it", "a", "/mode", "/exit"], provider, [MockWrite()])
    assert code == 0
    assert "? The plan:" in out and "1. Add greet.py\n2. Test it" in out
    assert "? Allow MockWrite" not in out  # acceptEdits after the approval
    assert "permission mode: acceptEdits" in out and "Done." in out


async def test_plain_plan_sent_back_with_feedback() -> None:
    provider = ScriptedProvider([reply(tool_call("ExitPlanMode", {"plan": PLAN}, id="x")), reply("Revising.")])
    code, out = await chat(["/mode plan", "plan it", "n", "use French", "/mode", "/exit"], provider, [MockWrite()])
    assert code == 0
    assert "permission mode: plan" in out.split("Revising.")[-1]
    sent = str(provider.requests[-1].messages[-1].content)
    assert "keep planning" in sent and "use French" in sent
