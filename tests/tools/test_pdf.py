"""PDFs: Read returns the text page by page (`pages` ranges) and a document block; Anthropic gets
the document on the wire, OpenAI Chat and Responses get the text. PDFs are made in the tests."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pypdf import PdfReader

from skawld_core import Agent
from skawld_core.messages import DocumentBlock, Message, TextBlock, ToolResultBlock
from skawld_core.sessions.memory import InMemorySessionStore
from skawld_core.tools import ReadTool, ToolContext, ToolResult
from skawld_core.tools.pdf_read import DOCUMENT_MAX_BYTES, parse_pages
from tests.support.provider_kit import KINDS, endpoint, make_provider
from tests.support.wire_server import WireServer, text, tool_call, turn

from .conftest import call, text_of
from .pdf_maker import make_pdf

pytestmark = pytest.mark.timeout(60)

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"]


def pdf_file(tmp_path: Path, n: int, name: str = "doc.pdf", **kw: int) -> Path:
    path = tmp_path / name
    path.write_bytes(make_pdf([f"Page {i + 1} says {WORDS[i % len(WORDS)]}" for i in range(n)], **kw))
    return path


def parts(result: ToolResult) -> tuple[str, DocumentBlock | None]:
    assert isinstance(result.content, list), result.content
    head = result.content[0]
    assert isinstance(head, TextBlock)
    docs = [b for b in result.content if isinstance(b, DocumentBlock)]
    return head.text, docs[0] if docs else None


def pdf_pages(doc: DocumentBlock) -> list[str]:
    reader = PdfReader(io.BytesIO(base64.b64decode(doc.source.data)))
    return [p.extract_text() for p in reader.pages]


async def test_small_pdf_is_text_by_page_and_the_whole_document(tmp_path: Path, ctx: ToolContext) -> None:
    path = pdf_file(tmp_path, 3)
    result = await call(ReadTool(), ctx, file_path="doc.pdf")
    head, doc = parts(result)
    assert head == "PDF doc.pdf: 3 pages; pages 1-3 follow."
    assert doc is not None and doc.title == "doc.pdf" and doc.source.media_type == "application/pdf"
    assert doc.text == (
        "--- page 1 ---\nPage 1 says alpha\n\n--- page 2 ---\nPage 2 says bravo\n\n--- page 3 ---\nPage 3 says charlie"
    )
    assert base64.b64decode(doc.source.data) == path.read_bytes()  # every page: the file itself
    assert result.summary == "Read PDF doc.pdf (pages 1-3 of 3)"
    assert ctx.file_read_tracker.has_read(path)


async def test_pages_select_and_the_document_holds_only_them(tmp_path: Path, ctx: ToolContext) -> None:
    pdf_file(tmp_path, 12)
    head, doc = parts(await call(ReadTool(), ctx, file_path="doc.pdf", pages="2-3,8"))
    assert head == "PDF doc.pdf: 12 pages; pages 2-3,8 follow."
    assert doc is not None
    assert doc.text.split("\n\n") == [
        "--- page 2 ---\nPage 2 says bravo",
        "--- page 3 ---\nPage 3 says charlie",
        "--- page 8 ---\nPage 8 says hotel",
    ]
    assert pdf_pages(doc) == ["Page 2 says bravo", "Page 3 says charlie", "Page 8 says hotel"]
    _, tail = parts(await call(ReadTool(), ctx, file_path="doc.pdf", pages="11-"))
    assert tail is not None and pdf_pages(tail) == ["Page 11 says kilo", "Page 12 says lima"]


def test_parse_pages() -> None:
    assert parse_pages("3", 5) == [2]
    assert parse_pages("1-3, 5", 5) == [0, 1, 2, 4]
    assert parse_pages("4-", 5) == [3, 4]
    assert parse_pages("2-9", 5) == [1, 2, 3, 4]  # clipped at the end
    assert parse_pages("2,2,1-2", 5) == [1, 0]


@pytest.mark.parametrize(
    ("pages", "message"),
    [
        ("0", '"0" is not a valid range (pages count from 1)'),
        ("5-2", '"5-2" is not a valid range'),
        ("x", '"x" is not a page number or range like 1-5'),
        ("1,,2", "has an empty range"),
        ("13", "page 13 is beyond the end of the PDF (12 pages)"),
    ],
)
async def test_bad_pages_are_clear_errors(tmp_path: Path, ctx: ToolContext, pages: str, message: str) -> None:
    pdf_file(tmp_path, 12)
    result = await call(ReadTool(), ctx, file_path="doc.pdf", pages=pages)
    assert result.is_error and message in text_of(result)


async def test_long_pdf_needs_pages_and_at_most_20(tmp_path: Path, ctx: ToolContext) -> None:
    pdf_file(tmp_path, 25)
    result = await call(ReadTool(), ctx, file_path="doc.pdf")
    assert result.is_error and 'doc.pdf has 25 pages; pass pages to read part of it, e.g. pages: "1-20"' in text_of(
        result
    )
    result = await call(ReadTool(), ctx, file_path="doc.pdf", pages="1-21")
    assert result.is_error and "selects 21 pages; at most 20 pages per call" in text_of(result)
    assert not (await call(ReadTool(), ctx, file_path="doc.pdf", pages="6-25")).is_error


async def test_big_pdf_is_sent_as_text_only(tmp_path: Path, ctx: ToolContext) -> None:
    path = pdf_file(tmp_path, 2, padding=DOCUMENT_MAX_BYTES)
    assert path.stat().st_size > DOCUMENT_MAX_BYTES
    result = await call(ReadTool(), ctx, file_path="doc.pdf")
    out = text_of(result)  # a plain string: no document block
    assert out.startswith("PDF doc.pdf: 2 pages; pages 1-2 follow.\n\n--- page 1 ---\nPage 1 says alpha")
    # One page of it is small again: that page goes as a document.
    _, doc = parts(await call(ReadTool(), ctx, file_path="doc.pdf", pages="2"))
    assert doc is not None and pdf_pages(doc) == ["Page 2 says bravo"]


async def test_not_a_pdf_and_pages_on_text(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "fake.pdf").write_bytes(b"this is not a pdf at all")
    result = await call(ReadTool(), ctx, file_path="fake.pdf")
    assert result.is_error and "fake.pdf is not a readable PDF" in text_of(result)
    (tmp_path / "a.txt").write_text("x\n")
    result = await call(ReadTool(), ctx, file_path="a.txt", pages="1")
    assert result.is_error and "pages applies to PDF files only" in text_of(result)


def test_document_blocks_round_trip_through_json() -> None:
    doc = DocumentBlock(source={"type": "base64", "media_type": "application/pdf", "data": "JVBERg=="}, text="t")  # type: ignore[arg-type]
    msg = Message(role="user", content=[ToolResultBlock(tool_use_id="t1", content=[TextBlock(text="h"), doc])])
    again = Message.model_validate_json(msg.model_dump_json())
    assert again == msg
    result = again.content[0]
    assert isinstance(result, ToolResultBlock) and isinstance(result.content, list)
    assert isinstance(result.content[1], DocumentBlock)


# -- on the wire ---------------------------------------------------------------------------------------


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as srv:
        yield srv


@pytest.mark.parametrize("kind", KINDS)
async def test_wire_anthropic_gets_the_document_others_the_text(kind: str, wire: WireServer, tmp_path: Path) -> None:
    path = pdf_file(tmp_path, 2)
    ep = endpoint(wire, kind)
    ep.enqueue(turn(tool_call("Read", {"file_path": str(path)}, id="r1")), turn(text("read it")))
    agent = Agent(
        provider=make_provider(kind, wire),
        model="m",
        tools=[ReadTool()],
        session_store=InMemorySessionStore(),
        cwd=tmp_path,
    )
    session = await agent.session()
    events = [e async for e in session.run("summarize doc.pdf")]
    assert events[-1].type == "result" and events[-1].subtype == "success"
    body = ep.requests[-1].body
    dumped = json.dumps(body)
    encoded = base64.b64encode(path.read_bytes()).decode()
    if kind == "anthropic":
        result = body["messages"][-1]["content"][0]
        assert result["type"] == "tool_result" and result["tool_use_id"] == "r1"
        assert result["content"] == [
            {"type": "text", "text": "PDF doc.pdf: 2 pages; pages 1-2 follow."},
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": encoded},
                "title": "doc.pdf",
            },
        ]
        assert "Page 2 says bravo" not in dumped  # the text is not sent twice
    else:
        assert encoded not in dumped and '"document"' not in dumped
        assert "--- page 2 ---\\nPage 2 says bravo" in dumped
        if kind == "chat":
            tool_msg = next(m for m in body["messages"] if m["role"] == "tool")
            assert tool_msg["content"].startswith("PDF doc.pdf: 2 pages; pages 1-2 follow.\n--- page 1 ---")
        else:
            out = next(i for i in body["input"] if i.get("type") == "function_call_output")
            assert out["output"].startswith("PDF doc.pdf: 2 pages; pages 1-2 follow.\n--- page 1 ---")
