"""Skill loading from real directories on disk (§2.15, loader.test, loader.multi-dir)."""

from __future__ import annotations

import os
from pathlib import Path

from ext_helpers import write_skill

from skawld_core.skills import load_skills


def reasons(result: object) -> dict[str, str]:
    return {s.path.name: s.reason for s in result.skipped}  # type: ignore[attr-defined]


def test_full_field_set(tmp_path: Path) -> None:
    write_skill(
        tmp_path,
        "deploy",
        """
        name: Deploy
        description: Ship it
        when_to_use: after tests pass
        allowed_tools: [Bash, Read]
        arguments: [env, version]
        argument_hint: "<env> <version>"
        model: big-model
        version: "1.2"
        disable_model_invocation: false
        some_unknown_key: ignored
        """,
        "Deploy $env at $version",
    )
    result = load_skills([tmp_path])
    assert result.skipped == []
    [skill] = result.skills
    assert skill.name == "deploy"  # lowercased
    assert skill.description == "Ship it"
    assert skill.when_to_use == "after tests pass"
    assert skill.allowed_tools == ("Bash", "Read")
    assert skill.arguments == ("env", "version")
    assert skill.argument_hint == "<env> <version>"
    assert skill.model == "big-model"
    assert skill.version == "1.2"
    assert skill.body == "Deploy $env at $version"
    assert skill.directory == (tmp_path / "skills" / "deploy").resolve()
    assert not skill.is_plain


def test_minimal_and_empty_body(tmp_path: Path) -> None:
    write_skill(tmp_path, "mini", "description: only this", "")
    [skill] = load_skills([tmp_path]).skills
    assert (skill.name, skill.body, skill.is_plain) == ("mini", "", True)


def test_skip_reasons(tmp_path: Path) -> None:
    write_skill(tmp_path, "nodesc", "name: nodesc")
    write_skill(tmp_path, "badyaml", "description: [unclosed")
    write_skill(tmp_path, "nofm", None, "just a body")
    (tmp_path / "skills" / "empty").mkdir()
    write_skill(tmp_path, "read", "description: collides with the Read tool")
    write_skill(tmp_path, "a-first", "name: dup\ndescription: first")
    write_skill(tmp_path, "b-second", "name: DUP\ndescription: second")
    write_skill(tmp_path, "badname", "name: '-bad'\ndescription: x")
    write_skill(tmp_path, "badargs", "description: x\narguments: [ARGUMENTS_X]")
    write_skill(tmp_path, "dupargs", "description: x\narguments: [a, a]")
    write_skill(tmp_path, "wsallowed", "description: x\nallowed_tools: ['Bash Read']")
    (tmp_path / "skills" / "file.txt").write_text("not a dir")
    result = load_skills([tmp_path])
    assert [s.name for s in result.skills] == ["dup"]
    assert result.skills[0].description == "first"
    assert reasons(result) == {
        "nodesc": "invalid-frontmatter",
        "badyaml": "invalid-frontmatter",
        "nofm": "invalid-frontmatter",
        "empty": "missing-skill-md",
        "read": "name-collision-tool",
        "b-second": "name-collision-skill",
        "badname": "invalid-frontmatter",
        "badargs": "invalid-frontmatter",
        "dupargs": "invalid-frontmatter",
        "wsallowed": "invalid-frontmatter",
    }


def test_symlinked_skill_dir_is_skipped(tmp_path: Path) -> None:
    real = write_skill(tmp_path / "elsewhere", "real", "description: real")
    (tmp_path / "cfg" / "skills").mkdir(parents=True)
    os.symlink(real, tmp_path / "cfg" / "skills" / "linked")
    linked_md = write_skill(tmp_path / "cfg", "mdlink", None)
    (linked_md / "SKILL.md").unlink()
    os.symlink(real / "SKILL.md", linked_md / "SKILL.md")
    result = load_skills([tmp_path / "cfg"])
    assert result.skills == []
    assert reasons(result) == {"linked": "io-error", "mdlink": "io-error"}


def test_missing_dir_and_sorting(tmp_path: Path) -> None:
    assert load_skills([tmp_path / "nope"]).skills == []
    for n in ["zeta", "alpha", "mid"]:
        write_skill(tmp_path, n, f"description: {n}")
    assert [s.name for s in load_skills([tmp_path]).skills] == ["alpha", "mid", "zeta"]


def test_multi_dir_first_wins(tmp_path: Path) -> None:
    write_skill(tmp_path / "one", "commit", "description: from one")
    write_skill(tmp_path / "two", "commit", "description: from two")
    write_skill(tmp_path / "two", "deploy", "description: only two")
    result = load_skills([tmp_path / "one", tmp_path / "missing", tmp_path / "two"])
    assert [(s.name, s.description) for s in result.skills] == [("commit", "from one"), ("deploy", "only two")]
    assert [s.reason for s in result.skipped] == ["name-collision-skill"]


def test_claude_style_skill_md_loads_unchanged(tmp_path: Path) -> None:
    write_skill(
        tmp_path,
        "pr-review",
        """
        name: pr-review
        description: Review a pull request
        when-to-use: when the user asks for a review
        allowed-tools: Read, Grep, Bash(git diff:*)
        argument-hint: "[pr-number]"
        disable-model-invocation: false
        model: inherit
        """,
        "Review PR $ARGUMENTS",
    )
    [skill] = load_skills([tmp_path]).skills
    assert skill.when_to_use == "when the user asks for a review"
    # a qualified entry cannot be enforced by a per-tool overlay, so it is dropped (not widened)
    assert skill.allowed_tools == ("Read", "Grep")
    assert skill.argument_hint == "[pr-number]"
    assert skill.model is None


def test_snake_case_wins_over_hyphenated(tmp_path: Path) -> None:
    write_skill(tmp_path, "s", "description: d\nargument_hint: snake\nargument-hint: hyphen")
    assert load_skills([tmp_path]).skills[0].argument_hint == "snake"
