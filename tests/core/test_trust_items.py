"""The acceptance record: items with kinds, what counts as changed, records written before issue 26."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skawld_core.config import (
    UntrustedProjectConfigError,
    load_config,
    project_trust_state,
    trust_project_config,
    trusted_projects_path,
)
from skawld_core.trust_items import ITEM_SOURCES, TrustItem, TrustScope, project_items


def _project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    return proj, {"HOME": str(tmp_path / "home")}


def _command(proj: Path, name: str, text: str) -> Path:
    path = proj / ".claude" / "commands" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_items_have_kinds_and_stable_tokens(tmp_path: Path) -> None:
    proj, env = _project(tmp_path)
    path = _command(proj, "n", "---\nallowed-tools: Bash\n---\n!`make` now")
    _command(proj, "plain", "just a prompt")  # asks for nothing: not an item
    items = project_items(TrustScope(proj, proj, Path(env["HOME"])))
    assert [(i.kind, i.key) for i in items] == [("command", str(path))]
    assert items[0].token.startswith(f"command:{path}:") and items[0].withheld
    assert len(ITEM_SOURCES) == 3


def test_an_extra_source_is_one_more_entry(tmp_path: Path) -> None:
    proj, env = _project(tmp_path)
    plugin = TrustItem("plugin", "demo", "abc")
    items = project_items(TrustScope(proj, proj, Path(env["HOME"])), [*ITEM_SOURCES, lambda s: [plugin]])
    assert items[-1] is plugin and plugin.token == "plugin:demo:abc"


def test_a_record_from_before_items_asks_again_for_what_it_did_not_cover(tmp_path: Path) -> None:
    proj, env = _project(tmp_path)
    loaded = load_config(cwd=proj, env=env)
    assert loaded.project_path is not None
    trust_project_config(loaded.project_path, env=env)
    record = json.loads(trusted_projects_path(env).read_text())
    entry = record["projects"][str(loaded.project_path)]
    record["projects"][str(loaded.project_path)] = {"sha256": entry["sha256"]}  # the old shape
    trusted_projects_path(env).write_text(json.dumps(record))
    assert project_trust_state(loaded.project_path, env=env) == (True, frozenset())
    _command(proj, "n", "---\nallowed-tools: Bash\n---\ngo")
    with pytest.raises(UntrustedProjectConfigError) as info:
        load_config(cwd=proj, env=env)
    assert [r.changed for r in info.value.requests] == [True]
