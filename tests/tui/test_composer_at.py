"""`@` fuzzy completion and `@file` attachment in the app."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from skawld_core.messages import TextBlock
from skawld_core.testing import reply
from skawld_core.tools.read import ReadTool
from skawld_tui.app.screens.permission import PermissionScreen
from skawld_tui.app.widgets.blocks import NoteLine, UserMessage
from skawld_tui.attachments import mentions, resolve_mention
from skawld_tui.path_complete import FileIndex, fuzzy_files, fuzzy_score, list_project_files
from tests.support.big_tree import generate_tree

from .helpers import SIZE, make_app, ready, run_done, send, until


def _texts(app: object, request: int = -1) -> list[str]:
    message = app.test_provider.requests[request].messages[-1]  # type: ignore[attr-defined]
    return [b.text for b in message.content if isinstance(b, TextBlock)]


def test_fuzzy_ranking_prefers_file_names_and_word_starts() -> None:
    files = ["docs/guide.md", "skawld_tui/widgets/prompt.py", "src/prompt_util.py", "tests/test_prompt.py"]
    assert fuzzy_files(files, "prompt")[:2] == ["src/prompt_util.py", "skawld_tui/widgets/prompt.py"]
    assert fuzzy_files(files, "swp") == ["skawld_tui/widgets/prompt.py"]
    assert fuzzy_files(files, "zzz") == []


def test_the_tiered_index_ranks_exactly_like_scoring_every_file() -> None:
    import random

    rng = random.Random(7)
    words = ["app", "core", "prompt", "test", "util", "_x", "widgets", "session", "a", "p"]
    files = [
        "/".join(rng.choice(words) + rng.choice(words) for _ in range(rng.randint(1, 4))) + ".py" for _ in range(800)
    ]
    index = FileIndex(files)
    for query in ["p", "pr", "prompt", "pt", "ptu", "w", "zz", "coreapp", "s_x"]:  # extensions reuse the pool
        brute = sorted((-s, i) for i, f in enumerate(files) if (s := fuzzy_score(query, f)) is not None)
        assert index.rank(query) == [files[i] for _, i in brute[:12]], query


async def test_listing_respects_gitignore(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("x")
    (tmp_path / "app.log").write_text("x")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("x")
    assert await list_project_files(tmp_path) == ["src/main.py"]


def test_mentions_and_trailing_punctuation(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x")
    assert mentions('see @a.py, and @"my file.txt" but not mail@host') == ["a.py,", "my file.txt"]
    assert resolve_mention("a.py,", tmp_path) == tmp_path / "a.py"
    assert resolve_mention("nope.py", tmp_path) is None


async def test_fuzzy_completion_then_the_file_is_attached(tmp_path: Path) -> None:
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "deep" / "engine_core.py").write_text("def run():\n    return 42\n")
    (tmp_path / "README.md").write_text("readme\n")
    app = make_app([reply("seen")], cwd=tmp_path, tools=[ReadTool()])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press(*"explain @engco")
        await until(lambda: app.completions.value == "@src/deep/engine_core.py", pilot)
        await pilot.press("tab")
        assert app.prompt.text == "explain @src/deep/engine_core.py "
        await pilot.press("enter")
        await run_done(pilot)
        texts = _texts(app)
        assert texts[-1] == "explain @src/deep/engine_core.py"
        attached = [t for t in texts if "Called the Read tool" in t]
        assert len(attached) == 1 and "return 42" in attached[0]
        assert str(tmp_path / "src" / "deep" / "engine_core.py") in attached[0]
        assert [m.text for m in app.query(UserMessage)] == ["explain @src/deep/engine_core.py"]
        assert any("attached src/deep/engine_core.py" in str(n.render()) for n in app.query(NoteLine))
        # The model may now edit the file without reading it first.
        assert app.session is not None
        assert app.session.file_read_tracker.has_read(tmp_path / "src" / "deep" / "engine_core.py")


async def test_a_read_denied_file_is_not_attached(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("API_KEY=hunter2\n")
    (tmp_path / "ok.txt").write_text("fine\n")
    rules = [{"kind": "path", "tools": ["Read"], "paths": [".env"], "decision": "deny"}]
    app = make_app([reply("done")], cwd=tmp_path, tools=[], permission_rules=rules)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "compare @.env with @ok.txt please")
        await run_done(pilot)
        joined = "\n".join(_texts(app))
        assert "hunter2" not in joined and "fine" in joined
        notes = [str(n.render()) for n in app.query(NoteLine)]
        assert any("not attached: .env" in n for n in notes)


async def test_a_file_outside_the_project_gets_the_decision_read_gets(tmp_path: Path) -> None:
    """Read is allowed everywhere by default; a path rule on the outside file still applies."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "far.txt").write_text("from afar\n")
    (outside / "key.pem").write_text("PRIVATE\n")
    rules = [{"kind": "path", "tools": ["Read"], "paths": [str(outside / "*.pem")], "decision": "deny"}]
    app = make_app([reply("ok")], cwd=project, tools=[ReadTool()], permission_rules=rules)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, f"look at @{outside / 'far.txt'} and @{outside / 'key.pem'} now")
        await run_done(pilot)
        assert not isinstance(app.screen, PermissionScreen)
        joined = "\n".join(_texts(app))
        assert "from afar" in joined and "PRIVATE" not in joined


async def test_a_large_listing_is_ranked_off_the_ui_thread_and_every_file_is_findable(tmp_path: Path) -> None:
    """Above `QUICK_LISTING` files the ranking runs in a thread; its answer replaces
    the prefix completion shown meanwhile, and a file past the old 20,000 cap is found."""
    dirs = generate_tree(tmp_path, 25_000)
    (dirs[-1] / "engine_core.py").write_text("x\n")
    os.utime(dirs[-1] / "engine_core.py", (1000, 1000))  # the oldest: a cap on the newest would drop it
    target = f"@{(dirs[-1] / 'engine_core.py').relative_to(tmp_path)}"
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press(*"see @engco")
        await until(lambda: app.completions.value == target, pilot, timeout=60)
        await pilot.press("tab")
        assert app.prompt.text == f"see {target} "
