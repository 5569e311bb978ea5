"""`skawld plugin marketplace update` through the real `skawld`, on a marketplace in a local git
repository: a new commit is fetched, the installed plugin with another version is named, and
nothing installed changes until it is installed again (which shows what it runs and asks)."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_plugins import git, write_git_marketplace

from tests.cli.harness import CliEnv


def bump_toolkit(market: Path, version: str) -> None:
    manifest = market / "plugins" / "toolkit" / ".claude-plugin" / "plugin.json"
    doc = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**doc, "version": version}))
    git(market, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", f"toolkit {version}")


def test_update_fetches_and_names_outdated_plugins_without_changing_them(cli: CliEnv, tmp_path: Path) -> None:
    market = write_git_marketplace(tmp_path / "market")
    assert cli.run("plugin", "marketplace", "add", f"file://{market}").returncode == 0
    assert cli.run("plugin", "install", "toolkit@team-tools", "--yes").returncode == 0

    same = cli.run("plugin", "marketplace", "update")
    assert same.returncode == 0, same.stderr
    assert "Updated marketplace team-tools (2 plugins)" in same.stdout and "available" not in same.stdout

    bump_toolkit(market, "1.3.0")
    updated = cli.run("plugin", "marketplace", "update", "team-tools")
    assert updated.returncode == 0, updated.stderr
    assert (
        "toolkit@team-tools: 1.2.0 installed, 1.3.0 available; update with: skawld plugin install toolkit@team-tools"
        in updated.stdout
    )
    clone = cli.home / ".skawld" / "plugins" / "marketplaces" / "team-tools"
    assert '"1.3.0"' in (clone / "plugins" / "toolkit" / ".claude-plugin" / "plugin.json").read_text()
    assert "toolkit@team-tools  1.2.0  enabled" in cli.run("plugin", "list").stdout  # not changed by itself

    assert cli.run("plugin", "install", "toolkit@team-tools", "--yes").returncode == 0
    assert "toolkit@team-tools  1.3.0  enabled" in cli.run("plugin", "list").stdout
    assert "available" not in cli.run("plugin", "marketplace", "update").stdout


def test_update_of_an_unknown_marketplace_is_a_clear_error(cli: CliEnv) -> None:
    done = cli.run("plugin", "marketplace", "update", "nowhere")
    assert done.returncode == 1 and "unknown marketplace 'nowhere' (known: none)" in done.stderr
