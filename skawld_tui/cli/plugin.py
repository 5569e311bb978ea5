"""``skawld plugin …``: Claude Code plugins and marketplaces.

- ``marketplace add SOURCE``: a local directory or a git URL (or GitHub ``owner/repo``)
  holding ``.claude-plugin/marketplace.json``; ``marketplace list``; ``marketplace update
  [NAME]...`` fetches them again and names the installed plugins with another version
  (never updated by themselves: installing again shows what the new version runs and asks);
- ``install NAME@MARKETPLACE [--yes]``: copies the plugin under ``~/.skawld/plugins/``
  after showing what it brings (its commands, agents and skills, and every hook
  command and MCP server it would run) and asking; ``--yes`` answers for scripts.
  Without ``--yes`` and without a terminal it refuses rather than install unseen code;
- ``list``, ``enable``, ``disable``, ``uninstall``.

A plugin is code: its hooks and MCP servers run with your rights. Installing is the
consent for plugins you enable yourself; a plugin a *project* enables goes through
the project trust gate. Exit codes: 0 ok, 1 failure, 2 usage.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from skawld_core.plugins.store import (
    add_marketplace,
    commit_install,
    installed_plugins,
    known_marketplaces,
    prepare_install,
    remove_plugin,
    set_plugin_enabled,
    update_marketplaces,
)
from skawld_core.plugins.types import Plugin, PluginError

from .subcommand import new_app

app = new_app("Install and manage Claude Code plugins.")
marketplace_app = new_app("Add, list and update plugin marketplaces.")
app.add_typer(marketplace_app, name="marketplace")


def _fail(message: str, code: int = 1) -> typer.Exit:
    sys.stderr.write(f"skawld: {message}\n")
    return typer.Exit(code)


def describe_plugin(plugin: Plugin) -> list[str]:
    """What a plugin brings, one line each: the trust-relevant parts (hooks, servers) in full."""
    from skawld_core.plugins.enabled import plugin_requests

    head = (
        plugin.name
        + (f" {plugin.version}" if plugin.version else "")
        + (f" ({plugin.origin})" if plugin.origin else "")
    )
    lines = [head + (f": {plugin.description}" if plugin.description else ""), f"  from {plugin.root}"]
    parts = [
        f"{len(paths)} {what} folder(s)"
        for what, paths in (("command", plugin.commands), ("agent", plugin.agents), ("skill", plugin.skills))
        if paths
    ]
    if parts:
        lines.append("  brings " + ", ".join(parts))
    lines += [f"  {r.capability}: {r.what}" for r in plugin_requests(plugin, "")[1:]]
    return lines


@marketplace_app.command("add")
def marketplace_add(source: Annotated[str, typer.Argument(help="A directory or a git URL (or owner/repo).")]) -> None:
    """Remember a marketplace (a git URL is cloned under ~/.skawld/plugins/)."""
    try:
        market = add_marketplace(source)
    except PluginError as exc:
        raise _fail(str(exc)) from None
    print(f"Added marketplace {market.name} ({len(market.plugins)} plugins) from {market.source}")


@marketplace_app.command("list")
def marketplace_list() -> None:
    """The known marketplaces and their plugins."""
    try:
        known = known_marketplaces()
    except PluginError as exc:
        raise _fail(str(exc)) from None
    if not known:
        print("No marketplaces. Add one with: skawld plugin marketplace add DIR|GIT-URL")
    for market in known.values():
        print(f"{market.name}  ({market.source})")
        for entry in market.plugins:
            print(f"  {entry['name']}@{market.name}  {entry.get('description', '')}".rstrip())


@marketplace_app.command("update")
def marketplace_update(
    names: Annotated[list[str] | None, typer.Argument(metavar="[NAME]...", help="Marketplaces (default: all).")] = None,
) -> None:
    """Fetch marketplaces again and say which installed plugins have another version."""
    try:
        updated = update_marketplaces(names or ())
    except PluginError as exc:
        raise _fail(str(exc)) from None
    if not updated:
        print("No marketplaces. Add one with: skawld plugin marketplace add DIR|GIT-URL")
    for market, outdated in updated:
        print(f"Updated marketplace {market.name} ({len(market.plugins)} plugins) from {market.source}")
        for plugin in outdated:
            print(
                f"  {plugin.spec}: {plugin.installed or 'unversioned'} installed, {plugin.available} available;"
                f" update with: skawld plugin install {plugin.spec}"
            )


@app.command("install")
def install(
    spec: Annotated[str, typer.Argument(metavar="NAME@MARKETPLACE")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Install without asking.")] = False,
) -> None:
    """Install (and enable) a plugin from a known marketplace, after showing what it runs."""
    try:
        plugin, staging = prepare_install(spec)
    except PluginError as exc:
        raise _fail(str(exc)) from None
    import shutil

    try:
        print("\n".join(describe_plugin(plugin)))
        if not yes:
            if not sys.stdin.isatty():
                raise _fail("a plugin runs code: confirm on a terminal, or pass --yes to install it", 2)
            if not typer.confirm("Install this plugin? Its hooks and MCP servers run with your rights"):
                raise _fail("not installed")
        installed = commit_install(spec, staging)
    except PluginError as exc:
        raise _fail(str(exc)) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print(f"Installed {spec} in {installed.root} (enabled)")


@app.command("list")
def list_plugins() -> None:
    """Installed plugins and whether they are enabled."""
    try:
        records = installed_plugins()
    except PluginError as exc:
        raise _fail(str(exc)) from None
    if not records:
        print("No plugins installed.")
    for spec, record in sorted(records.items()):
        state = "enabled" if record.get("enabled", True) else "disabled"
        print(f"{spec}  {record.get('version') or ''}  {state}  {record.get('path')}")


def _toggle(spec: str, enabled: bool) -> None:
    try:
        set_plugin_enabled(spec, enabled)
    except PluginError as exc:
        raise _fail(str(exc)) from None
    print(f"{spec} {'enabled' if enabled else 'disabled'}")


@app.command("enable")
def enable(spec: Annotated[str, typer.Argument(metavar="NAME@MARKETPLACE")]) -> None:
    """Enable an installed plugin."""
    _toggle(spec, True)


@app.command("disable")
def disable(spec: Annotated[str, typer.Argument(metavar="NAME@MARKETPLACE")]) -> None:
    """Disable an installed plugin (kept installed)."""
    _toggle(spec, False)


@app.command("uninstall")
def uninstall(spec: Annotated[str, typer.Argument(metavar="NAME@MARKETPLACE")]) -> None:
    """Remove an installed plugin."""
    try:
        remove_plugin(spec)
    except PluginError as exc:
        raise _fail(str(exc)) from None
    print(f"Uninstalled {spec}")
