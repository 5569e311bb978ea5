"""Pick the parts of a Markdown page that answer a prompt, without a model call.

The heuristic, in full:

1. The page is cut into chunks: each heading starts a section, and a section
   longer than `CHUNK_CHARS` is cut further at blank lines (each piece keeps
   its section's heading).
2. The prompt's terms are its words of three or more letters, lowercased, minus
   common English stop words; on both sides a trailing plural `s` is dropped and
   words are cut to their first six letters (a crude stem: "authenticate"
   meets "authentication").
3. A chunk scores, per distinct prompt term it contains, `idf × (1 + log(n))`
   (`n` = occurrences in the chunk, `idf = log(1 + chunks / chunks with the
   term)`), doubled when the term is in the chunk's heading.
4. The best chunks are taken until `budget` characters, then printed in page
   order, separated by `…`. With no term found anywhere, the page's beginning
   is returned instead, and the result says so.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .text_format import truncation_marker

__all__ = ["CHUNK_CHARS", "Extract", "relevant_extract"]

CHUNK_CHARS = 1500
_HEADING = re.compile(r"^#{1,6}\s+\S")
_WORD = re.compile(r"[A-Za-z0-9_]{3,}")
_STOP_WORDS = (
    "the and for are but not you all any can her was one our out has have had how what when where which "
    "who why with this that these those from into about does doing did its it's there their them they "
    "then than your will would should could shall may might must also just only very more most some such "
    "use using used get give show tell find explain page document site url please want need like make"
)
_STOP = frozenset(_STOP_WORDS.split())


@dataclass(frozen=True)
class _Chunk:
    index: int
    heading: str
    text: str


@dataclass(frozen=True)
class Extract:
    """The chosen text, and how many chunks were kept of how many (0 kept: no term matched)."""

    text: str
    kept: int
    total: int


def _stem(word: str) -> str:
    word = word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
    return word[:6]


def terms(text: str) -> list[str]:
    """The distinct query terms of `text`, in order."""
    out = [_stem(w) for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOP]
    return list(dict.fromkeys(out))


def _sections(markdown: str) -> list[tuple[str, str]]:
    sections: list[tuple[str, list[str]]] = [("", [])]
    in_code = False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if not in_code and _HEADING.match(line):
            sections.append((line.strip(), [line]))
        else:
            sections[-1][1].append(line)
    return [(h, "\n".join(lines).strip()) for h, lines in sections if "\n".join(lines).strip()]


def _chunks(markdown: str) -> list[_Chunk]:
    out: list[_Chunk] = []
    for heading, body in _sections(markdown):
        if len(body) <= CHUNK_CHARS:
            out.append(_Chunk(len(out), heading, body))
            continue
        piece = ""
        for para in re.split(r"\n\s*\n", body):
            if piece and len(piece) + len(para) > CHUNK_CHARS:
                out.append(_Chunk(len(out), heading, piece))
                piece = ""
            piece = f"{piece}\n\n{para}" if piece else para
        if piece:
            out.append(_Chunk(len(out), heading, piece))
    return out


def _counts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for w in _WORD.findall(text):
        key = _stem(w.lower())
        counts[key] = counts.get(key, 0) + 1
    return counts


def relevant_extract(markdown: str, prompt: str, budget: int) -> Extract:
    """The chunks of `markdown` that best match `prompt`, within `budget` characters."""
    chunks = _chunks(markdown)
    query = terms(prompt)
    if not chunks:
        return Extract("", 0, 0)
    counted = [_counts(c.text) for c in chunks]
    heads = [set(_counts(c.heading)) for c in chunks]
    df = {t: sum(1 for c in counted if t in c) for t in query}
    n = len(chunks)
    scores: list[tuple[float, int]] = []
    for i, counts in enumerate(counted):
        score = 0.0
        for t in query:
            if counts.get(t):
                weight = math.log(1 + n / df[t]) * (1 + math.log(counts[t]))
                score += weight * (2 if t in heads[i] else 1)
        if score > 0:
            scores.append((score, i))
    if not scores:
        head = (
            markdown
            if len(markdown) <= budget
            else markdown[:budget] + "\n" + truncation_marker(len(markdown) - budget)
        )
        return Extract(head, 0, n)
    scores.sort(key=lambda s: (-s[0], s[1]))
    chosen: list[int] = []
    used = 0
    for _, i in scores:
        size = len(chunks[i].text) + 3
        if chosen and used + size > budget:
            continue
        chosen.append(i)
        used += size
    parts: list[str] = []
    for i in sorted(chosen):
        chunk = chunks[i]
        text = chunk.text
        if chunk.heading and not text.startswith(chunk.heading):
            text = f"{chunk.heading} (continued)\n\n{text}"
        if len(text) > budget:
            text = text[:budget] + "\n" + truncation_marker(len(text) - budget)
        parts.append(text)
    return Extract("\n\n…\n\n".join(parts), len(chosen), n)
