"""``skawld work`` (a headless worker) and ``skawld tasks add|list|show``.

A *task list* is the task graph of one session in the configured store: the
list ``NAME`` is the session whose id is ``NAME`` (created on the first
``tasks add``), so ``--list`` also accepts the id of any session whose agent
made tasks with TaskCreate. The list comes from ``--list``, else
``SKAWLD_TASK_LIST``, else ``default``.

Workers on many machines share a list through a PostgreSQL store
(``sessionStore.kind = "postgres"`` or ``SKAWLD_DATABASE_URL``); the SQLite
store works for workers on one machine.

- ``skawld tasks add SUBJECT [-d TEXT] [--blocked-by ID]... [--meta K=V]...``,
  or ``--file tasks.jsonl`` (``-`` = stdin; one ``{"subject", "description"?,
  "metadata"?, "blocked_by"?}`` per line, ``blocked_by`` naming earlier lines'
  ids or ``"@N"`` for the N-th line of the file, from 1);
- ``skawld tasks list [--json]`` and ``skawld tasks show ID``;
- ``skawld work [--concurrency N] [--lease SECONDS]`` plus the model flags
  (``--model``, ``--provider``, ``--base-url``, ``--permission-mode``,
  ``--allowed-tools`` ...): runs until the list is drained. Progress goes to
  stderr; every task's session is resumable with ``skawld --resume ID``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ..exit_codes import EXIT_CONFIG, EXIT_ERROR, EXIT_USAGE
from .subcommand import new_app, run_on_store

if TYPE_CHECKING:
    from skawld_core.sessions.store import Task
    from skawld_core.settings import CliOptions, Settings

    from .worker import WorkerOptions

T = TypeVar("T")


tasks_app = new_app("Manage a shared task list (the graph `skawld work` drains).")
work_app = new_app("Claim ready tasks from a task list and run each in its own session.", no_args_is_help=False)

ListOpt = Annotated[
    str | None, typer.Option("--list", "-l", help="Task list name (default: $SKAWLD_TASK_LIST or 'default').")
]
CwdOpt = Annotated[str | None, typer.Option("--cwd", help="Project directory (default: current).")]
TrustOpt = Annotated[
    bool, typer.Option("--accept-project-config", help="Trust this project's config file (remembered).")
]


def main(args: list[str]) -> None:
    """Dispatch ``skawld work ...`` / ``skawld tasks ...`` (raises `SystemExit`)."""
    if args[0] == "tasks":
        tasks_app(args[1:], prog_name="skawld tasks", standalone_mode=True)
    else:
        work_app(args[1:], prog_name="skawld work", standalone_mode=True)


def _fail(message: str, code: int = EXIT_ERROR) -> typer.Exit:
    sys.stderr.write(f"skawld: {message}\n")
    return typer.Exit(code)


def _list_name(value: str | None) -> str:
    name = value or os.environ.get("SKAWLD_TASK_LIST") or "default"
    if not name.strip():
        raise _fail("the task list name must not be empty", EXIT_USAGE)
    return name


def _settings(opts: CliOptions) -> Settings:
    from skawld_core.config import UntrustedProjectConfigError, trust_project_config
    from skawld_core.errors import ConfigError
    from skawld_core.settings import resolve_settings

    try:
        settings = resolve_settings(opts)
        if opts.accept_project_config and settings.project_config_path and settings.project_config_path.is_file():
            trust_project_config(settings.project_config_path)
        return settings
    except UntrustedProjectConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    except (ConfigError, ValueError) as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None


def _graph_store(settings: Settings) -> Any:
    from skawld_core.sessions.claims import ClaimableTaskGraph
    from skawld_core.settings import make_store

    store = make_store(settings)
    if not isinstance(store, ClaimableTaskGraph):
        raise _fail(
            "task lists need a persistent store: set sessionStore.kind to postgres (or SKAWLD_DATABASE_URL) or sqlite",
            EXIT_CONFIG,
        )
    return store


def _run_with(settings: Settings, work: Callable[[Any], Awaitable[T]]) -> T:
    from skawld_core.errors import SessionStoreError, SkawldError

    store = _graph_store(settings)
    try:
        return run_on_store(lambda: store, work)
    except SessionStoreError as exc:
        raise _fail(f"session store error: {exc}") from None
    except SkawldError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None


def _out(obj: Any) -> None:
    try:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise typer.Exit(0) from None


def _task_json(task: Task) -> dict[str, Any]:
    return task.model_dump(mode="json")


def _parse_meta(pairs: list[str], raw: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if raw is not None:
        try:
            loaded = json.loads(raw)
        except ValueError as exc:
            raise _fail(f"--metadata is not valid JSON: {exc}", EXIT_USAGE) from None
        if not isinstance(loaded, dict):
            raise _fail("--metadata must be a JSON object", EXIT_USAGE)
        meta.update(loaded)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise _fail(f"--meta expects KEY=VALUE (got {pair!r})", EXIT_USAGE)
        meta[key.strip()] = value
    return meta


def _read_specs(path: str) -> list[dict[str, Any]]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise _fail(f"cannot read {path}: {exc.strerror or exc}", EXIT_USAGE) from None
    specs: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            spec = json.loads(line)
        except ValueError as exc:
            raise _fail(f"{path}:{number}: not valid JSON: {exc}", EXIT_USAGE) from None
        if not isinstance(spec, dict) or not isinstance(spec.get("subject"), str) or not spec["subject"].strip():
            raise _fail(f'{path}:{number}: expected an object with a non-empty "subject"', EXIT_USAGE)
        if not isinstance(spec.get("metadata", {}), dict) or not isinstance(spec.get("blocked_by", []), list):
            raise _fail(f'{path}:{number}: "metadata" must be an object and "blocked_by" a list', EXIT_USAGE)
        specs.append(spec)
    return specs


@tasks_app.command("add")
def tasks_add(
    subject: Annotated[str | None, typer.Argument(help="What to do (one line).")] = None,
    description: Annotated[str | None, typer.Option("--description", "-d", help="The full prompt.")] = None,
    blocked_by: Annotated[list[str] | None, typer.Option("--blocked-by", help="A task id this one waits for.")] = None,
    meta: Annotated[list[str] | None, typer.Option("--meta", help="KEY=VALUE metadata (repeatable).")] = None,
    metadata: Annotated[str | None, typer.Option("--metadata", help="Metadata as a JSON object.")] = None,
    file: Annotated[str | None, typer.Option("--file", "-f", help="NDJSON task specs ('-' = stdin).")] = None,
    task_list: ListOpt = None,
    cwd: CwdOpt = None,
    accept_project_config: TrustOpt = False,
) -> None:
    """Add tasks to the list; prints each new task as JSON."""
    from skawld_core.sessions.store import CreateTaskInput, TaskPatch
    from skawld_core.settings import CliOptions

    if (subject is None) == (file is None):
        raise _fail("give a SUBJECT or --file, not both", EXIT_USAGE)
    if file is not None:
        specs = _read_specs(file)
    else:
        assert subject is not None
        if not subject.strip():
            raise _fail("the subject must not be empty", EXIT_USAGE)
        specs = [
            {
                "subject": subject,
                "description": description or subject,
                "metadata": _parse_meta(meta or [], metadata),
                "blocked_by": list(blocked_by or []),
            }
        ]
    name = _list_name(task_list)
    settings = _settings(CliOptions(cwd=cwd, accept_project_config=accept_project_config))

    async def work(store: Any) -> None:
        await store.create(id=name, meta={"title": f"task list {name}", "kind": "task-list"})
        existing = {t.id for t in await store.list_tasks(name)}
        made: list[str] = []
        for number, spec in enumerate(specs, start=1):
            deps = [_resolve_dep(str(d), made, number) for d in spec.get("blocked_by", [])]
            missing = [d for d in deps if d not in existing]
            if missing:
                raise _fail(f"task {', '.join('#' + m for m in missing)} not found in list {name!r}", EXIT_USAGE)
            task = await store.create_task(
                name,
                CreateTaskInput(
                    subject=spec["subject"],
                    description=spec.get("description") or spec["subject"],
                    metadata=spec.get("metadata", {}),
                ),
            )
            if deps:
                task = await store.update_task(name, task.id, TaskPatch(add_blocked_by=deps))
            made.append(task.id)
            existing.add(task.id)
            _out(_task_json(task))

    _run_with(settings, work)


def _resolve_dep(ref: str, made: list[str], line: int) -> str:
    if not ref.startswith("@"):
        return ref
    try:
        index = int(ref[1:])
    except ValueError:
        raise _fail(f"line {line}: bad reference {ref!r} (use @N for the N-th task of the file)", EXIT_USAGE) from None
    if not 1 <= index <= len(made):
        raise _fail(f"line {line}: {ref} does not name an earlier task of the file", EXIT_USAGE)
    return made[index - 1]


@tasks_app.command("list")
def tasks_list(
    as_json: Annotated[bool, typer.Option("--json", help="NDJSON, one task per line.")] = False,
    task_list: ListOpt = None,
    cwd: CwdOpt = None,
    accept_project_config: TrustOpt = False,
) -> None:
    """The list's tasks in id order, with status, outcome and dependencies."""
    from skawld_core.settings import CliOptions

    name = _list_name(task_list)
    settings = _settings(CliOptions(cwd=cwd, accept_project_config=accept_project_config))
    tasks: list[Task] = _run_with(settings, lambda store: store.list_tasks(name))
    for task in tasks:
        if as_json:
            _out(_task_json(task))
            continue
        outcome = task.metadata.get("outcome")
        state = f"{task.status}/{outcome}" if outcome else task.status
        deps = f" (after {', '.join('#' + d for d in task.blocked_by)})" if task.blocked_by else ""
        owner = f" [{task.owner}]" if task.owner and task.status == "in_progress" else ""
        sys.stdout.write(f"#{task.id} {state}{owner} {task.subject}{deps}\n")


