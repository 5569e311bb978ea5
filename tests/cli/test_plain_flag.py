"""`--plain` picks the line mode even on a terminal; the default model per provider."""

from __future__ import annotations

import pytest

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn

pytestmark = pytest.mark.timeout(60)


def test_plain_flag_on_a_terminal_runs_the_line_mode(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("hello from the plain mode")))
    screen = cli.plain_session_on_a_terminal("say hi")
    assert "hello from the plain mode" in screen
    assert "\x1b[?1049h" not in screen  # the full-screen app (alternate screen) never started


def test_default_model_when_none_is_configured(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", model=False))
    assert out.returncode == 0, out.stderr
    assert cli.srv.anthropic.requests[0].body["model"] == "claude-sonnet-4-6"
