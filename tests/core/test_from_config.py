"""`agent_from_config`: an SDK user builds an Agent from config files, through the provider
and store registries, the way the ``skawld`` command does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core import agent_from_config
from skawld_core.errors import ConfigError
from skawld_core.providers.registry import (
    MissingApiKeyError,
    ProviderEntry,
    provider_entry,
    provider_ids,
    register_provider,
)
from skawld_core.sessions.memory import InMemorySessionStore
from skawld_core.sessions.registry import StoreConfig, StoreEntry, make_store, register_store, store_entry, store_label
from skawld_core.settings import CliOptions
from tests.support.wire_server import WireServer, text, turn

pytestmark = pytest.mark.timeout(60)


def _home(tmp_path: Path, config: dict[str, object]) -> dict[str, str]:
    home = tmp_path / "home"
    (home / ".skawld").mkdir(parents=True)
    (home / ".skawld" / "config.json").write_text(json.dumps(config))
    return {"HOME": str(home)}


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as srv:
        yield srv


async def test_agent_from_a_config_file_runs_a_turn(tmp_path: Path, wire: WireServer) -> None:
    env = _home(
        tmp_path,
        {
            "provider": {"id": "openai-chat", "baseURL": wire.openai_url},
            "model": "from-config",
            "sessionStore": {"kind": "memory"},
        },
    )
    project = tmp_path / "project"
    project.mkdir()
    wire.chat.enqueue(turn(text("configured")))
    agent = agent_from_config(project, env={**env, "SKAWLD_CHECKPOINTS": "0"})
    assert isinstance(agent.store, InMemorySessionStore)
    session = await agent.session()
    events = [e async for e in session.run("hi")]
    assert events[-1].type == "result" and events[-1].final_text == "configured"
    assert wire.chat.requests[-1].body["model"] == "from-config"
    await agent.close()


def test_options_are_the_top_layer(tmp_path: Path) -> None:
    env = _home(tmp_path, {"model": "from-file", "sessionStore": {"kind": "memory"}})
    agent = agent_from_config(
        tmp_path,
        options=CliOptions(model="from-options", permission_mode="plan"),
        env={**env, "ANTHROPIC_API_KEY": "k", "SKAWLD_CHECKPOINTS": "0"},
    )
    assert agent.model == "from-options"


def test_no_key_is_a_clear_error(tmp_path: Path) -> None:
    env = _home(tmp_path, {"sessionStore": {"kind": "memory"}})
    with pytest.raises(MissingApiKeyError, match="ANTHROPIC_API_KEY is not set"):
        agent_from_config(tmp_path, env=env)


def test_builtin_providers_declare_key_variable_and_default_model() -> None:
    assert provider_ids()[:3] == ("anthropic", "openai-chat", "openai-responses")
    assert provider_entry("anthropic").key_var == "ANTHROPIC_API_KEY"
    assert provider_entry("openai-responses").default_model == "gpt-5"
    assert provider_entry("openai-chat").load().__name__ == "OpenAIChatProvider"
    with pytest.raises(ConfigError, match="Unknown provider 'nope'"):
        provider_entry("nope")
    for provider_id in provider_ids():  # the registry's key variable is the class's own
        entry = provider_entry(provider_id)
        assert entry.load().env_var == entry.key_var  # type: ignore[attr-defined]


def test_a_registered_provider_and_store_are_made_by_name(tmp_path: Path) -> None:
    register_provider(
        ProviderEntry("test-chat", "skawld_core.providers.openai_chat:OpenAIChatProvider", "TEST_CHAT_KEY", "tm")
    )
    register_store(
        StoreEntry(
            "test-memory", "skawld_core.sessions.memory:InMemorySessionStore", lambda cls, c: cls(), lambda c: "test"
        )
    )
    try:
        assert provider_entry("test-chat").default_model == "tm"
        store = make_store(StoreConfig(kind="test-memory"))
        assert isinstance(store, InMemorySessionStore)
        assert store_label(StoreConfig(kind="test-memory")) == "test"
    finally:
        from skawld_core.providers import registry as providers
        from skawld_core.sessions import registry as stores

        providers._PROVIDERS.pop("test-chat")
        stores._STORES.pop("test-memory")
    with pytest.raises(ConfigError, match="Unknown session store kind 'test-memory'"):
        store_entry("test-memory")


def test_a_postgres_store_without_a_dsn_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="sessionStore/dsn"):
        make_store(StoreConfig(kind="postgres"))
    assert (
        store_label(StoreConfig(kind="postgres", dsn="postgresql://u:secret@h/db"))
        == "PostgreSQL postgresql://u:***@h/db"
    )
