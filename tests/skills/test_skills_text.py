"""Listing, substitution, shell splitting and the model overlay (§2.15)."""

from __future__ import annotations

from pathlib import Path

from skawld_core.skills import Skill, listing_budget, overlay_model, render_listing, render_skill, shell_split


def sk(name: str, desc: str = "d", **kw: object) -> Skill:
    return Skill(name=name, description=desc, body="", directory=Path("/x"), **kw)  # type: ignore[arg-type]


def test_listing_lines() -> None:
    assert render_listing([]) == ""
    skills = [sk("beta", "Second  one\n spaced", when_to_use="later", argument_hint="<x>"), sk("Alpha", "First")]
    assert render_listing(skills) == "- Alpha: First\n- beta: Second one spaced — later (args: <x>)"


def test_listing_hides_disabled_and_is_stable() -> None:
    skills = [sk("a"), sk("hidden", disable_model_invocation=True)]
    assert render_listing(skills) == "- a: d"
    assert render_listing(skills) == render_listing(list(reversed(skills)))


def test_entry_cap_250() -> None:
    line = render_listing([sk("x", "y" * 400)])
    desc = line.removeprefix("- x: ")
    assert len(desc) == 250 and desc.endswith("…")


def test_budget_shared_equally_then_names_only() -> None:
    skills = [sk("alpha", "a" * 100), sk("beta", "b" * 100)]
    out = render_listing(skills, budget=100)
    lines = out.split("\n")
    assert len(out) <= 100
    assert all(line.endswith("…") for line in lines)
    assert len(lines[0].removeprefix("- alpha: ")) == len(lines[1].removeprefix("- beta: "))
    assert render_listing(skills, budget=40) == "- alpha\n- beta"


def test_budget_from_context_window() -> None:
    assert listing_budget(200_000) == 8000
    assert listing_budget(1_000_000) == 40_000
    assert listing_budget(None) == 8000


def test_substitution() -> None:
    out = render_skill("hello world", skill_dir="/abs/path/to/s", session_id="s1", args="")
    assert out == "Skill base directory: /abs/path/to/s\n\nhello world"
    out = render_skill("$a + $b = ?", skill_dir="/d", session_id="s", args="1 2", arguments=["a", "b"])
    assert out.endswith("\n\n1 + 2 = ?")
    out = render_skill("[$a][$b]", skill_dir="/d", session_id="s", args="only", arguments=["a", "b"])
    assert out.endswith("[only][]")
    out = render_skill("$ARGUMENTS", skill_dir="/d", session_id="s", args='a "b c"')
    assert out.endswith('\n\na "b c"')
    out = render_skill("${SKAWLD_SKILL_DIR}/x ${SKAWLD_SESSION_ID}", skill_dir="/d", session_id="sid", args="")
    assert out.endswith("/d/x sid")


def test_substitution_single_pass_and_unknown_words() -> None:
    # a value that looks like a placeholder is never re-expanded
    out = render_skill("$a $HOME $b", skill_dir="/d", session_id="s", args="'$b' x", arguments=["a", "b"])
    assert out.endswith("\n\n$b $HOME x")
    out = render_skill("cost: $5 and $", skill_dir="/d", session_id="s", args="")
    assert out.endswith("cost: $5 and $")


def test_shell_split() -> None:
    assert shell_split("") == []
    assert shell_split("one") == ["one"]
    assert shell_split("  a  b   c ") == ["a", "b", "c"]
    assert shell_split("\"a b\" 'c d'") == ["a b", "c d"]
    assert shell_split('"say \\"hi\\""') == ['say "hi"']
    assert shell_split('"it\'s"') == ["it's"]
    assert shell_split("a 'unterminated rest of it") == ["a", "unterminated rest of it"]
    assert shell_split("x\\ y") == ["x y"]


def test_overlay_model_suffix() -> None:
    assert overlay_model("claude[1m]", "other") == "other[1m]"
    assert overlay_model("claude[1m]", "other[1m]") == "other[1m]"
    assert overlay_model("claude", "other") == "other"
    assert overlay_model("claude", "other[1m]") == "other[1m]"
    assert overlay_model("claude[1m]", None) is None
