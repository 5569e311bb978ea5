"""Fixtures for end-to-end tests (see `tests.cli.harness`)."""

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.cli.harness import cli  # noqa: E402, F401
