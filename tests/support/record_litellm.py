"""Record LiteLLM's proxy in front of the test Anthropic server (recording only, not CI).

    python -m tests.support.record_litellm

Starts a `WireServer` whose Anthropic endpoint answers as `litellm_proxy.anthropic_backend`,
LiteLLM's proxy in front of it (`LiteLLMProxy`), and runs `record_wire`'s script through
the proxy into ``tests/fixtures/wire/litellm-<version>/session.json``.
"""

from __future__ import annotations

from .litellm_proxy import MASTER_KEY, MODEL, LiteLLMProxy, anthropic_backend, litellm_command, litellm_version
from .record_wire import record
from .wire_server import WireServer


def main() -> int:
    """Record the session; prints the fixture's path."""
    command = litellm_command()
    if command is None:
        raise SystemExit("litellm is not installed (see tests/support/litellm_proxy.py)")
    with WireServer() as srv:
        srv.anthropic.default = anthropic_backend
        with LiteLLMProxy(command, srv.url) as proxy:
            path = record(proxy.url, "litellm", litellm_version(command), MODEL, 3000, MASTER_KEY)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
