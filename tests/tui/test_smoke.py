from __future__ import annotations

import pytest

from skawld_core.testing import reply, text
from skawld_tui.app.widgets.blocks import AssistantMarkdown, UserMessage

from .helpers import SIZE, make_app, ready, run_done, send


@pytest.mark.timeout(30)
async def test_one_turn_streams_and_finishes() -> None:
    app = make_app([reply(text("Hello **world**, this is a streamed answer.", chunk=4))])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await run_done(pilot)
        users = list(app.query(UserMessage))
        assert [u.text for u in users] == ["hi"]
        md = app.query_one(AssistantMarkdown)
        assert md.source == "Hello **world**, this is a streamed answer."
