"""``skawld checkpoints list|restore``: rewind without the app.

- ``list [--session ID]``: the session's prompts, numbered, with their checkpoint
  commits (default session: the newest conversation of the directory);
  ``--json`` prints NDJSON ``{number, index, prompt, at, commit}``;
- ``restore N [--session ID] [--what both|code|conversation] [--yes] [--keep-mine]``:
  restore the project's files and/or the conversation to before prompt N. The
  conversation is restored by forking (a new session, printed as
  ``skawld --resume <id>``); the original session is kept. The file state
  before the restore is itself kept as a checkpoint (printed). Files that changed
  after that checkpoint but not through the agent's file tools (your edits, files
  you created; `skawld_core.checkpoints.user_changes`) are named before asking;
  ``--yes`` names them on stderr and goes ahead, ``--keep-mine`` leaves them alone.

Files outside the project and effects outside the filesystem are not covered.
Exit codes: 0 ok, 1 failure, 2 usage (unknown session or prompt), 3 config.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from .subcommand import new_app, run_on_store

app = new_app("List and restore checkpoints (the project's files before each prompt).")

SessionOpt = Annotated[
    str | None, typer.Option("--session", "-s", help="Session id or unique prefix (default: the newest).")
]
CwdOpt = Annotated[str | None, typer.Option("--cwd", help="Project directory (default: current).")]


class What(StrEnum):
    both = "both"
    code = "code"
    conversation = "conversation"


def _fail(message: str, code: int = 1) -> typer.Exit:
    sys.stderr.write(f"skawld: {message}\n")
    return typer.Exit(code)


def _settings(cwd: str | None) -> Any:
    from skawld_core.errors import ConfigError
    from skawld_core.settings import CliOptions, resolve_settings

    base = Path(cwd).expanduser().resolve() if cwd else Path.cwd()
    try:  # nothing runs, so the project-config trust gate does not apply
        return resolve_settings(CliOptions(cwd=str(base), accept_project_config=True))
    except ConfigError as exc:
        raise _fail(str(exc), 3) from None


async def _points(store: Any, cwd: Path, session: str | None) -> tuple[str, list[Any], list[Any]]:
    from skawld_core.sessions.listing import SessionLookupError, newest_conversation, resolve_session_id
    from skawld_core.sessions.meta import prompt_points

    if session:
        try:
            session_id = await resolve_session_id(store, session)
        except SessionLookupError as exc:
            raise _fail(str(exc), 2) from None
    else:
        found = await newest_conversation(store, cwd)
        if found is None:
            raise _fail("no session with a prompt in this directory", 2)
        session_id = found
    record = await store.load(session_id)
    messages = [s.message for s in await store.load_messages(session_id)]
    return session_id, prompt_points(record.meta if record else {}, messages), messages


def _run(settings: Any, work: Any) -> Any:
    from skawld_core.errors import SkawldError
    from skawld_core.settings import make_store

    try:
        return run_on_store(lambda: make_store(settings), work)
    except SkawldError as exc:
        raise _fail(str(exc)) from None


@app.command("list")
def list_cmd(
    session: SessionOpt = None,
    cwd: CwdOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="NDJSON, one prompt a line.")] = False,
) -> None:
    """The session's prompts and their checkpoints, oldest first."""
    from skawld_core.sessions.listing import ago

    settings = _settings(cwd)

    async def work(store: Any) -> tuple[str, list[Any], list[Any]]:
        return await _points(store, settings.cwd, session)

    session_id, points, _messages = _run(settings, work)
    if not as_json:
        print(f"session {session_id}")
    for number, p in enumerate(points, 1):
        if as_json:
            row = {"number": number, "index": p.index, "prompt": p.text, "at": p.at, "commit": p.commit}
            print(json.dumps(row, ensure_ascii=False))
            continue
        when = ago(p.at) if p.at else "?"
        commit = p.commit[:12] if p.commit else "(no checkpoint)"
        first = p.text.splitlines()[0] if p.text else ""
        print(f"{number:>3}. {commit:<15} {when:>8}  {first[:80]}")


@app.command("restore")
def restore_cmd(
    number: Annotated[int, typer.Argument(help="Prompt number from `skawld checkpoints list`.", min=1)],
    session: SessionOpt = None,
    cwd: CwdOpt = None,
    what: Annotated[What, typer.Option("--what", help="both | code | conversation.")] = What.both,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Do not ask before rewriting files (your changes are listed on stderr).")
    ] = False,
    keep_mine: Annotated[
        bool, typer.Option("--keep-mine", help="Leave files changed since the checkpoint, not by the agent, alone.")
    ] = False,
) -> None:
    """Restore files and/or the conversation to before prompt NUMBER."""
    from skawld_core.from_config import project_checkpoints
    from skawld_core.sessions.fork import fork_session

    settings = _settings(cwd)

    async def load(store: Any) -> tuple[str, list[Any], list[Any]]:
        return await _points(store, settings.cwd, session)

    session_id, points, messages = _run(settings, load)
    if number > len(points):
        raise _fail(f"session {session_id[:8]} has {len(points)} prompts; there is no prompt {number}", 2)
    point = points[number - 1]
    code = what in (What.both, What.code)
    if code and point.commit is None:
        raise _fail(f"prompt {number} has no code checkpoint (use --what conversation)", 2)
    engine = project_checkpoints(settings)
    mine = _run(settings, lambda _store: _user_changes(engine, point, messages, settings.cwd)) if code else []
    _announce(mine, keep_mine=keep_mine)
    if code and not yes:
        keeping = " (keeping the files listed above)" if mine and keep_mine else ""
        sys.stderr.write(f"Rewrite the files of {settings.cwd} to their state before prompt {number}{keeping}? [y/N] ")
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            raise _fail("nothing restored")

    async def work(store: Any) -> tuple[Any, str | None]:
        result = None
        if code:
            keep = {c.path for c in mine} if keep_mine else set()
            result = await engine.restore(point.commit, keep=keep)
        fork_id = None
        if what in (What.both, What.conversation):
            fork_id = (await fork_session(store, session_id, upto=point.index)).id
        return result, fork_id

    result, fork_id = _run(settings, work)
    if result is not None:
        print(f"restored files: {len(result.written)} written, {len(result.deleted)} removed")
        if result.kept:
            print(f"left as they are (your changes): {', '.join(result.kept)}")
        print(f"the state before this restore is checkpoint {result.backup}")
    if fork_id is not None:
        print(f"conversation forked before prompt {number}: skawld --resume {fork_id}")


async def _user_changes(engine: Any, point: Any, messages: list[Any], cwd: Path) -> list[Any]:
    from skawld_core.checkpoints import agent_written_paths, user_changes

    agent = agent_written_paths(messages[point.index :], engine.project, cwd)
    return await user_changes(engine, point.commit, agent)


def _announce(mine: list[Any], *, keep_mine: bool) -> None:
    """Name the user's own changes since the checkpoint on stderr before anything is rewritten."""
    if not mine:
        return
    from skawld_core.checkpoints import describe_changes

    head = (
        "These files changed after that checkpoint, not by the agent; --keep-mine leaves them as they are:"
        if keep_mine
        else "These files changed after that checkpoint, not by the agent; restoring overwrites them:"
    )
    sys.stderr.write(f"{head}\n{describe_changes(mine)}\n")
    sys.stderr.flush()
