"""Claude Code plugins: reading a plugin directory, marketplaces, installs, and what a
configuration enables (see `manifest`, `store`, `enabled`)."""

from __future__ import annotations

from .manifest import load_plugin
from .types import Plugin, PluginError

__all__ = ["Plugin", "PluginError", "load_plugin"]
