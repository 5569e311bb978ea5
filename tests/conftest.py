"""Suite-wide hooks."""

from __future__ import annotations

import gc

import pytest


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # The app freezes the GC's generations on mount (skawld_tui.app.skawld_app): garbage from earlier tests,
    # such as a store a test never closed, would stay frozen and its aiosqlite worker thread
    # (not a daemon) would keep the interpreter from exiting. Collect it before shutdown.
    gc.unfreeze()
    gc.collect()
