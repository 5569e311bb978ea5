from __future__ import annotations

import sys
from pathlib import Path

_FIXTURES = str(Path(__file__).resolve().parents[1] / "fixtures")
if _FIXTURES not in sys.path:
    sys.path.insert(0, _FIXTURES)

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.cli.harness import cli  # noqa: E402, F401  (the real-`skawld` fixture)
