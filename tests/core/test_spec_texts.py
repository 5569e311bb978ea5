"""Texts the model reads are the reference's words (reference-behaviour.md §2.7, §2.15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skawld_core.errors import ToolInputError
from skawld_core.skills.listing import render_listing, wrap_listing
from skawld_core.skills.types import Skill
from skawld_core.tools import default_tools

SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec" / "reference-behaviour.md"
TOOLS = {t.name: t for t in default_tools()}


def _error(tool: str, raw: dict[str, object]) -> str:
    with pytest.raises(ToolInputError) as info:
        TOOLS[tool].validate(raw)
    return str(info.value)


def test_the_quoted_validation_message_is_the_references() -> None:
    quoted = "file_path must be a non-empty string"
    if SPEC.exists():
        assert f'"{quoted}"' in SPEC.read_text(encoding="utf-8")
    assert _error("Read", {}) == quoted
    assert _error("Read", {"file_path": ""}) == quoted
    assert _error("Read", {"file_path": 3}) == quoted
    assert _error("Read", {"file_path": None}) == quoted


@pytest.mark.parametrize(
    ("tool", "raw", "expected"),
    [
        ("Read", {"file_path": 3}, "file_path must be a non-empty string"),
        ("Edit", {"file_path": "a", "old_string": 1, "new_string": "b"}, "old_string must be a string"),
        ("Write", {"file_path": "a.txt"}, "content must be a string"),
        ("Bash", {"command": ["ls"]}, "command must be a non-empty string"),
        ("Read", {"file_path": "a", "offset": "x"}, "offset must be an integer"),
        (
            "TaskUpdate",
            {"task_id": "1", "status": "bogus"},
            "status must be one of 'pending', 'in_progress', 'completed' or 'deleted'",
        ),
        ("Read", {"file_path": "a", "colour": 1}, "unknown field colour"),
    ],
)
def test_common_validation_errors_use_plain_words(tool: str, raw: dict[str, object], expected: str) -> None:
    message = _error(tool, raw)
    assert expected in message
    assert "Input should be" not in message and "Field required" not in message


def test_several_errors_are_joined_in_field_order() -> None:
    assert _error("Edit", {}) == (
        "file_path must be a non-empty string; old_string must be a string; new_string must be a string"
    )


def test_skill_listing_has_no_header_line() -> None:
    skills = [Skill(name="commit", description="Commit the work", body="", directory=Path("/s/commit"))]
    text = wrap_listing(render_listing(skills))
    assert text == "<skill_listing>\n- commit: Commit the work\n</skill_listing>"
