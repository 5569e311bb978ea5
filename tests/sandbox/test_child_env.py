"""Child processes (Bash, shell hooks) never see provider keys or other secrets
unless `env_passthrough` names them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skawld_core import Agent
from skawld_core.child_env import child_environment, has_url_password, is_secret_name
from skawld_core.hooks import HookContext
from skawld_core.hooks.commands import command_hook
from skawld_core.sandbox import ShellPolicy
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools import BashTool

from .conftest import bash, context, text

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-1",
    "OPENAI_API_KEY": "sk-oai-2",
    "GITHUB_TOKEN": "ghp-3",
    "MY_CLIENT_SECRET": "cs-4",
    "DB_PASSWORD": "pw-5",
    "aws_secret_access_key": "aws-6",
}


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SKAWLD_PLAIN_VAR", "plain-7")


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("ANTHROPIC_API_KEY", True),
        ("OPENAI_API_KEY", True),
        ("HF_TOKEN", True),
        ("client_secret", True),
        ("PGPASSWORD", True),
        ("PATH", False),
        ("HOME", False),
        ("TOKENIZERS_PARALLELISM", False),
        ("KEYBOARD", False),
        # issue 24: names the first list missed
        ("API_KEY", True),
        ("OPENAI_KEY", True),
        ("AZURE_OPENAI_KEY", True),
        ("GITLAB_PAT", True),
        ("DOCKER_AUTH", True),
        ("GOOGLE_APPLICATION_CREDENTIALS", True),
        ("SENTRY_DSN", True),
        ("SLACK_WEBHOOK_URL", True),
        ("NPM_ACCESSTOKEN", True),
        ("MYSQL_PASSWD", True),
        ("SSH_AUTH_SOCK", False),
        ("XAUTHORITY", False),
        ("KEYMAP", False),
        ("PATHEXT", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("postgres://app:s3cret@db.internal:5432/app", True),
        ("redis://:only-a-password@cache:6379/0", True),
        ("amqp://guest:guest@rabbit/,amqp://u:pw@rabbit2/", True),
        ("https://user@example.com/", False),
        ("https://example.com/a?password=x", False),
        ("http://[::1", False),  # not a URL urllib can split: left alone
        ("plain text with user:pw@host but no scheme", False),
    ],
)
def test_url_passwords(value: str, secret: bool) -> None:
    assert has_url_password(value) is secret


def test_a_credential_url_under_any_name_is_scrubbed_unless_passed_through() -> None:
    base = {"DATABASE_URL": "postgres://app:s3cret@db/app", "DOCS_URL": "https://example.com/", "PATH": "/bin"}
    assert child_environment(base=base) == {"DOCS_URL": "https://example.com/", "PATH": "/bin"}
    assert "DATABASE_URL" in child_environment(["DATABASE_URL"], base=base)


def test_child_environment_filters_and_keeps() -> None:
    base = {**SECRETS, "PATH": "/bin", "HOME": "/root"}
    env = child_environment(["GITHUB_TOKEN", "DB_*"], base=base, extra={"OPENAI_API_KEY": "explicit"})
    assert env == {"PATH": "/bin", "HOME": "/root", "GITHUB_TOKEN": "ghp-3", "DB_PASSWORD": "pw-5",
                   "OPENAI_API_KEY": "explicit"}  # fmt: skip


@pytest.mark.usefixtures("secret_env")
async def test_bash_environment_is_scrubbed(project: Path) -> None:
    out = text(await bash(context(project, ShellPolicy(sandbox="off")), "env"))
    for value in SECRETS.values():
        assert value not in out
    assert "SKAWLD_PLAIN_VAR=plain-7" in out


@pytest.mark.usefixtures("secret_env")
async def test_agent_env_passthrough_reaches_bash(project: Path) -> None:
    provider = ScriptedProvider([reply(tool_call("Bash", {"command": "env"}, id="b")), reply("done")])
    agent = Agent(
        provider=provider,
        model="m",
        tools=[BashTool()],
        permission_mode="yolo",
        session_store=InMemorySessionStore(),
        cwd=project,
        env_passthrough=["GITHUB_TOKEN"],
    )
    async with agent:
        session = await agent.session()
        events = [e async for e in session.run("go")]
    out = json.dumps([e.model_dump() for e in events if e.type == "user" and e.subtype == "tool_result"])
    assert "GITHUB_TOKEN=ghp-3" in out and "sk-ant-1" not in out and "sk-oai-2" not in out


@pytest.mark.usefixtures("secret_env")
@pytest.mark.parametrize("passthrough", [(), ("OPENAI_API_KEY",)])
async def test_shell_hooks_get_the_clean_environment(project: Path, passthrough: tuple[str, ...]) -> None:
    hook = command_hook("UserPromptSubmit", "env > env.txt", passthrough)
    await hook(None, HookContext(session_id="s", run_id="r", cwd=project))
    env = (project / "env.txt").read_text()
    assert "sk-ant-1" not in env and "ghp-3" not in env and "SKAWLD_PLAIN_VAR=plain-7" in env
    assert ("OPENAI_API_KEY=sk-oai-2" in env) is bool(passthrough)


def test_env_passthrough_must_be_names(project: Path) -> None:
    from skawld_core.errors import ConfigError

    with pytest.raises(ConfigError, match="env_passthrough"):
        Agent(provider=ScriptedProvider([]), model="m", cwd=project, env_passthrough="GITHUB_TOKEN")
