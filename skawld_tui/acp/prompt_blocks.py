"""An ACP prompt (text, image, resource and resource_link blocks) as skawld's prompt text and images."""

from __future__ import annotations

from typing import Any

import acp
from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)


def prompt_parts(blocks: list[Any]) -> tuple[str, list[dict[str, Any]]]:
    """The text (an embedded resource's text as an ``@``-style context block) and the images;
    a prompt with neither is an invalid-params error."""
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ImageContentBlock):
            images.append({"data": block.data, "media_type": block.mime_type})
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                texts.append(f'<context uri="{resource.uri}">\n{resource.text}\n</context>')
            else:
                texts.append(f"(attached binary resource {resource.uri}, not shown)")
        elif isinstance(block, ResourceContentBlock):
            texts.append(f"@{_path(block.uri)}")
        else:
            raise acp.RequestError.invalid_params({"prompt": f"unsupported content block {type(block).__name__}"})
    text = "\n".join(texts)
    if not text.strip() and not images:
        raise acp.RequestError.invalid_params({"prompt": "the prompt is empty"})
    return text, images


def _path(uri: str) -> str:
    return uri[len("file://") :] if uri.startswith("file://") else uri
