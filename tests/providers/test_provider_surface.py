"""Provider surface: lazy imports, lazy clients, key handling, ids."""

from __future__ import annotations

import subprocess
import sys

import pytest

from skawld_core.errors import AuthError, ConfigError
from skawld_core.providers import AnthropicProvider, OpenAIChatProvider, OpenAIResponsesProvider
from tests.support.provider_kit import request

pytestmark = pytest.mark.timeout(30)


def test_importing_skawld_core_does_not_import_vendor_sdks() -> None:
    code = (
        "import sys, skawld_core, skawld_core.providers, skawld_core.providers.retry, skawld_core.providers.errors_map;"
        "bad = [m for m in ('anthropic', 'openai', 'httpx2') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ids_and_lazy_clients() -> None:
    providers = [AnthropicProvider(), OpenAIChatProvider(), OpenAIResponsesProvider()]
    assert [p.id for p in providers] == ["anthropic", "openai-chat", "openai-responses"]
    assert all(p._client is None for p in providers)  # constructed without a key, no client yet


@pytest.mark.parametrize(
    ("cls", "var"),
    [
        (AnthropicProvider, "ANTHROPIC_API_KEY"),
        (OpenAIChatProvider, "OPENAI_API_KEY"),
        (OpenAIResponsesProvider, "OPENAI_API_KEY"),
    ],
)
async def test_missing_key_raises_on_iteration_not_on_call(
    cls: type, var: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(var, raising=False)
    gen = cls().stream(request())  # no error yet
    with pytest.raises(AuthError, match=var):
        await gen.__anext__()


async def test_negative_max_retries_is_config_error() -> None:
    gen = AnthropicProvider(api_key="k").stream(request(max_retries=-1))
    with pytest.raises(ConfigError):
        await gen.__anext__()


def test_repr_never_shows_the_key() -> None:
    for cls in (AnthropicProvider, OpenAIChatProvider, OpenAIResponsesProvider):
        assert "sk-secret-key-1" not in repr(cls(api_key="sk-secret-key-1"))
