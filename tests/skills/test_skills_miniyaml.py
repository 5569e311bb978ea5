"""The built-in frontmatter parser (used without PyYAML) agrees with PyYAML on
the frontmatter skills and agents use, and rejects what it does not support."""

from __future__ import annotations

import textwrap

import pytest
import yaml

from skawld_core.skills import miniyaml

SAMPLES = [
    "description: Ship it\nname: deploy",
    "description: 'it''s quoted'\nargument_hint: \"<a> \\\"b\\\"\"",
    "allowed_tools: [Bash, Read, 'Edit']\narguments: [env, version]",
    "allowed-tools: Read, Grep, Bash(git diff:*)\ndisable-model-invocation: true",
    "tools:\n  - Read\n  - Grep\nmodel: inherit\ncolor: blue",
    "description: >\n  folded text\n  over lines\nwhen_to_use: |\n  line one\n  line two",
    "version: 1.2\ncount: 3\nflag: false\nempty:\nnothing: ~",
    "# a comment\ndescription: text # trailing comment\nmetadata:\n  owner: me\n  tags: [a, b]",
    "description: 'url: http://x/y'\nhint: a:b",
]


@pytest.mark.parametrize("sample", SAMPLES)
def test_agrees_with_pyyaml(sample: str) -> None:
    assert miniyaml.parse(sample) == yaml.safe_load(sample)


@pytest.mark.parametrize("bad", ["description: [unclosed", "key: 'open", "just text", "a: b\n   c: d", "x: {a: 1}"])
def test_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        miniyaml.parse(textwrap.dedent(bad))


def test_loader_uses_it_without_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from skawld_core.skills.frontmatter import FrontmatterError, split_frontmatter

    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` now raises ImportError
    assert split_frontmatter("---\ndescription: d\ntools: [A, B]\n---\nbody") == (
        {"description": "d", "tools": ["A", "B"]},
        "body",
    )
    with pytest.raises(FrontmatterError):
        split_frontmatter("---\ndescription: [oops\n---\n")
