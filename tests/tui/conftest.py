"""Fixtures for the app tests: snapshots go to the top-level `snapshots/` directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

import pytest_textual_snapshot as pts

SNAPSHOTS = Path(__file__).resolve().parents[2] / "snapshots"


class TopLevelSVG(pts.SVGImageExtension):
    """Store SVGs as snapshots/<test module>/<test name>.svg."""

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOTS / Path(test_location.filepath).stem)


pts.SVGImageExtension = TopLevelSVG  # type: ignore[misc]  # snap_compare looks the class up per call
