"""Read of a PDF: its text page by page, and the PDF itself as a document block when small enough.

- `pages` (1-based, inclusive): `"3"`, `"1-5"`, `"1-3,8"`, `"4-"` (to the end).
  At most `MAX_PAGES_PER_READ` pages per call; a PDF of more than
  `PAGES_REQUIRED_OVER` pages needs `pages` (as in Claude Code's Read).
- The result is a text header plus a `DocumentBlock` holding the selected pages
  as a PDF (the whole file when every page is selected) and their extracted
  text. Anthropic receives the document (it sees the pages' layout and
  images); other providers receive the text. A selection over
  `DOCUMENT_MAX_BYTES` or `DOCUMENT_MAX_PAGES` (the API's limits, with room
  for the conversation) is sent as text only.

`pypdf` is imported on first use.
"""

from __future__ import annotations

import base64
import io
import logging

from ..messages import Base64Source, DocumentBlock, TextBlock
from .base import ToolResult, error_result
from .text_format import truncate_text

__all__ = ["DOCUMENT_MAX_BYTES", "MAX_PAGES_PER_READ", "PAGES_REQUIRED_OVER", "parse_pages", "pdf_result"]

MAX_PAGES_PER_READ = 20
PAGES_REQUIRED_OVER = 10
DOCUMENT_MAX_BYTES = 16 * 1024 * 1024
DOCUMENT_MAX_PAGES = 100
MAX_TEXT_CHARS = 400_000


class PagesError(ValueError):
    """A `pages` value that cannot be used; the message says why."""


def parse_pages(spec: str, total: int) -> list[int]:
    """0-based page indexes for a 1-based `pages` spec, in order, without repeats."""
    picked: list[int] = []
    for part in spec.replace(" ", "").split(","):
        if not part:
            raise PagesError(f'pages "{spec}" has an empty range')
        first, dash, last = part.partition("-")
        try:
            start = int(first)
            end = (int(last) if last else total) if dash else start
        except ValueError:
            raise PagesError(f'pages "{spec}": "{part}" is not a page number or range like 1-5') from None
        if start < 1 or end < start:
            raise PagesError(f'pages "{spec}": "{part}" is not a valid range (pages count from 1)')
        if start > total:
            raise PagesError(f"page {start} is beyond the end of the PDF ({total} pages)")
        picked.extend(range(start - 1, min(end, total)))
    return list(dict.fromkeys(picked))


def _label(indexes: list[int]) -> str:
    runs: list[str] = []
    start = prev = indexes[0]
    for i in [*indexes[1:], -2]:
        if i != prev + 1:
            runs.append(f"{start + 1}" if start == prev else f"{start + 1}-{prev + 1}")
            start = i
        prev = i
    return ",".join(runs)


def pdf_result(data: bytes, rel: str, pages: str | None) -> ToolResult:
    """The Read result for the PDF bytes `data` (runs in a worker thread)."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.errors import PyPdfError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # malformed-but-readable files log warnings
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            return error_result(f"{rel} is an encrypted PDF and cannot be read without its password.")
        total = len(reader.pages)
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        return error_result(f"{rel} is not a readable PDF ({exc or type(exc).__name__}).")
    if total == 0:
        return ToolResult(content=f"PDF {rel} has no pages.", summary=f"Read PDF {rel} (0 pages)")
    if pages is None:
        if total > PAGES_REQUIRED_OVER:
            return error_result(
                f"{rel} has {total} pages; pass pages to read part of it, e.g. pages: "
                f'"1-{MAX_PAGES_PER_READ}" (at most {MAX_PAGES_PER_READ} pages per call).'
            )
        indexes = list(range(total))
    else:
        try:
            indexes = parse_pages(pages, total)
        except PagesError as exc:
            return error_result(f"{exc}.")
        if len(indexes) > MAX_PAGES_PER_READ:
            return error_result(f"pages selects {len(indexes)} pages; at most {MAX_PAGES_PER_READ} pages per call.")
    texts: list[str] = []
    for i in indexes:
        try:
            page_text = reader.pages[i].extract_text().strip()
        except Exception as exc:  # a broken content stream must not lose the other pages
            page_text = f"[the text of this page could not be extracted: {exc or type(exc).__name__}]"
        texts.append(f"--- page {i + 1} ---\n{page_text or '[no text on this page]'}")
    text = truncate_text("\n\n".join(texts), MAX_TEXT_CHARS)
    label = _label(indexes)
    head = f"PDF {rel}: {total} page{'s' if total != 1 else ''}; page{'s' if len(indexes) != 1 else ''} {label} follow."
    summary = f"Read PDF {rel} (pages {label} of {total})"
    if len(indexes) == total:
        pdf = data
    else:
        writer = PdfWriter()
        for i in indexes:
            writer.add_page(reader.pages[i])
        out = io.BytesIO()
        writer.write(out)
        pdf = out.getvalue()
    if len(pdf) > DOCUMENT_MAX_BYTES or len(indexes) > DOCUMENT_MAX_PAGES:
        return ToolResult(content=f"{head}\n\n{text}", summary=summary)
    doc = DocumentBlock(
        source=Base64Source(media_type="application/pdf", data=base64.b64encode(pdf).decode()), title=rel, text=text
    )
    return ToolResult(content=[TextBlock(text=head), doc], summary=summary)
