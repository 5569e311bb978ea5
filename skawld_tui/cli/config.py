"""``skawld config schema|show``: the config.json schema and the effective merged config.

- ``skawld config schema`` prints the JSON Schema of ``config.json`` (point an
  editor's ``$schema`` at a saved copy for completion);
- ``skawld config show`` prints every set key of the merged configuration with the
  file (or layer) it came from; secrets (API keys, header values, DSNs) are masked.
  An unaccepted project config is shown too, with what it asks for.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .subcommand import new_app

app = new_app("Inspect skawld's config.json: its schema and the effective merged config.")


def _fail(message: str, code: int = 3) -> typer.Exit:
    sys.stderr.write(f"skawld: {message}\n")
    return typer.Exit(code)


@app.command("schema")
def schema() -> None:
    """Print the JSON Schema of config.json."""
    from skawld_core.config_model import config_json_schema

    sys.stdout.write(json.dumps(config_json_schema(), indent=2) + "\n")


def _mask(path: str, value: Any) -> Any:
    last = path.rsplit(".", 1)[-1]
    if last in ("apiKey", "dsn"):
        return "***"
    if isinstance(value, dict) and (last == "headers" or (last == "env" and "mcpServers." in path)):
        return {k: "***" for k in value}
    if isinstance(value, dict):
        return {k: _mask(f"{path}.{k}", v) for k, v in value.items()}
    return value


def _lookup(doc: dict[str, Any], dotted: str) -> Any:
    cur: Any = doc
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def effective_lines(raw: dict[str, Any], origins: dict[str, str]) -> list[tuple[str, str, str]]:
    """(key, JSON value, origin) for each set leaf-ish key (two levels deep), secrets masked."""
    rows: list[tuple[str, str, str]] = []
    for key in sorted(origins):
        value = _lookup(raw, key)
        if value is None:
            continue
        if isinstance(value, dict) and "." not in key and any(k.startswith(key + ".") for k in origins):
            continue  # shown key by key
        rows.append((key, json.dumps(_mask(key, value), ensure_ascii=False), origins[key]))
    return rows


@app.command("show")
def show(
    cwd: Annotated[str | None, typer.Option("--cwd", metavar="DIR", help="Project directory.")] = None,
    config: Annotated[str | None, typer.Option("--config", metavar="PATH", help="Project config file.")] = None,
    no_user_config: Annotated[bool, typer.Option("--no-user-config", help="Ignore ~/.skawld/config.json.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object: config and origins.")] = False,
) -> None:
    """Print the merged effective config, each key with the file it came from."""
    from skawld_core.config import UntrustedProjectConfigError, load_config
    from skawld_core.errors import ConfigError
    from skawld_core.trust import describe_requests

    base = Path(cwd).expanduser().resolve() if cwd else Path.cwd()
    pending = ""
    try:
        try:
            loaded = load_config(cwd=base, project_config_path=config, ignore_user_config=no_user_config)
        except UntrustedProjectConfigError as exc:
            pending = f"{exc.path} is not trusted yet; it asks for:\n{describe_requests(exc.requests)}"
            loaded = load_config(
                cwd=base, project_config_path=config, ignore_user_config=no_user_config, accept_project_config=True
            )
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    for warning in loaded.warnings:
        sys.stderr.write(f"skawld: warning: {warning}\n")
    rows = effective_lines(loaded.raw, loaded.origins)
    if as_json:
        doc = {
            "config": _mask("", loaded.raw),
            "origins": loaded.origins,
            "projectTrusted": not pending and loaded.project_trusted,
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        if not rows:
            sys.stdout.write("(no settings: every value is the default)\n")
        width = max((len(k) for k, _, _ in rows), default=0)
        for key, value, origin in rows:
            sys.stdout.write(f"{key.ljust(width)}  {value}  # {origin}\n")
    if pending:
        sys.stderr.write(f"skawld: {pending}\n")
