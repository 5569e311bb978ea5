"""Where skawld's configuration lives and how one config file is read.

The bottom of the configuration layer: `config` (the loader) and
`permissions.remembered` (the user's saved answers) both build on it, so
neither has to import the other's module to find ``~/.skawld`` or read JSON.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from .errors import ConfigError

__all__ = ["MAX_DEPTH", "home_dir", "read_config_file", "user_config_dir"]


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's home: ``HOME``, else ``USERPROFILE``, else `Path.home()`."""
    e = os.environ if env is None else env
    home = e.get("HOME") or e.get("USERPROFILE")
    return Path(home) if home else Path.home()


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``~/.skawld``."""
    return home_dir(env) / ".skawld"


MAX_DEPTH = 64


def _check_shape(value: object, file: Path) -> None:
    """Reject (iteratively) documents nested too deeply or holding NUL characters."""
    stack: list[tuple[object, int, str]] = [(value, 0, "")]
    while stack:
        item, depth, ptr = stack.pop()
        if depth > MAX_DEPTH:
            raise ConfigError(f"Invalid config in {file} ({ptr}): nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, str) and "\x00" in item:
            raise ConfigError(f"Invalid config in {file} ({ptr or '/'}): a string contains a NUL character")
        if isinstance(item, dict):
            for k, v in item.items():
                if "\x00" in k:
                    raise ConfigError(f"Invalid config in {file} ({ptr or '/'}): a key contains a NUL character")
                stack.append((v, depth + 1, f"{ptr}/{k}"))
        elif isinstance(item, list):
            stack.extend((v, depth + 1, f"{ptr}/{i}") for i, v in enumerate(item))


def read_config_file(path: Path) -> object | None:
    """Parse one config file into a JSON value; None when it does not exist.

    Every other problem (unreadable, a directory, invalid UTF-8, NUL bytes,
    invalid JSON, nesting too deep) is a `ConfigError` naming the file.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ConfigError(f"Cannot read config file {path}: it is a directory, not a file") from None
    except OSError as exc:
        raise ConfigError(f"Cannot read config file {path}: {exc.strerror or exc}") from None
    if b"\x00" in data:
        raise ConfigError(f"Invalid config file {path}: it contains NUL bytes (is it a binary file?)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"Invalid config file {path}: it is not valid UTF-8 (byte {exc.start})") from None
    try:
        raw: object = json.loads(text)
    except RecursionError:
        raise ConfigError(f"Invalid config file {path}: it is nested too deeply") from None
    except ValueError as exc:
        raise ConfigError(f"Invalid JSON in config file {path}: {exc}") from None
    _check_shape(raw, path)
    return raw
