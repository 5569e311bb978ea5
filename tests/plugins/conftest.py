"""Fixtures for the plugin tests: the helpers in tests/fixtures and the real-`skawld` harness."""

from __future__ import annotations

import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]
for _path in (str(_ROOT / "tests" / "fixtures"), str(_ROOT)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from tests.cli.harness import cli  # noqa: E402, F401
