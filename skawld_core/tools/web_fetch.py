"""The WebFetch tool: a URL's page as Markdown, or the part of it that answers a prompt.

Permission is by domain (`DomainRule`, Claude Code's `WebFetch(domain:…)`):
the tool is read scope but asks for each domain outside yolo. A redirect to
another host is not followed; the result names the new URL so the model makes
a new call, which meets the permission check for that host.

A page fetched once is answered from the tool's `PageCache` for 15 minutes, as
in Claude Code, so a second question about it costs no second download.
"""

from __future__ import annotations

import asyncio

from pydantic import ConfigDict, Field, field_validator

from ..model_base import SkawldModel
from .base import Tool, ToolContext, ToolResult, error_result
from .html_markdown import html_to_markdown
from .text_format import truncate_text
from .web_cache import PageCache
from .web_client import CrossHostRedirect, Fetched, FetchError, FetchLimits, fetch_url, upgrade_url

__all__ = ["MAX_ANSWER_CHARS", "MAX_PAGE_CHARS", "WebFetchInput", "WebFetchTool"]

MAX_PAGE_CHARS = 100_000
MAX_ANSWER_CHARS = 20_000
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_TYPES = frozenset(
    {"application/json", "application/xml", "application/javascript", "application/x-javascript", "application/ld+json"}
)


class WebFetchInput(SkawldModel):
    """Input of the WebFetch tool."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, description="The http(s) URL to fetch (http is upgraded to https).")
    prompt: str | None = Field(
        default=None, description="What you want from the page; only the parts that match it are returned."
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        try:
            upgrade_url(value)
        except FetchError as exc:
            raise ValueError(f"url: {exc}") from None
        return value.strip()


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB"


def _is_text(content_type: str) -> bool:
    return content_type.startswith("text/") or content_type in _TEXT_TYPES or content_type.endswith(("+json", "+xml"))


def _decode(got: Fetched) -> str:
    try:
        return got.body.decode(got.charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return got.body.decode("utf-8", errors="replace")


class WebFetchTool(Tool[WebFetchInput]):
    """Fetch a web page and return it as Markdown (or the parts matching `prompt`)."""

    name = "WebFetch"
    description = (
        "Fetch a URL and return its content: HTML pages as Markdown (navigation, scripts and styles removed), "
        "text and JSON as they are. With `prompt`, only the sections of the page that best match the prompt's "
        f"words are returned (at most {MAX_ANSWER_CHARS} characters); without it the page, cut at "
        f"{MAX_PAGE_CHARS} characters. http:// URLs are upgraded to https:// (except localhost). When the URL "
        "redirects to a different host, the result gives the redirect URL: call WebFetch again with it. "
        "Each domain needs the user's permission. A page fetched in the last 15 minutes is answered from a cache. "
        "Read-only: it changes nothing."
    )
    scope = "read"
    parallel_safe = True
    input_model = WebFetchInput

    def __init__(self, limits: FetchLimits | None = None, cache: PageCache | None = None) -> None:
        self.limits = limits or FetchLimits()
        self.cache = cache if cache is not None else PageCache()

    def summarize(self, value: WebFetchInput) -> str:
        """`WebFetch <url>`, with the prompt when given."""
        return f"WebFetch {value.url}" + (f" ({value.prompt})" if value.prompt else "")

    async def execute(self, value: WebFetchInput, ctx: ToolContext) -> ToolResult:
        """Upgrade, fetch within the limits, convert, and pick the relevant part."""
        try:
            url = upgrade_url(value.url)
            cached = self.cache.get(url)
            got = cached if cached is not None else await fetch_url(url, self.limits)
        except FetchError as exc:
            return error_result(f"{exc}.")
        if cached is None:
            self.cache.put(url, got)
        if isinstance(got, CrossHostRedirect):
            text = (
                f"REDIRECT DETECTED: {got.url} redirects (HTTP {got.status}) to a different host.\n"
                f"Redirect URL: {got.location}\n"
                "The content was not fetched. To get it, call WebFetch again with the redirect URL"
                + (f' and the same prompt: "{value.prompt}".' if value.prompt else ".")
            )
            return ToolResult(content=text, summary=f"redirect to {got.location}")
        if got.status >= 400:
            excerpt = _decode(got)[:500].strip() if _is_text(got.content_type) else ""
            detail = f"\n{excerpt}" if excerpt else ""
            return error_result(f"{got.url} answered HTTP {got.status} {got.reason}.{detail}")
        is_html = got.content_type in _HTML_TYPES or (not got.content_type and got.body[:1024].lstrip()[:1] == b"<")
        if not is_html and got.content_type and not _is_text(got.content_type):
            return error_result(
                f"{got.url} is {got.content_type} ({len(got.body)} bytes); WebFetch returns web pages and text only."
            )
        # Parsing megabytes of HTML takes a while: keep it off the event loop.
        body = await asyncio.to_thread(self._page, got, is_html, value.prompt)
        notes: list[str] = []
        if got.url != url:
            notes.append(f"(redirected to {got.url})")
        if got.truncated:
            notes.append(
                f"[response cut at {_megabytes(self.limits.max_bytes)}: only the first "
                f"{_megabytes(self.limits.max_bytes)} of the page were read]"
            )
        content = "\n".join([*notes, body]) if notes else body
        size = f"{len(got.body)}B" + (", cached" if cached is not None else "")
        return ToolResult(content=content or "(the page has no text)", summary=f"{got.status} {got.url} ({size})")

    @classmethod
    def _page(cls, got: Fetched, is_html: bool, prompt: str | None) -> str:
        if is_html:
            return cls._shape(
                html_to_markdown(got.body if got.charset is None else _decode(got), base_url=got.url), prompt
            )
        return cls._shape(_decode(got), prompt)

    @staticmethod
    def _shape(page: str, prompt: str | None) -> str:
        if not prompt or not prompt.strip():
            return truncate_text(page, MAX_PAGE_CHARS)
        from .relevance import relevant_extract  # lazy: only a fetch with a prompt ranks passages

        got = relevant_extract(page, prompt, MAX_ANSWER_CHARS)
        if got.total == 0:
            return "(the page has no text)"
        if got.kept == 0:
            return f"No part of the page matches the prompt's words; the page's beginning follows.\n\n{got.text}"
        head = f"The {got.kept} of {got.total} sections of the page that best match the prompt, in page order:"
        return f"{head}\n\n{got.text}"
