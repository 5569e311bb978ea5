"""`package_version()`: the installed distribution's version (`skawld_core.__version__`).

pyproject.toml is the one place the version is written; it is read from the
installed metadata once, on first use.
"""

from __future__ import annotations

from functools import cache

__all__ = ["package_version"]


@cache
def package_version() -> str:
    """The installed `skawld` distribution's version, or ``0+unknown`` in a source tree never installed."""
    from importlib.metadata import PackageNotFoundError, version  # importlib.metadata costs milliseconds

    try:
        return version("skawld")
    except PackageNotFoundError:
        return "0+unknown"
