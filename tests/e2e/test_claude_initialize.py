"""``--await-initialize``: the Claude dialect builds its agent with what ``initialize`` carries."""

from __future__ import annotations

import json

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn


def test_await_initialize_builds_the_agent_after_initialize(cli: CliEnv) -> None:
    """With --await-initialize a prompt line that comes first waits for initialize's configuration."""
    cli.srv.anthropic.enqueue(turn(text("arr")))
    lines = [
        {"type": "user", "message": {"role": "user", "content": "hi"}},
        {
            "type": "control_request",
            "request_id": "req_1",
            "request": {"subtype": "initialize", "systemPrompt": "Say arr."},
        },
    ]
    done = cli.run(
        "-p",
        *cli.args("--output-format", "stream-json", "--input-format", "stream-json", "--verbose", "--await-initialize"),
        input="".join(json.dumps(line) + "\n" for line in lines),
    )
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    (answer,) = [o for o in out if o["type"] == "control_response"]
    assert answer["response"]["subtype"] == "success" and answer["response"]["request_id"] == "req_1"
    system = cli.srv.anthropic.requests[0].body["system"]
    assert "Say arr." in json.dumps(system)
