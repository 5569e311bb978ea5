"""`lazy_exports`: a package's public names, imported from their modules on first access.

The packages of skawld_core re-export their public names, but importing them all
would load what a caller may never use (a store's driver, every built-in tool, an
agent). Each package lists name → module and hands the result to its module-level
``__getattr__`` (PEP 562); a name is imported once, then kept on the package.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for `package`: `names` maps each public name to the
    module (relative, like ``".sqlite"``) that defines it."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
