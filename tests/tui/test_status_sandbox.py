"""The status bar's sandbox label."""

from __future__ import annotations

import pytest

from skawld_core.sandbox import SandboxStatus
from skawld_tui.app.widgets.status import StatusBar, sandbox_label


@pytest.mark.parametrize(
    ("status", "label"),
    [
        (None, ""),
        (SandboxStatus(active=False, mode="off", network=True), ""),
        (SandboxStatus(active=True, mode="auto"), "sandboxed"),
        (SandboxStatus(active=True, mode="required", network=True), "sandboxed (network on)"),
        (
            SandboxStatus(active=True, mode="auto", allowed_domains=("pypi.org", "*.npmjs.org")),
            "sandboxed (network: pypi.org, *.npmjs.org)",
        ),
        (SandboxStatus(active=False, mode="auto", reason="bwrap not found"), "no sandbox (install bubblewrap)"),
        (
            SandboxStatus(active=False, mode="required", reason="x"),
            "sandbox required: Bash disabled (install bubblewrap)",
        ),
    ],
)
def test_sandbox_label(status: SandboxStatus | None, label: str) -> None:
    assert sandbox_label(status) == label


def test_status_bar_shows_the_label() -> None:
    bar = StatusBar()
    bar.info.sandbox = sandbox_label(SandboxStatus(active=True, mode="auto"))
    assert bar.render_info().plain.endswith("  sandboxed")


def test_status_bar_marks_estimates_and_shortens_gguf_paths() -> None:
    bar = StatusBar()
    bar.info.model = "/opt/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    bar.info.tokens = 1200
    assert bar.render_info().plain.startswith("SmolLM2-135M-Instruct.Q4_1  ")
    assert "~" not in bar.render_info().plain
    bar.info.estimated = True
    assert "  ~1.2k tok" in bar.render_info().plain