@tasks_app.command("show")
def tasks_show(
    task_id: Annotated[str, typer.Argument(help="The task id.")],
    task_list: ListOpt = None,
    cwd: CwdOpt = None,
    accept_project_config: TrustOpt = False,
) -> None:
    """One task as JSON (metadata holds outcome, result, attempts and its session id)."""
    from skawld_core.settings import CliOptions

    name = _list_name(task_list)
    settings = _settings(CliOptions(cwd=cwd, accept_project_config=accept_project_config))
    task = _run_with(settings, lambda store: store.get_task(name, task_id))
    if task is None:
        raise _fail(f"task #{task_id} not found in list {name!r}")
    _out(_task_json(task))


@work_app.callback(invoke_without_command=True)
def work(
    task_list: ListOpt = None,
    concurrency: Annotated[int, typer.Option("--concurrency", "-j", min=1, help="Tasks run at once.")] = 1,
    lease: Annotated[
        float,
        typer.Option(
            "--lease", min=0.2, max=86_400.0, help="Seconds a claim lasts without a heartbeat (at most a day)."
        ),
    ] = 60.0,
    poll: Annotated[float, typer.Option("--poll", min=0.05, help="Seconds between claims when none is ready.")] = 1.0,
    max_attempts: Annotated[
        int, typer.Option("--max-attempts", min=1, help="Claims a task gets before it ends failed.")
    ] = 3,
    model: Annotated[str | None, typer.Option("--model", "-m")] = None,
    provider: Annotated[str | None, typer.Option("--provider")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key")] = None,
    permission_mode: Annotated[str | None, typer.Option("--permission-mode")] = None,
    allowed_tools: Annotated[list[str] | None, typer.Option("--allowed-tools")] = None,
    disallowed_tools: Annotated[list[str] | None, typer.Option("--disallowed-tools")] = None,
    max_turns: Annotated[int | None, typer.Option("--max-turns", min=1)] = None,
    cwd: CwdOpt = None,
    accept_project_config: TrustOpt = False,
) -> None:
    """Drain the task list: claim a ready task, run it, record done/failed, repeat."""
    from skawld_core.settings import CliOptions

    from .worker import WorkerOptions  # lazy: the worker loads only when it runs

    name = _list_name(task_list)
    opts = CliOptions(
        model=model,
        provider=provider,
        base_url=base_url,
        api_key=api_key,
        cwd=cwd,
        permission_mode=permission_mode,
        allowed_tools=tuple(allowed_tools or ()),
        disallowed_tools=tuple(disallowed_tools or ()),
        max_turns=max_turns,
        accept_project_config=accept_project_config,
    )
    settings = _settings(opts)
    options = WorkerOptions(
        task_list=name, concurrency=concurrency, lease_seconds=lease, poll_seconds=poll, max_attempts=max_attempts
    )
    code = _run_worker(settings, options)
    raise typer.Exit(code)


def _log(line: str) -> None:
    from ..headless.control import note  # lazy: only what this action uses

    note(line, prefix="skawld work: ")


def _preimport(provider_id: str) -> None:
    import importlib

    for module in ("httpx2", "anthropic" if provider_id == "anthropic" else "openai"):
        try:
            importlib.import_module(module)
        except ImportError:
            pass  # the provider reports a missing SDK itself, with its own message


def _run_worker(settings: Settings, options: WorkerOptions) -> int:
    from skawld_core.errors import SessionStoreError, SkawldError
    from skawld_core.sessions.claims import ClaimableTaskGraph
    from skawld_core.sessions.retry import StoreRetry, retrying

    from ..bootstrap import build_agent, session_meta  # lazy: the agent, only when a worker runs
    from .task_lease import LeaseGate
    from .worker import Worker

    async def deny(req: Any) -> Any:
        from skawld_core.permissions import PermissionDeny

        return PermissionDeny(
            message=(
                f"{req.tool_name} needs approval, and `skawld work` runs unattended "
                "(allow it with --allowed-tools, permissions.rules or --permission-mode)"
            )
        )

    async def go() -> int:
        gate = LeaseGate()  # refuses the tool calls of a task whose lease is gone
        agent = build_agent(settings, can_use_tool=deny)
        gate.install(agent)
        agent.store_retry = StoreRetry(options.store_retry_seconds, _log)  # a task's appends ride out faults too
        store = agent.store  # one store (one pool) for claims, the tasks' sessions and their writer locks
        if hasattr(store, "max_connections"):  # a running task holds one pooled connection (its writer lock)
            store.max_connections = max(store.max_connections, 2 * options.concurrency + 2)
        if not isinstance(store, ClaimableTaskGraph):
            await agent.close()
            raise _fail(
                "task lists need a persistent store: set sessionStore.kind to postgres "
                "(or SKAWLD_DATABASE_URL) or sqlite",
                EXIT_CONFIG,
            )
        # Import the provider SDK off the event loop now: a second-long import during the first
        # request would stall the lease heartbeats.
        await asyncio.to_thread(_preimport, settings.provider_id)
        worker = Worker(
            agent, store, options, log=_log, session_meta=lambda title: session_meta(settings, title), gate=gate
        )
        loop = asyncio.get_running_loop()
        signals = 0

        def on_signal() -> None:
            nonlocal signals
            signals += 1
            worker.stop() if signals == 1 else worker.abort()

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal)
        try:
            name = options.task_list
            found = await retrying(
                lambda: store.load(name), what="load list", budget_s=options.store_retry_seconds, log=_log
            )
            if found is None:
                _log(f"no task list {name!r} yet (add tasks with `skawld tasks add --list {name}`)")
                return 0
            summary = await worker.run()
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
            await agent.close()
        return EXIT_ERROR if summary.failed or summary.errors else 0

    try:
        return asyncio.run(go())
    except SessionStoreError as exc:
        raise _fail(f"session store error: {exc}") from None
    except SkawldError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
