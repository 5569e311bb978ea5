"""The fast path of the ``skawld`` command line: ``skawld [-p] [PROMPT] [flags]`` without typer.

Building the typer command (it reads the signature of `cli.run` and evaluates its ~50
annotated parameters) and importing typer cost about 50 ms, a sixth of the budget for
the first request of ``skawld -p`` (DESIGN 14) and a tenth of the app's first frame. A
plain command line, headless or interactive (only the common flags below, each spelled
exactly as typer accepts it, every value valid), is parsed here into the keyword
arguments typer would pass to `cli.run`; anything else, including ``--help``, an
unknown flag (``--resume``, whose value is optional, among them), a repeated
single-valued flag or a value typer would reject, returns None so that typer parses it
and reports problems in its own words.
Which flags it parses, and how, is `cli_flags.CommandLine`'s ``fast`` column;
``tests/cli/test_fast_path.py`` checks the result against the typer command.
"""

from __future__ import annotations

from typing import Any

from .flags import FAST_CHOICES, fast_options

OPTIONS = fast_options()
"""Flag → (parameter of `cli.run`, kind), from `cli_flags.CommandLine`. Flags not listed go through typer."""


def fast_kwargs(args: list[str]) -> dict[str, Any] | None:
    """Keyword arguments of `cli.run` for a plain command line, else None."""
    out: dict[str, Any] = {}
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if not token.startswith("-"):
            if "prompt" in out:
                return None  # typer reports the extra argument
            out["prompt"] = token
            continue
        name, eq, inline = token.partition("=")
        spec = OPTIONS.get(name if name.startswith("--") else token)
        if spec is None:
            return None
        param, kind = spec
        if kind in ("flag", "off"):
            if eq or param in out:
                return None
            out[param] = kind == "flag"
            continue
        if eq:
            value = inline
        elif i < len(args):
            value = args[i]
            i += 1
        else:
            return None
        if value.startswith("-"):
            return None  # typer decides whether that is a value or a flag
        if kind == "multi":
            out.setdefault(param, []).append(value)
            continue
        if param in out:
            return None
        converted = _convert(kind, value)
        if converted is None:
            return None
        out[param] = converted
    return out


def _convert(kind: str, value: str) -> Any:
    if kind == "str":
        return value
    if kind in ("int1", "int0"):
        if not (value.isascii() and value.isdigit()):
            return None
        number = int(value)
        return number if number >= (1 if kind == "int1" else 0) else None
    try:
        return FAST_CHOICES[kind](value)
    except ValueError:
        return None
