"""The app against the local wire-format server with the real Anthropic provider."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from textual.widgets import OptionList

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:  # make `tests.support` importable under plain `pytest`
    sys.path.insert(0, _ROOT)

from skawld_core.providers import AnthropicProvider  # noqa: E402
from skawld_tui.app.screens.permission import PermissionScreen  # noqa: E402
from skawld_tui.app.widgets.blocks import AssistantMarkdown  # noqa: E402
from skawld_tui.app.widgets.tool_panel import ToolPanel  # noqa: E402
from skawld_tui.commands.choice_screen import ChoiceScreen  # noqa: E402
from tests.support.mock_tools import MockExec, MockRead  # noqa: E402
from tests.support.wire_server import WireServer, text, tool_call, turn  # noqa: E402

from .helpers import SIZE, make_app, ready, run_done, send, until  # noqa: E402


@pytest.mark.timeout(60)
@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
async def test_real_anthropic_provider_streams_tools_and_permissions() -> None:
    with WireServer() as srv:
        srv.anthropic.enqueue(
            turn(
                text("Reading both files, then running.", chunk_size=5),
                tool_call("MockRead", {"path": "a.txt"}, id="toolu_a"),
                tool_call("MockRead", {"path": "b.txt"}, id="toolu_b"),
                stop="tool_use",
            ),
            turn(tool_call("MockExec", {"path": "make"}, id="toolu_x"), stop="tool_use"),
            turn(text("All **done**: a and b were read and make ran.", chunk_size=4)),
        )
        provider = AnthropicProvider(api_key="test", base_url=srv.url)
        app = make_app(provider=provider, tools=[MockRead(), MockExec()], model="claude-opus-4-5")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await send(pilot, "read and build")
            await until(lambda: isinstance(app.screen, PermissionScreen), pilot, timeout=20)
            assert {p.tool_use_id: p.status for p in app.query(ToolPanel)} == {
                "toolu_a": "ok",
                "toolu_b": "ok",
                "toolu_x": "pending",
            }
            await pilot.press("y")
            await run_done(pilot)
            sources = [m.source for m in app.query(AssistantMarkdown)]
            assert sources == ["Reading both files, then running.", "All **done**: a and b were read and make ran."]
            results = {p.tool_use_id: p.result for p in app.query(ToolPanel)}
            assert results == {"toolu_a": "read a.txt", "toolu_b": "read b.txt", "toolu_x": "ran make"}
            assert app.status.info.cost is not None  # a priced model shows a cost
            sent = srv.anthropic.requests[-1].body["messages"]
            assert sent[-1]["content"][0]["tool_use_id"] == "toolu_x"


@pytest.mark.timeout(60)
async def test_initial_prompt_streams_without_a_key_press() -> None:
    """`skawld "prompt"`: the agent starts after the first frame and the prompt runs at once;
    a prompt typed before the agent is ready waits for it instead of being dropped."""
    with WireServer() as srv:
        srv.anthropic.enqueue(turn(text("first answer")), turn(text("second answer")))
        provider = AnthropicProvider(api_key="test", base_url=srv.url)
        app = make_app(provider=provider, model="claude-opus-4-5")
        app.initial_prompt = "from the command line"
        async with app.run_test(size=SIZE) as pilot:
            await run_done(pilot)
            assert [m.source for m in app.query(AssistantMarkdown)] == ["first answer"]
            first_user = srv.anthropic.requests[0].body["messages"][0]["content"]
            assert any(b.get("text") == "from the command line" for b in first_user)
            await send(pilot, "typed")
            await run_done(pilot, 2)
            assert [m.source for m in app.query(AssistantMarkdown)] == ["first answer", "second answer"]


@pytest.mark.timeout(60)
async def test_slash_model_lists_what_the_server_serves() -> None:
    from skawld_core.config_model import ConfigFile, ProviderSection
    from skawld_core.settings import Settings

    with WireServer() as srv:
        models = [{"id": "qwen3:8b", "object": "model"}, {"id": "llama3.1", "object": "model"}]
        srv.chat.profile = dataclasses.replace(srv.chat.profile, models=models)
        app = make_app([], model="qwen3:8b")
        config = ConfigFile(provider=ProviderSection(id="openai-chat", baseURL=f"{srv.url}/v1"))
        app.settings = Settings(config=config, permission_mode="default", api_key="k", env={})
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await send(pilot, "/model")
            await until(lambda: isinstance(app.screen, ChoiceScreen), pilot)
            options = app.screen.query_one(OptionList)
            labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            assert labels == ["qwen3:8b  (current)", "llama3.1"]
            assert any(r.path.endswith("/v1/models") for r in srv.requests)
            await pilot.press("down", "enter")
            await until(lambda: app.agent is not None and app.agent.model == "llama3.1", pilot)


@pytest.mark.timeout(60)
async def test_slash_model_says_plainly_when_the_server_has_no_model_list() -> None:
    from skawld_core.config_model import ConfigFile, ProviderSection
    from skawld_core.settings import Settings
    from skawld_tui.app.widgets.blocks import CommandOutput

    with WireServer() as srv:
        app = make_app([], model="served")
        config = ConfigFile(provider=ProviderSection(id="openai-chat", baseURL=f"{srv.url}/nolist"))
        app.settings = Settings(config=config, permission_mode="default", api_key="k", env={})
        srv.chat.profile = dataclasses.replace(srv.chat.profile, models=[])
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await send(pilot, "/model")
            await until(lambda: bool(app.query(CommandOutput)), pilot)
            shown = app.query(CommandOutput).last().source  # type: ignore[attr-defined]
            assert "lists no models; name one with `/model NAME`" in shown and "HTTP Error" not in shown


def test_a_server_without_a_model_list_is_named_without_a_raw_http_error() -> None:
    """A real HTTP server answering 404 to every path (no `/v1/models`)."""
    import http.server
    import threading

    from skawld_core.config_model import ConfigFile, ProviderSection
    from skawld_core.settings import Settings
    from skawld_tui.local_models import model_choices

    class NotFound(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_error(404)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/v1"
        config = ConfigFile(provider=ProviderSection(id="openai-chat", baseURL=base))
        names, problem = model_choices(Settings(config=config, permission_mode="default", api_key="k", env={}))
    finally:
        server.shutdown()
        server.server_close()
    assert names == []
    assert problem == f"This server has no model list ({base}/models answers 404); name a model with `/model NAME`."
