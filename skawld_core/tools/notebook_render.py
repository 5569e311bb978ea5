"""Read of a Jupyter notebook: every cell with its id, number, type and source, then its outputs.

The text the model sees, per cell::

    <cell id="a1b2c3" number="0" type="code" execution_count="3">
    print("hi")
    </cell>
    <output cell="a1b2c3" type="stream" name="stdout">
    hi
    </output>

Text outputs (streams, `text/plain` results, errors with their traceback
without ANSI colours) are cut at `MAX_OUTPUT_TEXT` characters each; `image/png`
and `image/jpeg` outputs become image blocks right after their cell. Cells
without an id (nbformat < 4.5) are named `cell-N`, which NotebookEdit accepts.
The notebook is parsed as plain JSON, so reading never imports nbformat.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from ..messages import Base64Source, ImageBlock, TextBlock
from .text_format import truncation_marker

__all__ = ["MAX_OUTPUT_TEXT", "NotebookError", "cell_label", "render_notebook"]

MAX_OUTPUT_TEXT = 10_000
MAX_IMAGE_BYTES = 5 * 1024 * 1024
_IMAGE_TYPES = ("image/png", "image/jpeg")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class NotebookError(ValueError):
    """The file is not a notebook (bad JSON, or no `cells` list)."""


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return "" if value is None else str(value)


def _clip(text: str) -> str:
    if len(text) <= MAX_OUTPUT_TEXT:
        return text
    return text[:MAX_OUTPUT_TEXT] + "\n" + truncation_marker(len(text) - MAX_OUTPUT_TEXT)


def cell_label(cell: dict[str, Any], index: int) -> str:
    """The cell's id, or `cell-N` for a notebook without ids."""
    cid = cell.get("id")
    return cid if isinstance(cid, str) and cid else f"cell-{index}"


def _output(out: dict[str, Any], label: str) -> tuple[str | None, list[ImageBlock], str | None]:
    """The text of one output (None: no text), its images, and a note for a skipped image."""
    kind = str(out.get("output_type", "?"))
    if kind == "stream":
        name = out.get("name", "stdout")
        stream = _clip(_text(out.get("text")).removesuffix("\n"))
        return f'<output cell="{label}" type="stream" name="{name}">\n{stream}', [], None
    if kind == "error":
        trace = _ANSI.sub("", "\n".join(_text(t) for t in out.get("traceback") or []))
        head = f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"
        body = f"{head}\n{trace}" if trace else head
        return f'<output cell="{label}" type="error">\n{_clip(body)}', [], None
    raw_data = out.get("data")
    data: dict[str, Any] = raw_data if isinstance(raw_data, dict) else {}
    images: list[ImageBlock] = []
    note = None
    for mime in _IMAGE_TYPES:
        raw = data.get(mime)
        if raw is None:
            continue
        b64 = "".join(_text(raw).split())
        try:
            size = len(base64.b64decode(b64, validate=True))
        except (binascii.Error, ValueError):
            note = f"[{mime} output is not valid base64; left out]"
            continue
        if size > MAX_IMAGE_BYTES:
            note = f"[{mime} output of {size} bytes is over {MAX_IMAGE_BYTES} bytes; left out]"
            continue
        images.append(ImageBlock(source=Base64Source(media_type=mime, data=b64)))
    plain = data.get("text/plain")
    text = None
    if plain is not None and not images:
        text = f'<output cell="{label}" type="{kind}">\n{_clip(_text(plain))}'
    elif images:
        text = f'<output cell="{label}" type="{kind}">\n[{len(images)} image(s) follow]'
    elif data:
        text = f'<output cell="{label}" type="{kind}">\n[{", ".join(sorted(data))} output]'
    return text, images, note


def render_notebook(raw: bytes) -> list[TextBlock | ImageBlock]:
    """The notebook's cells and outputs as text blocks with image blocks between them."""
    try:
        doc = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise NotebookError(f"not valid notebook JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise NotebookError("not a Jupyter notebook (no cells list)")
    language = (doc.get("metadata") or {}).get("language_info", {}).get("name") or "python"
    blocks: list[TextBlock | ImageBlock] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            blocks.append(TextBlock(text="\n".join(pending)))
            pending.clear()

    for index, cell in enumerate(doc["cells"]):
        if not isinstance(cell, dict):
            continue
        label = cell_label(cell, index)
        kind = str(cell.get("cell_type", "code"))
        attrs = f'id="{label}" number="{index}" type="{kind}"'
        if kind == "code":
            attrs += f' language="{language}"'
            if cell.get("execution_count") is not None:
                attrs += f' execution_count="{cell["execution_count"]}"'
        pending.append(f"<cell {attrs}>\n{_text(cell.get('source'))}\n</cell>")
        for out in cell.get("outputs") or []:
            if not isinstance(out, dict):
                continue
            text, images, note = _output(out, label)
            if text is not None:
                pending.append(f"{text}\n</output>")
            if note:
                pending.append(note)
            if images:
                flush()
                blocks.extend(images)
    if not doc["cells"]:
        pending.append("<notebook has no cells>")
    flush()
    return blocks
