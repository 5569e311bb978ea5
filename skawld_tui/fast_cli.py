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
``tests/cli/test_fast_path.py`` checks the table against the typer command.
"""

from __future__ import annotations

from typing import Any, Literal

Kind = Literal["flag", "off", "str", "int1", "int0", "multi", "provider", "mode", "format"]

OPTIONS: dict[str, tuple[str, Kind]] = {
    "-p": ("print_mode", "flag"),
    "--print": ("print_mode", "flag"),
    "--json": ("json_out", "flag"),
    "--output-format": ("output_format", "format"),
    "--model": ("model", "str"),
    "-m": ("model", "str"),
    "--provider": ("provider", "provider"),
    "--base-url": ("base_url", "str"),
    "--session": ("session", "str"),
    "--continue": ("continue_last", "flag"),
    "-c": ("continue_last", "flag"),
    "--fork-session": ("fork_session", "flag"),
    "--cwd": ("cwd", "str"),
    "--permission-mode": ("permission_mode", "mode"),
    "--add-dir": ("add_dir", "multi"),
    "--plugin-dir": ("plugin_dir", "multi"),
    "--allowed-tools": ("allowed_tools", "multi"),
    "--allowedTools": ("allowed_tools", "multi"),
    "--disallowed-tools": ("disallowed_tools", "multi"),
    "--disallowedTools": ("disallowed_tools", "multi"),
    "--canusetool": ("canusetool", "flag"),
    "--max-turns": ("max_turns", "int1"),
    "--max-output-tokens": ("max_output_tokens", "int1"),
    "--max-retries": ("max_retries", "int0"),
    "--system-prompt": ("system_prompt", "str"),
    "--system-prompt-file": ("system_prompt_file", "str"),
    "--partial": ("partial", "flag"),
    "--no-cache": ("no_cache", "flag"),
    "--pretty": ("pretty", "flag"),
    "--verbose": ("verbose", "flag"),
    "-v": ("verbose", "flag"),
    "--config": ("config", "str"),
    "--no-user-config": ("no_user_config", "flag"),
    "--accept-project-config": ("accept_project_config", "flag"),
    "--sandbox": ("sandbox", "flag"),
    "--no-sandbox": ("sandbox", "off"),
    "--session-id": ("session_id", "str"),
    "--append-system-prompt": ("append_system_prompt", "str"),
    "--include-partial-messages": ("include_partial_messages", "flag"),
    "--tools": ("tools_opt", "str"),
    "--plain": ("plain", "flag"),
}
"""Flag → (parameter of `cli.run`, kind). Flags not listed go through typer."""


def fast_kwargs(args: list[str]) -> dict[str, Any] | None:
    """Keyword arguments of `cli.run` for a plain command line, else None."""
    from .cli import OutputFormat, PermissionModeOpt, ProviderId

    choices: dict[str, Any] = {"provider": ProviderId, "mode": PermissionModeOpt, "format": OutputFormat}
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
        converted = _convert(kind, value, choices)
        if converted is None:
            return None
        out[param] = converted
    return out


def _convert(kind: Kind, value: str, choices: dict[str, Any]) -> Any:
    if kind == "str":
        return value
    if kind in ("int1", "int0"):
        if not (value.isascii() and value.isdigit()):
            return None
        number = int(value)
        return number if number >= (1 if kind == "int1" else 0) else None
    try:
        return choices[kind](value)
    except ValueError:
        return None
