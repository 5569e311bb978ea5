"""Fixtures for the app tests: snapshots go to the top-level `snapshots/` directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

import pytest
import pytest_textual_snapshot as pts

SNAPSHOTS = Path(__file__).resolve().parents[2] / "snapshots"


class TopLevelSVG(pts.SVGImageExtension):
    """Store SVGs as snapshots/<test module>/<test name>.svg."""

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOTS / Path(test_location.filepath).stem)


pts.SVGImageExtension = TopLevelSVG  # type: ignore[misc]  # snap_compare looks the class up per call


@pytest.fixture(autouse=True)
def _private_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each app test gets its own HOME: the prompt history (and anything else kept
    under ``~/.skawld``) never touches the real one."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
