"""HTML to Markdown for WebFetch: page chrome removed, then `markdownify`.

BeautifulSoup (with the standard library's parser) drops what is not content:
scripts, styles, navigation, footers, sidebars, forms, hidden elements. When
the page has a `<main>` (or a single `<article>`), only that is converted. The
page title leads as a level-1 heading unless the content already starts with
it. Both libraries are imported on first use.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin

__all__ = ["html_to_markdown"]

_DROP_TAGS = (
    "script",
    "style",
    "noscript",
    "template",
    "iframe",
    "svg",
    "canvas",
    "nav",
    "footer",
    "aside",
    "form",
    "button",
    "dialog",
    "link",
    "meta",
)
_DROP_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"})
_BLANK_RUNS = re.compile(r"\n[ \t]*(?:\n[ \t]*){2,}")


def _hidden(tag: Any) -> bool:
    attrs = getattr(tag, "attrs", None)
    if not attrs:
        return False
    style = str(attrs.get("style", "")).replace(" ", "").lower()
    return (
        "hidden" in attrs
        or str(attrs.get("aria-hidden", "")).lower() == "true"
        or str(attrs.get("role", "")).lower() in _DROP_ROLES
        or "display:none" in style
    )


def html_to_markdown(html: str | bytes, base_url: str | None = None) -> str:
    """Clean Markdown of an HTML document (bytes are decoded by BeautifulSoup's sniffing).

    With `base_url`, relative link and image URLs are made absolute (so the model can fetch them).
    """
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title_tag = soup.find("title")
    title = " ".join(title_tag.get_text().split()) if title_tag is not None else ""
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    for tag in soup.find_all(_hidden):
        tag.decompose()
    if base_url:
        for tag in soup.find_all(["a", "img"]):
            key = "href" if tag.name == "a" else "src"
            value = tag.get(key)
            if isinstance(value, str) and value and not value.startswith(("#", "javascript:", "data:")):
                tag[key] = urljoin(base_url, value)
    root: Any = soup.find("main")
    if root is None:
        articles = soup.find_all("article")
        root = articles[0] if len(articles) == 1 else (soup.body or soup)
    converter = MarkdownConverter(heading_style="atx", bullets="-", escape_underscores=False, escape_asterisks=False)
    text = converter.convert_soup(root)
    text = _BLANK_RUNS.sub("\n\n", text).strip()
    first = text.split("\n", 1)[0].lstrip("# ").strip()
    if title and first != title:
        text = f"# {title}\n\n{text}" if text else f"# {title}"
    return text
