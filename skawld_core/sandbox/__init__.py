"""The OS sandbox for Bash (bubblewrap on Linux) and process containment.

`ShellPolicy` turns an agent's settings into the argv and environment of each
Bash call; `SandboxSettings` is the config (`off | auto | required`,
`network`); `SandboxStatus` is what a run reports on its `system` event.
Only the settings load with the package (the events import them); the rest
loads on first use, so `import skawld_core` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports
from .settings import SANDBOX_MODES, SandboxMode, SandboxSettings, SandboxStatus, coerce_sandbox

if TYPE_CHECKING:
    from .policy import ShellPolicy, sandbox_denial_note
    from .probe import INSTALL_HINT, BwrapProbe, probe_bwrap, reset_probe
    from .spawn import Launch

__all__ = [
    "INSTALL_HINT",
    "SANDBOX_MODES",
    "BwrapProbe",
    "Launch",
    "SandboxMode",
    "SandboxSettings",
    "SandboxStatus",
    "ShellPolicy",
    "coerce_sandbox",
    "probe_bwrap",
    "reset_probe",
    "sandbox_denial_note",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "Launch": ".spawn",
        "ShellPolicy": ".policy",
        "sandbox_denial_note": ".policy",
        "INSTALL_HINT": ".probe",
        "BwrapProbe": ".probe",
        "probe_bwrap": ".probe",
        "reset_probe": ".probe",
    },
)
