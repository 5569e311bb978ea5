"""Up-arrow history, persisted per project under ``~/.skawld/history/``.

One JSON object per line (``{"text": ..., "ts": ...}``), appended with a single
``write`` on an ``O_APPEND`` descriptor, so a crash can at worst leave a torn
last line, which loading skips. When the file holds twice the cap it is
rewritten to the newest `cap` entries through a temporary file and
``os.replace`` (a reader sees the old file or the new one, never half of one).
The app's prompt and the plain mode's prompt_toolkit session share the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prompt_toolkit.history import History

HISTORY_CAP = 1000
MAX_ENTRY_CHARS = 100_000  # a pasted novel is sent, not remembered whole


def history_path(cwd: Path, env: Mapping[str, str] | None = None) -> Path:
    """``~/.skawld/history/<sha256 of the project path, 16 hex>.jsonl``."""
    from skawld_core.config import user_config_dir

    key = hashlib.sha256(str(cwd.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return user_config_dir(env) / "history" / f"{key}.jsonl"


class PromptHistory:
    """The submitted prompts of one project, oldest first."""

    def __init__(self, path: Path, *, cap: int = HISTORY_CAP) -> None:
        self.path = path
        self.cap = cap
        self._lines_on_disk = 0

    @classmethod
    def for_project(cls, cwd: Path, env: Mapping[str, str] | None = None) -> PromptHistory:
        """The history file of the project at `cwd`."""
        return cls(history_path(cwd, env))

    def load(self) -> list[str]:
        """Every readable entry, oldest first, at most `cap` (torn or foreign lines are skipped)."""
        try:
            raw = self.path.read_bytes()
        except OSError:
            return []
        out: list[str] = []
        lines = raw.split(b"\n")
        self._lines_on_disk = sum(1 for line in lines if line)
        for line in lines:
            if not line:
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            text = entry.get("text") if isinstance(entry, dict) else None
            if isinstance(text, str) and text:
                out.append(text)
        return _dedupe_adjacent(out)[-self.cap :]

    def append(self, text: str) -> None:
        """Remember `text` (errors writing are ignored: history is a convenience)."""
        if not text.strip():
            return
        line = json.dumps({"text": text[:MAX_ENTRY_CHARS], "ts": round(time.time(), 3)}, ensure_ascii=False)
        data = (line + "\n").encode("utf-8", "surrogateescape")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = b"\n" + data  # a torn last line (a crash) stays apart from this one
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError:
            return
        self._lines_on_disk += 1
        if self._lines_on_disk >= 2 * self.cap:
            self.compact()

    def compact(self) -> None:
        """Rewrite the file to its newest `cap` entries, atomically."""
        entries = self.load()[-self.cap :]
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # prompts may hold secrets
            with open(fd, "w", encoding="utf-8", errors="surrogateescape") as fh:
                for text in entries:
                    fh.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            self._lines_on_disk = len(entries)
        except OSError:
            tmp.unlink(missing_ok=True)


def search_back(entries: Sequence[str], query: str, before: int) -> int | None:
    """Ctrl+R: the index of the newest entry older than `before` that contains `query`
    (case folded), or None."""
    needle = query.casefold()
    for index in range(min(before, len(entries)) - 1, -1, -1):
        if needle in entries[index].casefold():
            return index
    return None


def _dedupe_adjacent(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if not out or out[-1] != item:
            out.append(item)
    return out


def toolkit_history(store: PromptHistory | None = None) -> History:
    """A prompt_toolkit `History` over a `PromptHistory`; `bind()` may set the
    store later (the plain mode knows the project once the agent is built), and
    `remember()` persists one entry (prompt_toolkit's own `store_string` does not)."""
    from prompt_toolkit.history import History

    class _Adapter(History):
        def __init__(self) -> None:
            super().__init__()
            self.store = store

        def bind(self, new: PromptHistory) -> None:
            self.store = new

        def load_history_strings(self) -> Iterable[str]:
            return list(reversed(self.store.load())) if self.store is not None else []

        def store_string(self, string: str) -> None:
            # Every answer typed at this prompt comes here, the y/n of a permission
            # question too: the chat loop calls `remember` for real prompts instead.
            return None

        def remember(self, string: str) -> None:
            if self.store is not None:
                self.store.append(string)

    adapter: Any = _Adapter()
    return adapter  # type: ignore[no-any-return]
