"""WebFetch's 15-minute page cache, against the real test site on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from skawld_core.tools import ToolContext, WebFetchTool
from skawld_core.tools.web_cache import CACHE_SECONDS, PageCache
from skawld_core.tools.web_client import CrossHostRedirect, Fetched

from .conftest import call, text_of
from .web_site import Site, serve_site

pytestmark = pytest.mark.timeout(60)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def site() -> Iterator[Site]:
    with serve_site() as s:
        yield s


def page(url: str, size: int, status: int = 200) -> Fetched:
    return Fetched(url, status, "OK", "text/plain", "utf-8", b"x" * size, False)


async def test_a_second_question_about_a_page_is_answered_from_the_cache(site: Site, ctx: ToolContext) -> None:
    tool = WebFetchTool()
    first = await call(tool, ctx, url=site.url("/page"))
    second = await call(tool, ctx, url=site.url("/page"), prompt="what are the rate limits per minute?")
    assert site.paths == ["/page"]
    assert "100 requests per minute" in text_of(second) and "best match the prompt" in text_of(second)
    assert "cached" in second.summary and "cached" not in first.summary


async def test_after_fifteen_minutes_the_page_is_fetched_again(site: Site, ctx: ToolContext) -> None:
    clock = Clock()
    tool = WebFetchTool(cache=PageCache(clock=clock))
    await call(tool, ctx, url=site.url("/plain"))
    clock.now += CACHE_SECONDS - 1
    await call(tool, ctx, url=site.url("/plain"))
    assert site.paths == ["/plain"]
    clock.now += 1
    assert text_of(await call(tool, ctx, url=site.url("/plain"))) == "just text\n"
    assert site.paths == ["/plain", "/plain"]


async def test_errors_are_not_cached(site: Site, ctx: ToolContext) -> None:
    tool = WebFetchTool()
    for _ in range(2):
        assert (await call(tool, ctx, url=site.url("/missing"))).is_error
    assert site.paths == ["/missing", "/missing"]


async def test_a_cross_host_redirect_is_remembered_without_fetching_the_other_host(
    site: Site, ctx: ToolContext
) -> None:
    tool = WebFetchTool()
    for _ in range(2):
        assert text_of(await call(tool, ctx, url=site.url("/cross"))).startswith("REDIRECT DETECTED")
    assert site.paths == ["/cross"]


def test_the_byte_budget_evicts_the_least_recently_used_page() -> None:
    cache = PageCache(max_bytes=100)
    cache.put("a", page("a", 40))
    cache.put("b", page("b", 40))
    assert cache.get("a") is not None  # a is now the most recently used
    cache.put("c", page("c", 40))
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    cache.put("huge", page("huge", 101))  # larger than the whole budget: not kept, nothing evicted
    assert cache.get("huge") is None and len(cache) == 2


def test_replacing_an_entry_keeps_the_byte_count_right() -> None:
    cache = PageCache(max_bytes=100)
    for _ in range(5):
        cache.put("a", page("a", 60))
    cache.put("b", page("b", 40))
    assert len(cache) == 2  # five puts of "a" count 60 bytes, not 300
    cache.put("r", CrossHostRedirect("r", "https://elsewhere/", 302))
    assert len(cache) == 3


def test_expired_entries_clean_themselves_up() -> None:
    clock = Clock()
    cache = PageCache(ttl=10, clock=clock)
    cache.put("a", page("a", 10))
    clock.now += 5
    cache.put("b", page("b", 10))
    clock.now += 5
    assert len(cache) == 1 and cache.get("a") is None and cache.get("b") is not None
    assert cache.get("a") is None
    cache.put("x", page("x", 1, status=404))
    assert cache.get("x") is None
