"""`/plugin`: the Claude Code plugins this session loaded, and what the known marketplaces offer."""

from __future__ import annotations

from .base import CommandHost, command


def plugin_listing(loaded: tuple[object, ...]) -> str:
    """Markdown: the loaded plugins (what each brings, its hooks and servers in full), then every
    known marketplace's plugins marked installed or not, with the command that installs one."""
    from skawld_core.plugins.store import installed_plugins, known_marketplaces
    from skawld_core.plugins.types import Plugin, PluginError

    from ..cli.plugin import describe_plugin  # lazy: the plugin sub-command loads only for /plugin

    lines: list[str] = []
    plugins = [p for p in loaded if isinstance(p, Plugin)]
    if plugins:
        lines.append("**Loaded plugins**")
        for plugin in plugins:
            first, *rest = describe_plugin(plugin)
            lines.append(f"- **{first}**")
            lines += [f"  - {line.strip()}" for line in rest]
    else:
        lines.append("No plugins loaded (`--plugin-dir DIR`, or `skawld plugin install name@marketplace`).")
    try:
        known, installed = known_marketplaces(), installed_plugins()
    except PluginError as exc:
        return "\n".join([*lines, "", f"cannot read the plugin state: {exc}"])
    for market in known.values():
        lines += ["", f"**Marketplace {market.name}** ({market.source})"]
        for entry in market.plugins:
            spec = f"{entry['name']}@{market.name}"
            record = installed.get(spec)
            state = "not installed" if record is None else ("enabled" if record.get("enabled", True) else "disabled")
            lines.append(f"- `{spec}` — {entry.get('description', '')} ({state})")
    if known:
        lines += ["", "Install with `skawld plugin install name@marketplace` (it shows what the plugin runs and asks)."]
    return "\n".join(lines)


@command("plugin", "List plugins and marketplaces", aliases=("plugins",))
async def plugin_command(host: CommandHost, args: str) -> None:
    await host.markdown(plugin_listing(host.agent.plugins if host.agent else ()))
