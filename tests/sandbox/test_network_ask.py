"""The network ask, on real bubblewrap: a name the domain lists leave out is asked about
(`ShellPolicy.network_ask`, the hook the app and the plain mode fill in) while the proxy
holds the connection; yes opens it for the session, no and silence refuse with the
setting named, denied names are never asked about, and the event loop keeps running."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core.sandbox import ShellPolicy

from .conftest import bash, context, needs_bwrap, text
from .test_domain_proxy import http_port  # noqa: F401  (a fixture: a local HTTP server)

pytestmark = [pytest.mark.timeout(60), needs_bwrap]


class Asker:
    """Answers the proxy's questions with `answer`, or holds them until `release`."""

    def __init__(self, answer: bool | None) -> None:
        self.answer = answer
        self.asked: list[str] = []
        self.waiting = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = False

    async def __call__(self, host: str) -> bool:
        self.asked.append(host)
        self.waiting.set()
        if self.answer is None:
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
            return True
        return self.answer


@pytest.fixture
def policy() -> Iterator[ShellPolicy]:
    p = ShellPolicy(
        sandbox={"mode": "required", "network": False, "allowed_domains": ["pkgs.test"], "denied_domains": ["bad.test"]}
    )
    p.proxy_resolve.update({"ask.test": "127.0.0.1", "bad.test": "127.0.0.1", "pkgs.test": "127.0.0.1"})
    yield p
    p.close()


async def test_yes_opens_the_name_for_the_rest_of_the_session(
    project: Path,
    policy: ShellPolicy,
    http_port: int,  # noqa: F811
) -> None:
    asker = policy.network_ask = Asker(True)
    ctx = context(project, policy)
    first = await bash(ctx, f"curl -sS http://ask.test:{http_port}/ && curl -sS http://ask.test:{http_port}/")
    assert text(first).startswith(f"hello from ask.test:{http_port}\nhello from ask.test:{http_port}\n"), text(first)
    second = await bash(ctx, f"curl -sS http://ASK.test.:{http_port}/")  # another spelling of the name
    assert text(second).startswith(f"hello from ASK.test.:{http_port}\n"), text(second)
    assert asker.asked == ["ask.test"]  # asked once, for the session
    listed = await bash(ctx, f"curl -sS http://pkgs.test:{http_port}/")
    assert "hello" in text(listed) and asker.asked == ["ask.test"]  # a listed name is not asked about


async def test_no_refuses_naming_the_setting_and_is_asked_again_next_call(
    project: Path,
    policy: ShellPolicy,
    http_port: int,  # noqa: F811
) -> None:
    asker = policy.network_ask = Asker(False)
    ctx = context(project, policy)
    got = await bash(ctx, f"curl -sS http://ask.test:{http_port}/; curl -sSk https://ask.test:{http_port}/")
    assert "hello" not in text(got)
    assert (
        "Bash: the sandbox refused network access to ask.test: the user said no "
        "(sandbox.network.allowedDomains does not list it)." in text(got)
    )
    assert asker.asked == ["ask.test"]  # the second request of the call was not asked again
    await bash(ctx, f"curl -sS http://ask.test:{http_port}/")
    assert asker.asked == ["ask.test", "ask.test"]


async def test_denied_names_are_never_asked_about(
    project: Path,
    policy: ShellPolicy,
    http_port: int,  # noqa: F811
) -> None:
    asker = policy.network_ask = Asker(True)
    got = await bash(context(project, policy), f"curl -sS http://bad.test:{http_port}/")
    assert "hello" not in text(got) and "network access to bad.test is denied" in text(got)
    assert asker.asked == []


async def test_the_request_is_held_while_the_user_decides_and_the_loop_runs(
    project: Path,
    policy: ShellPolicy,
    http_port: int,  # noqa: F811
) -> None:
    asker = policy.network_ask = Asker(None)
    ctx = context(project, policy)
    url = f"http://ask.test:{http_port}/"
    held = asyncio.create_task(bash(ctx, f"curl -sS {url} > a & curl -sS {url} > b; wait; cat a b"))
    await asyncio.wait_for(asker.waiting.wait(), 30)
    other = await bash(ctx, "echo meanwhile")  # another call runs while the question is open
    assert text(other).startswith("meanwhile\n")
    assert not held.done()
    asker.release.set()
    got = text(await held)
    assert got.startswith(f"hello from ask.test:{http_port}\nhello from ask.test:{http_port}\n"), got
    assert asker.asked == ["ask.test"]  # two requests at once share one question


async def test_no_answer_in_time_refuses_and_closes_the_question(
    project: Path,
    policy: ShellPolicy,
    http_port: int,  # noqa: F811
) -> None:
    asker = policy.network_ask = Asker(None)
    policy.network_ask_timeout = 0.5
    got = await bash(context(project, policy), f"curl -sS http://ask.test:{http_port}/")
    assert "hello" not in text(got)
    assert "network access to ask.test: the question was not answered in time" in text(got)
    assert asker.cancelled  # the dialog is taken down
