"""WebFetch against a real HTTP server on 127.0.0.1: Markdown, redirects, the size cap, timeouts."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core.tools import ToolContext, WebFetchTool, default_tools
from skawld_core.tools.web_client import FetchError, FetchLimits, same_host, upgrade_url

from .conftest import call, text_of
from .web_site import BIG, Site, serve_site

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def site() -> Iterator[Site]:
    with serve_site() as s:
        yield s


async def test_html_page_becomes_clean_markdown(site: Site, ctx: ToolContext) -> None:
    out = text_of(await call(WebFetchTool(), ctx, url=site.url("/page")))
    assert out.startswith("# Widget API")
    assert "## Authentication" in out and "## Rate limits" in out
    assert "**widget**" in out and f"[widgets]({site.url('/w')})" in out  # links made absolute
    assert "`X-Widget-Token`" in out
    assert "- first item" in out
    assert "```\ncurl https://api.example/w\n```" in out
    for junk in ("SECRET_SCRIPT", "color: red", "NAVLINK", "BANNER_TEXT", "FOOTER_TEXT", "HIDDEN_TEXT", "<"):
        assert junk not in out, junk


async def test_prompt_returns_the_matching_section(site: Site, ctx: ToolContext) -> None:
    result = await call(WebFetchTool(), ctx, url=site.url("/page"), prompt="what are the rate limits per minute?")
    out = text_of(result)
    assert "## Rate limits" in out and "100 requests per minute" in out
    assert "X-Widget-Token" not in out  # the authentication section does not match
    assert "best match the prompt" in out


async def test_prompt_without_matching_words_returns_the_beginning(site: Site, ctx: ToolContext) -> None:
    out = text_of(await call(WebFetchTool(), ctx, url=site.url("/page"), prompt="zebra giraffe"))
    assert out.startswith("No part of the page matches")
    assert "# Widget API" in out


async def test_text_json_and_unsupported_types(site: Site, ctx: ToolContext) -> None:
    assert text_of(await call(WebFetchTool(), ctx, url=site.url("/plain"))) == "just text\n"
    assert text_of(await call(WebFetchTool(), ctx, url=site.url("/json"))) == '{"a": 1}'
    image = await call(WebFetchTool(), ctx, url=site.url("/image"))
    assert image.is_error and "image/png" in text_of(image)


async def test_http_error_status_is_an_error_with_the_body(site: Site, ctx: ToolContext) -> None:
    result = await call(WebFetchTool(), ctx, url=site.url("/missing"))
    assert result.is_error
    assert "HTTP 404" in text_of(result) and "no such page" in text_of(result)


async def test_same_host_redirect_is_followed_and_reported(site: Site, ctx: ToolContext) -> None:
    out = text_of(await call(WebFetchTool(), ctx, url=site.url("/same")))
    assert out.startswith(f"(redirected to {site.url('/page')})")
    assert "## Authentication" in out
    assert site.paths == ["/same", "/page"]


async def test_cross_host_redirect_is_not_followed(site: Site, ctx: ToolContext) -> None:
    result = await call(WebFetchTool(), ctx, url=site.url("/cross"), prompt="auth")
    out = text_of(result)
    assert not result.is_error
    assert out.startswith("REDIRECT DETECTED")
    assert f"Redirect URL: {site.url('/page', host='localhost')}" in out
    assert 'same prompt: "auth"' in out
    assert site.paths == ["/cross"]  # nothing fetched from the other host


async def test_redirect_loop_and_non_http_redirect_are_errors(site: Site, ctx: ToolContext) -> None:
    loop = await call(WebFetchTool(), ctx, url=site.url("/loop"))
    assert loop.is_error and "redirected more than 10 times" in text_of(loop)
    ftp = await call(WebFetchTool(), ctx, url=site.url("/ftp"))
    assert ftp.is_error and "not an http(s) URL" in text_of(ftp)


async def test_50_mb_response_is_cut_at_the_cap_with_bounded_memory(site: Site, ctx: ToolContext) -> None:
    tool = WebFetchTool()
    cap = tool.limits.max_bytes
    tracemalloc.start()
    try:
        result = await call(tool, ctx, url=site.url("/big"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    out = text_of(result)
    assert out.startswith("[response cut at 10 MB: only the first 10 MB of the page were read]")
    assert out.endswith("chars truncated)")
    assert peak < 4 * cap < BIG  # holding the whole response would need 50 MB
    # The client hung up: the server could not send the whole 50 MB.
    for _ in range(100):
        if site.big_sent:
            break
        site.release.wait(0.05)
    assert site.big_sent and site.big_sent[0] < BIG


async def test_silent_server_hits_the_read_timeout(site: Site, ctx: ToolContext) -> None:
    tool = WebFetchTool(FetchLimits(read_timeout=0.3))
    result = await call(tool, ctx, url=site.url("/slow"))
    assert result.is_error and "sent nothing for 0.3s" in text_of(result)


async def test_dripping_server_hits_the_total_timeout(site: Site, ctx: ToolContext) -> None:
    tool = WebFetchTool(FetchLimits(read_timeout=5, total_timeout=0.5))
    result = await call(tool, ctx, url=site.url("/drip"))
    assert result.is_error and "took longer than 0.5s" in text_of(result)


async def test_connection_refused_is_a_clear_error(ctx: ToolContext) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = await call(WebFetchTool(), ctx, url=f"http://127.0.0.1:{port}/")
    assert result.is_error and "could not connect to 127.0.0.1" in text_of(result)


def test_http_is_upgraded_except_for_loopback() -> None:
    assert upgrade_url("http://docs.python.org/3/") == "https://docs.python.org/3/"
    assert upgrade_url("HTTP://Example.com") == "https://Example.com/"
    assert upgrade_url("https://x.org/a?b=1#frag") == "https://x.org/a?b=1"
    for loop in ("http://127.0.0.1:8000/x", "http://localhost/x", "http://[::1]:9/x", "http://127.9.9.9/"):
        assert upgrade_url(loop) == loop
    for bad in ("ftp://x.org/", "file:///etc/passwd", "docs.python.org", "http://", "http://x:99999/"):
        with pytest.raises(FetchError):
            upgrade_url(bad)
    assert same_host("https://www.x.org/a", "https://x.org/b")
    assert not same_host("https://x.org/", "https://y.org/")


def test_bad_url_is_a_validation_error() -> None:
    from skawld_core.errors import ToolInputError

    with pytest.raises(ToolInputError, match="expected an http:// or https:// URL"):
        WebFetchTool().validate({"url": "file:///etc/passwd"})


def test_registered_only_when_asked() -> None:
    assert "WebFetch" not in [t.name for t in default_tools()]
    assert "WebFetch" in [t.name for t in default_tools(web_fetch=True)]


def test_import_is_lazy(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys, skawld_core.tools\n"
        "heavy = [m for m in ('bs4', 'markdownify', 'httpx2', 'nbformat', 'pypdf') if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == "[]", out.stdout


def test_relevance_ranks_sections_keeps_page_order_and_the_budget() -> None:
    from skawld_core.tools.relevance import CHUNK_CHARS, relevant_extract, terms

    assert terms("How do I authenticate the requests?") == ["authen", "reques"]
    filler = "\n\n".join(f"Paragraph {i} about nothing in particular." for i in range(200))
    page = (
        "# Guide\n\nIntro text.\n\n"
        "## Installing\n\nRun pip install widget.\n\n"
        f"## Reference\n\n{filler}\n\nThe retry backoff doubles each time.\n\n"
        "```\n# not a heading: retry\n```\n\n"
        "## Retry policy\n\nRetries happen three times with backoff.\n"
    )
    got = relevant_extract(page, "retry backoff", budget=2000)
    assert got.kept >= 2 and got.total > 5
    assert len(got.text) <= 2000 + 200  # the budget, plus separators and continued-headings
    # The section whose heading matches comes after the long one's matching chunk: page order.
    assert got.text.index("## Reference (continued)") < got.text.index("## Retry policy")
    assert "Run pip install" not in got.text
    assert len(filler) > CHUNK_CHARS  # the long section was split into chunks
