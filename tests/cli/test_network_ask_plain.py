"""The plain mode asks about a name the sandbox's domain lists leave out, through the real
`skawld --plain` on a pseudo-terminal and real bubblewrap: always saves
`WebFetch(domain:localhost)`, so the next session (headless, which never asks) reaches the
local server; headless refuses an unlisted name, naming the domain and the setting."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.cli.harness import CliEnv
from tests.cli.test_sticky_plain import Terminal
from tests.sandbox.conftest import needs_bwrap
from tests.sandbox.test_domain_proxy import _serve
from tests.support.wire_server import text, tool_call, turn

pytestmark = [pytest.mark.timeout(120), needs_bwrap]

# `--noproxy ''`: curl sends even localhost through the proxy (outside the sandbox, where it resolves).
CURL = "curl -sS --noproxy '' http://{host}:{port}/"


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    yield from _serve()


def _tool_results(cli: CliEnv) -> list[str]:
    return [
        json.dumps(block.get("content"))
        for request in cli.srv.anthropic.requests
        for message in request.body["messages"]
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def test_plain_always_opens_the_name_for_this_and_later_sessions(cli: CliEnv, port: int) -> None:
    cli.write_user_config({"sandbox": {"mode": "required", "network": {"allowedDomains": ["pkgs.example"]}}})
    curl = CURL.format(host="localhost", port=port)
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": curl}, id="b1")), turn(text("fetched")))
    term = Terminal(cli, "--permission-mode", "yolo")
    try:
        term.expect("›")
        term.type("fetch it")
        shown = term.expect("[y]es, this session / [a]lways in this project / [n]o")
        assert "? Allow network access to localhost?" in shown
        assert "[a] saves WebFetch(domain:localhost) to .claude/settings.local.json" in shown
        term.type("a")
        cli.srv.anthropic.wait_for_requests(2, timeout=60)
        term.expect("always allowed in this project: WebFetch(domain:localhost)")
        term.type("/exit")
        assert term.proc.wait(timeout=30) == 0
    finally:
        term.close()
    assert f"hello from localhost:{port}" in _tool_results(cli)[-1]
    settings = cli.repo / ".claude" / "settings.local.json"
    assert json.loads(settings.read_text()) == {"permissions": {"allow": ["WebFetch(domain:localhost)"]}}

    cli.srv.anthropic.clear()
    other = CURL.format(host="unlisted.example", port=port)
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": f"{curl}; {other}"}, id="b2")), turn(text("again")))
    out = cli.run(*cli.args("-p", "again", "--permission-mode", "yolo"))
    assert out.returncode == 0, out.stderr
    result = _tool_results(cli)[-1]
    assert f"hello from localhost:{port}" in result  # saved: the next session is not asked
    assert (
        "Bash: the sandbox refused network access to unlisted.example is not allowed "
        "(add it to sandbox.network.allowedDomains)." in result
    )
