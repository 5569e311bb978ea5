"""The OS sandbox for Bash (bubblewrap on Linux) and process containment.

`ShellPolicy` turns an agent's settings into the argv and environment of each
Bash call; `SandboxSettings` is the config (`off | auto | required`,
`network`); `SandboxStatus` is what a run reports on its `system` event.
"""

from __future__ import annotations

from .policy import Launch, ShellPolicy, sandbox_denial_note
from .probe import INSTALL_HINT, BwrapProbe, probe_bwrap, reset_probe
from .settings import SANDBOX_MODES, SandboxMode, SandboxSettings, SandboxStatus, coerce_sandbox

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
