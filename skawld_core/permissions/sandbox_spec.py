"""The permission side of the sandbox: the `SandboxSpec` of a call under these rules.

The sandbox computes its floor (`skawld_core.sandbox.spec.base_spec`); the
rules add what they decide: the files and folders Read deny rules cover are
hidden (expanded by `skawld_core.sandbox.hidden`, each match confirmed with
the engine's own answer, so rule order and allow rules count). The sandbox
enforces the result without knowing the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from ..sandbox.hidden import HiddenPaths, hidden_paths
from ..sandbox.spec import SandboxSpec
from .paths import rule_applies_to
from .rules import PathRule

__all__ = ["ReadRules", "read_denied_paths", "read_denied_patterns", "sandbox_spec"]


class ReadRules(Protocol):
    """What the spec needs of the permission engine (it imports this module)."""

    @property
    def rules(self) -> Sequence[object]: ...

    @property
    def project_root(self) -> Path: ...

    @property
    def restricts_reads(self) -> bool: ...

    def can_read(self, path: Path) -> bool: ...


def read_denied_patterns(engine: ReadRules) -> list[str]:
    """The path patterns of the deny rules that apply to Read."""
    return [
        pattern
        for rule in engine.rules
        if isinstance(rule, PathRule) and rule.decision == "deny" and rule_applies_to(rule, "Read")
        for pattern in rule.paths
    ]


def _hidden(engine: ReadRules) -> HiddenPaths:
    if not engine.restricts_reads:
        return HiddenPaths()
    patterns = read_denied_patterns(engine)
    # the rules are the key of the index's cache: candidates are asked again when they change
    return hidden_paths(
        patterns, engine.project_root, lambda path: not engine.can_read(Path(path)), rules_key=engine.rules
    )


def read_denied_paths(engine: ReadRules) -> list[str]:
    """The files and folders the engine's Read deny rules cover now (absolute paths):
    what the sandbox hides and checkpoints never store."""
    hidden = _hidden(engine)
    return [*hidden.files, *hidden.dirs]


def sandbox_spec(engine: ReadRules, base: SandboxSpec) -> SandboxSpec:
    """`base` with the paths the engine's Read deny rules cover hidden."""
    hidden = _hidden(engine)
    if not (hidden.files or hidden.dirs or hidden.refusal):
        return base
    return replace(
        base,
        hidden_files=(*base.hidden_files, *hidden.files),
        hidden_dirs=(*base.hidden_dirs, *hidden.dirs),
        refusal=base.refusal or hidden.refusal,
    )
