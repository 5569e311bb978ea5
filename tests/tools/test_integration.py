"""default_tools and the reference's cross-tool flows (tools.integration.test)."""

from __future__ import annotations

from pathlib import Path

from skawld_core.tools import ToolContext, ToolRegistry, default_tools

from .conftest import call, text_of

ORDER = ["Read", "Write", "Edit", "Bash", "Glob", "Grep", "TaskCreate", "TaskList", "TaskGet", "TaskUpdate"]


def tools() -> dict[str, object]:
    return {t.name: t for t in default_tools()}


def test_ten_tools_in_order_and_registrable() -> None:
    ts = default_tools()
    assert [t.name for t in ts] == ORDER
    registry = ToolRegistry(ts)
    assert len(registry) == 10
    for schema in registry.schemas():
        assert schema.input_schema["type"] == "object"
        assert schema.description
    assert default_tools()[0] is not ts[0]


async def test_read_edit_read(tmp_path: Path, ctx: ToolContext) -> None:
    read, edit = default_tools()[0], default_tools()[2]
    (tmp_path / "a.py").write_text("x = 1\n")
    await call(read, ctx, file_path="a.py")
    assert not (await call(edit, ctx, file_path="a.py", old_string="1", new_string="2")).is_error
    assert text_of(await call(read, ctx, file_path="a.py")) == "     1\tx = 2"


async def test_edit_without_read_is_error(tmp_path: Path, ctx: ToolContext) -> None:
    edit = default_tools()[2]
    (tmp_path / "a.py").write_text("x = 1\n")
    assert (await call(edit, ctx, file_path="a.py", old_string="1", new_string="2")).is_error


async def test_write_then_edit_without_read(tmp_path: Path, ctx: ToolContext) -> None:
    _, write, edit, *_ = default_tools()
    await call(write, ctx, file_path="n.py", content="a\n")
    assert not (await call(edit, ctx, file_path="n.py", old_string="a", new_string="b")).is_error
    assert (tmp_path / "n.py").read_text() == "b\n"


async def test_glob_read_edit(tmp_path: Path, ctx: ToolContext) -> None:
    read, _, edit, _, glob, *_ = default_tools()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("value = 'old'\n")
    found = text_of(await call(glob, ctx, pattern="**/*.py"))
    assert found == "pkg/m.py"
    await call(read, ctx, file_path=found)
    assert not (await call(edit, ctx, file_path=found, old_string="old", new_string="new")).is_error


async def test_bash_creates_then_read(tmp_path: Path, ctx: ToolContext) -> None:
    read, _, _, bash, *_ = default_tools()
    r = await call(bash, ctx, command="printf 'made\\n' > made.txt")
    assert text_of(r) == "\nexit: 0"
    assert text_of(await call(read, ctx, file_path="made.txt")) == "     1\tmade"


def test_schemas_are_json_and_stable() -> None:
    import json

    first = [json.dumps(s.input_schema, sort_keys=False) for s in ToolRegistry(default_tools()).schemas()]
    second = [json.dumps(s.input_schema, sort_keys=False) for s in ToolRegistry(default_tools()).schemas()]
    assert first == second


def test_import_stays_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, skawld_core.tools; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'anthropic', 'openai', 'mcp', 'textual', 'aiosqlite'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
