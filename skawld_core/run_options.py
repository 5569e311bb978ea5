"""What one `session.run()` is asked for: `RunOptions`, and the image specs it accepts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .messages import ImageBlock, TextBlock
from .providers.base import Effort, ThinkingConfig

__all__ = ["ImageSpec", "RunOptions", "SteerEntry", "image_block"]

ImageSpec = ImageBlock | dict[str, Any]

# A steering message: the prompt, the blocks after it (context text, images), and the caller's future.
SteerEntry = tuple[str, list[TextBlock | ImageBlock], asyncio.Future[None]]


def image_block(spec: ImageSpec) -> ImageBlock:
    """An `ImageBlock` from a block or `{data, media_type}` / `{url}` dict."""
    if isinstance(spec, ImageBlock):
        return spec
    if "url" in spec:
        return ImageBlock.model_validate({"source": {"type": "url", "url": spec["url"]}})
    media_type = spec.get("media_type") or spec.get("mediaType")
    return ImageBlock.model_validate({"source": {"type": "base64", "media_type": media_type, "data": spec["data"]}})


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Per-run knobs (they win over the Agent's)."""

    images: Sequence[ImageSpec] = ()
    context: Sequence[str] = ()
    max_output_tokens: int | None = None
    temperature: float | None = None
    thinking: ThinkingConfig | None = None
    effort: Effort | None = None

    def image_blocks(self) -> list[ImageBlock]:
        return [image_block(i) for i in self.images]
