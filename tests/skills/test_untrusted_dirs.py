"""`Agent(untrusted_config_dirs=...)`: skills and agents from there load without grants."""

from __future__ import annotations

from pathlib import Path

import pytest
from ext_helpers import make_agent, write_agent, write_skill

from skawld_core.skills import SkillLoadResult
from skawld_core.skills.tool import SkillInput, SkillTool
from skawld_core.subagents import SubagentRegistry
from skawld_core.testing import ScriptedProvider, reply

pytestmark = pytest.mark.timeout(30)


def _dirs(tmp_path: Path) -> tuple[Path, Path]:
    project, user = tmp_path / "proj" / ".skawld", tmp_path / "home" / ".skawld"
    write_skill(project, "deploy", "description: Deploy\nmodel: big-model\nallowed_tools: [Bash]", "Deploy.")
    write_skill(user, "mine", "description: Mine\nallowed_tools: [Bash]", "Mine.")
    write_agent(project, "reviewer.md", "description: Reviews\nmodel: big-model")
    write_agent(user, "helper.md", "description: Helps\nmodel: big-model")
    return project, user


@pytest.mark.parametrize("trusted", [False, True])
async def test_grants_apply_only_from_trusted_dirs(tmp_path: Path, trusted: bool) -> None:
    project, user = _dirs(tmp_path)
    agent = make_agent(
        tmp_path,
        ScriptedProvider([reply("hi")]),
        config_dir=[project, user],
        untrusted_config_dirs=[] if trusted else [project],
    )
    session = await agent.session()
    _ = [e async for e in session.run("hi")]
    skills = {s.name: s for s in agent.extensions.skills.skills}
    assert isinstance(agent.extensions.skills, SkillLoadResult)
    assert skills["deploy"].allowed_tools == (("Bash",) if trusted else ())
    assert skills["deploy"].model == ("big-model" if trusted else None)
    assert skills["mine"].allowed_tools == ("Bash",), "the user's own skills keep their grants"
    registry = agent.extensions.subagents
    assert isinstance(registry, SubagentRegistry)
    reviewer, helper = registry.get("reviewer"), registry.get("helper")
    assert reviewer is not None and helper is not None
    assert reviewer.model == ("big-model" if trusted else None)
    assert helper.model == "big-model"
    tool = agent.tools.get("Skill")
    assert isinstance(tool, SkillTool)
    summary = tool.summarize(SkillInput(skill="deploy"))
    assert ("grants Bash" in summary) is trusted
    assert ("allowed_tools are ignored" in summary) is (not trusted)
    await agent.close()
