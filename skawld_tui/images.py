"""Image attachments for prompts: recognise image files by their bytes, read
their size, and read an image from the system clipboard.

No Textual imports: the app and the plain mode share this module.
"""

from __future__ import annotations

import asyncio
import base64
import re
import shlex
import shutil
import struct
from dataclasses import dataclass
from pathlib import Path

MAX_IMAGE_BYTES = 5 * 1024 * 1024  # the providers' per-image limit (Anthropic: 5 MB)
CLIPBOARD_HINT = "install wl-clipboard (Wayland: wl-paste) or xclip (X11) to paste images"


class ImageError(Exception):
    """The file is not an image skawld can attach (the message says why)."""


@dataclass(frozen=True)
class ImageAttachment:
    """One image to send with the next prompt."""

    name: str
    media_type: str
    data: bytes
    width: int
    height: int

    @property
    def label(self) -> str:
        """``[image: shot.png 120×80]``: the chip text and the placeholder in the prompt."""
        size = f" {self.width}×{self.height}" if self.width and self.height else ""
        return f"[image: {self.name}{size}]"

    def spec(self) -> dict[str, str]:
        """What `session.run(images=...)` takes."""
        return {"media_type": self.media_type, "data": base64.b64encode(self.data).decode("ascii")}


def sniff(data: bytes) -> str | None:
    """The media type of PNG, JPEG, GIF or WebP bytes, else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def dimensions(data: bytes, media_type: str) -> tuple[int, int]:
    """(width, height) from the image header; (0, 0) when it cannot be read."""
    try:
        if media_type == "image/png":
            w, h = struct.unpack(">II", data[16:24])
            return int(w), int(h)
        if media_type == "image/gif":
            w, h = struct.unpack("<HH", data[6:10])
            return int(w), int(h)
        if media_type == "image/webp":
            return _webp_size(data)
        if media_type == "image/jpeg":
            return _jpeg_size(data)
    except struct.error:
        pass
    return 0, 0


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return 0, 0


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(w), int(h)
        i += 2 + length
    return 0, 0


def from_bytes(data: bytes, name: str) -> ImageAttachment:
    """An attachment from image bytes; raises `ImageError` when they are not one."""
    media_type = sniff(data)
    if media_type is None:
        raise ImageError(f"{name}: not a PNG, JPEG, GIF or WebP image")
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(f"{name}: {len(data) / 1e6:.1f} MB is over the {MAX_IMAGE_BYTES // (1024 * 1024)} MB limit")
    width, height = dimensions(data, media_type)
    return ImageAttachment(name=name, media_type=media_type, data=data, width=width, height=height)


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")


def path_candidate(token: str, cwd: Path) -> Path | None:
    """`token` as the path of an existing image-named file (a paste may quote it,
    escape spaces, or give a ``file://`` URL), else None."""
    raw = token.strip()
    if not raw:
        return None
    try:
        parts = shlex.split(raw)
    except ValueError:
        parts = [raw]
    if len(parts) != 1:
        return None
    raw = parts[0]
    if raw.startswith("file://"):
        from urllib.parse import unquote, urlparse

        raw = unquote(urlparse(raw).path)
    if not raw.lower().endswith(IMAGE_SUFFIXES):
        return None
    path = Path(raw).expanduser()
    path = path if path.is_absolute() else cwd / path
    try:
        return path if path.is_file() else None
    except OSError:
        return None


def load_image(path: Path) -> ImageAttachment:
    """Read and check an image file; raises `ImageError` with the reason."""
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise ImageError(f"{path.name}: {size / 1e6:.1f} MB is over the 5 MB limit")
        data = path.read_bytes()
    except OSError as exc:
        raise ImageError(f"{path.name}: {exc.strerror or exc}") from exc
    return from_bytes(data, path.name)


def clipboard_commands() -> list[list[str]]:
    """The clipboard readers present on PATH, in the order they are tried."""
    found = []
    if shutil.which("wl-paste"):
        found.append(["wl-paste", "--no-newline", "--type", "image/png"])
    if shutil.which("xclip"):
        found.append(["xclip", "-selection", "clipboard", "-t", "image/png", "-o"])
    return found


async def read_clipboard_image(counter: int = 1) -> ImageAttachment | None:
    """The image on the clipboard, None when there is none; raises `ImageError`
    (with `CLIPBOARD_HINT`) when no clipboard reader is installed."""
    commands = clipboard_commands()
    if not commands:
        raise ImageError(CLIPBOARD_HINT)
    for argv in commands:
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
            )
        except OSError:
            continue
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), 5.0)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            continue
        if proc.returncode == 0 and sniff(out) is not None:
            return from_bytes(out, f"clipboard-{counter}.png")
    return None


def names_image(text: str) -> bool:
    """Cheap check: does some word of `text` end like an image file name?"""
    return any(word.lower().rstrip("'\"").endswith(IMAGE_SUFFIXES) for word in text.split())


def typed_images(text: str, cwd: Path) -> tuple[str, list[ImageAttachment], list[str]]:
    """Image files typed as plain paths (not `@mentions`) in `text`: the text with
    each replaced by its label, the attachments, and why any were left out."""
    kept: list[str] = []
    images: list[ImageAttachment] = []
    errors: list[str] = []
    for word in re.split(r"(\s+)", text):  # whitespace kept as its own items
        path = path_candidate(word, cwd) if word.strip() and not word.startswith("@") else None
        if path is None:
            kept.append(word)
            continue
        try:
            image = load_image(path)
        except ImageError as exc:
            errors.append(str(exc))
            kept.append(word)
            continue
        images.append(image)
        kept.append(image.label)
    return ("".join(kept) if images else text), images, errors
