"""The ``skawld`` command (typer).

- ``skawld`` — the interactive app (``--resume ID`` / ``--continue`` to resume);
- ``skawld -p PROMPT`` — headless (`skawld_tui.headless`); the prompt comes from stdin
  when omitted;
- ``skawld sessions list|show|delete|export|repair`` — `skawld_tui.sessions_cmd`;
- ``skawld config schema|show`` — `skawld_tui.config_cmd`;
- ``skawld permissions explain CALL`` — `skawld_tui.permissions_cmd`;
- ``skawld models`` — `skawld_tui.local_models`;
- ``skawld work`` / ``skawld tasks add|list|show`` — `skawld_tui.work_cmd`;
- ``skawld checkpoints list|restore`` — `skawld_tui.checkpoints_cmd`.

Start-up is kept cheap: only typer is imported for ``--help``; config, the agent
and provider SDKs load inside the command. Every failure becomes a one-line
message on stderr and an exit code (never a traceback): 2 usage, 3 config,
4 authentication.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from .exit_codes import EXIT_AUTH, EXIT_BUSY, EXIT_CONFIG, EXIT_USAGE

if TYPE_CHECKING:
    from .headless_common import HeadlessOptions


def _lazy_typer() -> Any:
    """``typer``, loaded on first attribute access (`importlib.util.LazyLoader`): the
    fast path (`fast_cli`) never touches it, everything else works as usual."""
    import importlib.util

    if "typer" in sys.modules:
        return sys.modules["typer"]
    spec = importlib.util.find_spec("typer")
    assert spec is not None and spec.loader is not None
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["typer"] = module
    loader.exec_module(module)
    return module


typer = _lazy_typer()


EPILOG = (
    "Sessions: skawld sessions list|show|delete|export (see skawld sessions --help); "
    "checkpoints: skawld checkpoints list|restore. "
    "Exit codes: 0 ok, 1 run error, 2 usage, 3 config, 4 auth, 130 aborted, 143 SIGTERM. "
    "Docs: docs/cli.md."
)


class ProviderId(StrEnum):
    anthropic = "anthropic"
    openai_chat = "openai-chat"
    openai_responses = "openai-responses"


class PermissionModeOpt(StrEnum):
    default = "default"
    acceptEdits = "acceptEdits"
    plan = "plan"
    yolo = "yolo"
    bypassPermissions = "bypassPermissions"


class OutputFormat(StrEnum):
    text = "text"
    json = "json"
    stream_json = "stream-json"


class InputFormat(StrEnum):
    text = "text"
    stream_json = "stream-json"


def _version_callback(value: bool) -> None:
    if value:
        from skawld_core import __version__

        typer.echo(f"skawld {__version__}")
        raise typer.Exit()


def _fail(message: str, code: int) -> SystemExit:
    sys.stderr.write(f"skawld: {message}\n")
    sys.stderr.flush()
    return SystemExit(code)


_app: Any = None


def typer_app() -> Any:
    """The typer application of `run`, built on first use (not on the headless fast path)."""
    global _app
    if _app is None:
        from .subcommand import new_app

        _app = new_app(no_args_is_help=False)
        _app.command(epilog=EPILOG, no_args_is_help=False)(run)
    return _app


M = "Model and provider"
S = "Session"
P = "Permissions"
L = "Limits"
O = "Output"  # noqa: E741
C = "Config"


def run(
    prompt: Annotated[
        str | None, typer.Argument(help="The prompt (headless mode reads stdin when omitted).", metavar="PROMPT")
    ] = None,
    print_mode: Annotated[bool, typer.Option("-p", "--print", help="Run headless: one prompt, then exit.")] = False,
    json_out: Annotated[
        bool, typer.Option("--json", help="NDJSON events on stdout (= --output-format stream-json).")
    ] = False,
    output_format: Annotated[
        OutputFormat | None,
        typer.Option("--output-format", help="text | json | stream-json (headless).", rich_help_panel=O),
    ] = None,
    input_format: Annotated[
        InputFormat,
        typer.Option(
            "--input-format", help="stream-json: keep reading stdin control messages until EOF.", rich_help_panel=O
        ),
    ] = InputFormat.text,
    model: Annotated[
        str | None, typer.Option("--model", "-m", metavar="MODEL", help="Model id.", rich_help_panel=M)
    ] = None,
    provider: Annotated[ProviderId | None, typer.Option("--provider", help="Model API.", rich_help_panel=M)] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", metavar="URL", help="API base URL.", rich_help_panel=M)
    ] = None,
    session: Annotated[
        str | None,
        typer.Option("--session", metavar="ID", help="Resume this session id, or create it.", rich_help_panel=S),
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume", "-r", metavar="ID", help="Resume by id or unique prefix (no id: pick).", rich_help_panel=S
        ),
    ] = None,
    continue_last: Annotated[
        bool, typer.Option("--continue", "-c", help="Resume the newest session of this directory.", rich_help_panel=S)
    ] = False,
    fork_session: Annotated[
        bool,
        typer.Option(
            "--fork-session", help="With --resume/--continue: continue in a copy of the session.", rich_help_panel=S
        ),
    ] = False,
    cwd: Annotated[
        str | None, typer.Option("--cwd", metavar="DIR", help="Working directory.", rich_help_panel=S)
    ] = None,
    permission_mode: Annotated[
        PermissionModeOpt | None,
        typer.Option(
            "--permission-mode", help="default | acceptEdits | plan | yolo (= bypassPermissions).", rich_help_panel=P
        ),
    ] = None,
    add_dir: Annotated[
        list[str] | None,
        typer.Option(
            "--add-dir",
            metavar="DIR",
            help="Another directory acceptEdits may write in (repeatable).",
            rich_help_panel=P,
        ),
    ] = None,
    allowed_tools: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-tools",
            "--allowedTools",
            metavar="SPECS",
            help='Allow rules: "Read,Bash(git status),Edit(src/**)".',
            rich_help_panel=P,
        ),
    ] = None,
    disallowed_tools: Annotated[
        list[str] | None,
        typer.Option(
            "--disallowed-tools",
            "--disallowedTools",
            metavar="SPECS",
            help="Deny rules (same syntax; they win over everything).",
            rich_help_panel=P,
        ),
    ] = None,
    canusetool: Annotated[
        bool, typer.Option("--canusetool", help="Answer permission requests over stdin (headless).", rich_help_panel=P)
    ] = False,
    max_turns: Annotated[
        int | None, typer.Option("--max-turns", metavar="N", min=1, help="Turn cap.", rich_help_panel=L)
    ] = None,
    max_output_tokens: Annotated[
        int | None,
        typer.Option("--max-output-tokens", metavar="N", min=1, help="Output token cap per turn.", rich_help_panel=L),
    ] = None,
    max_retries: Annotated[
        int | None,
        typer.Option(
            "--max-retries", metavar="N", min=0, help="Retries per model call (default 5).", rich_help_panel=L
        ),
    ] = None,
    system_prompt: Annotated[
        str | None,
        typer.Option("--system-prompt", metavar="TEXT", help="Extra instructions for the model.", rich_help_panel=M),
    ] = None,
    system_prompt_file: Annotated[
        str | None,
        typer.Option(
            "--system-prompt-file", metavar="PATH", help="Read the instructions from a file.", rich_help_panel=M
        ),
    ] = None,
    partial: Annotated[
        bool, typer.Option("--partial", help="Emit partial_assistant deltas.", rich_help_panel=O)
    ] = False,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not request prompt caching.", rich_help_panel=M)
    ] = False,
    pretty: Annotated[
        bool, typer.Option("--pretty", help="Indented JSON and a blank line.", rich_help_panel=O)
    ] = False,
    plain: Annotated[
        bool,
        typer.Option("--plain", help="Line-oriented chat instead of the full-screen app.", rich_help_panel=O),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Config sources and files on stderr.", rich_help_panel=O)
    ] = False,
    config: Annotated[
        str | None,
        typer.Option(
            "--config", metavar="PATH", help="Project config file (default .skawld/config.json).", rich_help_panel=C
        ),
    ] = None,
    no_user_config: Annotated[
        bool, typer.Option("--no-user-config", help="Ignore ~/.skawld/config.json.", rich_help_panel=C)
    ] = False,
    accept_project_config: Annotated[
        bool,
        typer.Option(
            "--accept-project-config", help="Trust this project's config file (remembered).", rich_help_panel=C
        ),
    ] = False,
    sandbox: Annotated[
        bool | None,
        typer.Option(
            "--sandbox/--no-sandbox",
            help="Require the Bash sandbox (bubblewrap), or turn it off (default: config, else auto).",
            rich_help_panel=C,
        ),
    ] = None,
    # Claude Code's flags (skawld_tui.claude_flags); docs/cli.md lists what each does here.
    session_id: Annotated[
        str | None,
        typer.Option("--session-id", metavar="ID", help="Start a new session with this id.", rich_help_panel=S),
    ] = None,
    append_system_prompt: Annotated[
        str | None,
        typer.Option("--append-system-prompt", metavar="TEXT", help="Append to the system prompt.", rich_help_panel=M),
    ] = None,
    fallback_model: Annotated[str | None, typer.Option("--fallback-model", metavar="MODEL", hidden=True)] = None,
    mcp_config: Annotated[
        list[str] | None,
        typer.Option(
            "--mcp-config", metavar="FILE|JSON", help='MCP servers: {"mcpServers": {...}}.', rich_help_panel=C
        ),
    ] = None,
    strict_mcp_config: Annotated[
        bool, typer.Option("--strict-mcp-config", help="Only the --mcp-config servers.", rich_help_panel=C)
    ] = False,
    claude_settings: Annotated[
        str | None,
        typer.Option(
            "--settings", metavar="FILE|JSON", help="Claude Code settings (permissions, model).", rich_help_panel=C
        ),
    ] = None,
    setting_sources: Annotated[str | None, typer.Option("--setting-sources", metavar="LIST", hidden=True)] = None,
    include_partial_messages: Annotated[
        bool, typer.Option("--include-partial-messages", help="stream_event lines (stream-json).", rich_help_panel=O)
    ] = False,
    json_schema: Annotated[
        str | None,
        typer.Option(
            "--json-schema", metavar="JSON", help="Validate the answer; structured_output.", rich_help_panel=O
        ),
    ] = None,
    max_budget_usd: Annotated[
        float | None,
        typer.Option("--max-budget-usd", metavar="USD", help="Stop when the run costs this much.", rich_help_panel=L),
    ] = None,
    permission_prompt_tool: Annotated[
        str | None,
        typer.Option(
            "--permission-prompt-tool", metavar="stdio", help="Ask the SDK host (control protocol).", rich_help_panel=P
        ),
    ] = None,
    tools_opt: Annotated[
        str | None, typer.Option("--tools", metavar="LIST", help="Built-in tools to offer.", rich_help_panel=P)
    ] = None,
    betas: Annotated[list[str] | None, typer.Option("--betas", hidden=True)] = None,
    max_thinking_tokens: Annotated[int | None, typer.Option("--max-thinking-tokens", hidden=True)] = None,
    effort: Annotated[str | None, typer.Option("--effort", hidden=True)] = None,
    include_hook_events: Annotated[bool, typer.Option("--include-hook-events", hidden=True)] = False,
    version: Annotated[
        bool | None, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version.")
    ] = None,
) -> None:
    """skawld: a terminal coding agent. Without -p it opens the interactive app."""
    from .bootstrap import CliOptions
    from .claude_flags import ClaudeFlags, check_conflicts, flag_config, skawld_mode, unhonoured

    if sum(x is not None for x in (session, resume, session_id)) + int(continue_last) > 1:
        raise _fail("use only one of --session, --resume, --session-id and --continue", EXIT_USAGE)
    if fork_session and resume is None and not continue_last:
        raise _fail("--fork-session needs --resume or --continue", EXIT_USAGE)
    if system_prompt and system_prompt_file:
        raise _fail("use only one of --system-prompt and --system-prompt-file", EXIT_USAGE)
    flags = ClaudeFlags(
        append_system_prompt=append_system_prompt,
        fallback_model=fallback_model,
        session_id=session_id,
        mcp_config=tuple(mcp_config or ()),
        strict_mcp_config=strict_mcp_config,
        settings=claude_settings,
        setting_sources=setting_sources,
        include_partial_messages=include_partial_messages,
        json_schema=json_schema,
        max_budget_usd=max_budget_usd,
        permission_prompt_tool=permission_prompt_tool,
        tools=tools_opt,
        betas=tuple(betas or ()),
        max_thinking_tokens=max_thinking_tokens,
        effort=effort,
        include_hook_events=include_hook_events,
    )
    try:
        mode = skawld_mode(permission_mode.value) if permission_mode else None
        check_conflicts(
            flags,
            fmt=OutputFormat.stream_json.value if json_out else (output_format or OutputFormat.text).value,
            json_out=json_out,
            stream_input=input_format is InputFormat.stream_json,
        )
    except ValueError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    from skawld_core.errors import ConfigError

    try:
        extra = flag_config(flags, Path(cwd).expanduser().resolve() if cwd else Path.cwd())
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    opts = CliOptions(
        model=model,
        provider=provider.value if provider else None,
        base_url=base_url,
        cwd=cwd,
        permission_mode=mode,
        allowed_tools=tuple(allowed_tools or ()),
        disallowed_tools=tuple(disallowed_tools or ()),
        max_turns=max_turns,
        max_output_tokens=max_output_tokens,
        max_retries=max_retries,
        system_prompt=system_prompt,
        system_prompt_file=system_prompt_file,
        no_cache=no_cache,
        config=config,
        no_user_config=no_user_config
        or (setting_sources is not None and "user" not in [x.strip() for x in setting_sources.split(",")]),
        accept_project_config=accept_project_config,
        add_dirs=tuple(add_dir or ()),
        sandbox=None if sandbox is None else ("required" if sandbox else "off"),
        append_system_prompt=append_system_prompt,
        extra_config=extra.extra_config or None,
        strict_mcp_servers=extra.strict_servers,
        max_budget_usd=max_budget_usd,
    )
    if json_out and output_format not in (None, OutputFormat.stream_json):
        raise _fail(f"--json conflicts with --output-format {output_format.value}", EXIT_USAGE)
    headless = print_mode or json_out or output_format is not None or input_format is InputFormat.stream_json
    fmt = OutputFormat.stream_json if json_out else (output_format or OutputFormat.text)
    if headless and prompt is not None and not prompt.strip():
        raise _fail("the prompt is empty: pass a non-empty prompt after -p, or pipe one on stdin", EXIT_USAGE)
    if headless:
        for note in [*extra.notes, *unhonoured(flags, provider_id=provider.value if provider else "anthropic")]:
            sys.stderr.write(f"skawld: warning: {note}\n")
    claude_stream = fmt is OutputFormat.stream_json and input_format is InputFormat.stream_json
    if headless and canusetool and not json_out and fmt is not OutputFormat.text and not claude_stream:
        raise _fail("--canusetool needs --json, or --output-format stream-json --input-format stream-json", EXIT_USAGE)
    if headless:
        from .headless_common import HeadlessOptions

        # Claude Code's dialect: --output-format json|stream-json or --input-format stream-json without --json
        claude = not json_out and (fmt is not OutputFormat.text or input_format is InputFormat.stream_json)
        if extra.sdk_servers and not claude:
            raise _fail(
                "SDK MCP servers (type 'sdk') need --output-format stream-json --input-format stream-json", EXIT_USAGE
            )
        hopts = HeadlessOptions(
            dialect="claude" if claude else "skawld",
            prompt=prompt,
            output_format=fmt.value,
            stream_input=input_format is InputFormat.stream_json,
            session_id=session or resume,
            resume_strict=resume is not None,
            continue_last=continue_last,
            fork=fork_session,
            new_session_id=session_id,
            partial=include_partial_messages or (partial and not claude),  # --partial is --json's
            host_permissions=canusetool or permission_prompt_tool == "stdio",
            tools=tools_opt,
            pretty=pretty,
            verbose=verbose,
            schema=flags.schema,
            sdk_mcp_servers=tuple(extra.sdk_servers),
        )
        code = _headless(opts, hopts)
    else:
        if session_id is not None or tools_opt is not None:
            raise _fail("--session-id and --tools work in headless mode (-p)", EXIT_USAGE)
        code = _interactive(
            opts,
            resume=session or resume,
            continue_last=continue_last,
            verbose=verbose,
            plain=plain,
            prompt=prompt,
            strict=resume is not None,
            fork=fork_session,
        )
    raise SystemExit(code)


# -- shared --------------------------------------------------------------------


def _settings(opts: Any, *, interactive: bool, verbose: bool, tui: bool = False) -> Any:
    """Resolve settings; maps config problems to exit codes (3, or 2 for bad flag syntax)."""
    from skawld_core.config import UntrustedProjectConfigError, trust_project_config
    from skawld_core.errors import ConfigError

    from .bootstrap import resolve_settings

    try:
        settings = resolve_settings(opts)
        if opts.accept_project_config and settings.project_config_path:
            trust_project_config(settings.project_config_path, extra=settings.trust_extra)
    except UntrustedProjectConfigError as exc:
        if interactive and sys.stdin.isatty() and sys.stderr.isatty() and _confirm_trust(exc, tui=tui):
            trust_project_config(exc.path, extra=exc.extra)
            return _settings(opts, interactive=interactive, verbose=verbose, tui=tui)
        raise _fail(str(exc), EXIT_CONFIG) from None
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    except ValueError as exc:
        raise _fail(f"{exc}", EXIT_USAGE) from None
    for warning in settings.warnings:
        sys.stderr.write(f"skawld: warning: {warning}\n")
    if verbose:
        for src in settings.sources:
            sys.stderr.write(f"skawld: config layer {src.source}{': ' + src.path if src.path else ''}\n")
        for path in settings.instruction_files:
            sys.stderr.write(f"skawld: instructions from {path}\n")
        sys.stderr.write(f"skawld: provider {settings.provider_id}, model {settings.model}, cwd {settings.cwd}\n")
        from .bootstrap import store_label

        sys.stderr.write(f"skawld: sessions in {store_label(settings)}\n")
        from skawld_core.sandbox import ShellPolicy

        sys.stderr.write(f"skawld: {ShellPolicy(sandbox=settings.sandbox).status().describe()}\n")
        from .setup_report import setup_report

        sys.stderr.writelines(f"skawld: {line}\n" for line in setup_report(settings))
    return settings


def _server_model(settings: Any) -> str | None:
    """The only model a compatible server serves (see `local_models.default_model`)."""
    from skawld_core.errors import ConfigError

    from .local_models import default_model

    try:
        return default_model(settings)
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None


def _confirm_trust(exc: Any, *, tui: bool = False) -> bool:
    if tui:
        from .screens.trust import TrustPromptApp

        return bool(TrustPromptApp(exc.path, exc.requests).run())
    sys.stderr.write(f"{exc}\nTrust {exc.path} as it is now? [y/N] ")
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline()
    except (OSError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def _check_key(settings: Any) -> None:
    from .bootstrap import MissingApiKeyError, resolve_api_key

    try:
        resolve_api_key(settings)
    except MissingApiKeyError as exc:
        raise _fail(str(exc), EXIT_AUTH) from None


# -- headless ------------------------------------------------------------------


def _configure_logging() -> None:
    """Library logging goes to stderr; ``SKAWLD_LOG`` = error|warn|info|debug (default warn)."""
    import logging

    levels = {"error": logging.ERROR, "warn": logging.WARNING, "warning": logging.WARNING}
    levels.update({"info": logging.INFO, "debug": logging.DEBUG})
    level = levels.get(os.environ.get("SKAWLD_LOG", "warn").strip().lower(), logging.WARNING)
    logging.basicConfig(stream=sys.stderr, level=level, format="skawld: %(levelname)s %(name)s: %(message)s")


def _headless(opts: Any, hopts: HeadlessOptions) -> int:
    """One headless run in either dialect: settings, key and model, the prompt from stdin
    when none was given, then the dialect's runner; its errors become exit codes."""
    from skawld_core.errors import AuthError, ConfigError, SkawldError
    from skawld_core.sessions.writer import SessionBusyError

    from .control import read_all_stdin
    from .headless_common import UsageError, run_headless
    from .resume import PICK

    _configure_logging()
    settings = _settings(opts, interactive=False, verbose=hopts.verbose)
    _check_key(settings)
    if settings.provider_transport != "sdk":
        from skawld_core.providers.http_transport import prewarm

        # TLS (and httpx2 if it carries) load meanwhile
        prewarm(settings.base_url or "https:", "httpx" if settings.provider_transport == "httpx" else "auto")
    settings.model = settings.model or _server_model(settings)
    if not settings.model:
        raise _fail(
            "no model configured: pass --model (e.g. --model claude-sonnet-4-6), set SKAWLD_MODEL, "
            'or add "model" to ~/.skawld/config.json',
            EXIT_CONFIG,
        )
    if hopts.session_id == PICK:
        raise _fail("--resume needs a session id with -p (see `skawld sessions list`)", EXIT_USAGE)
    stdin_tty = os.isatty(0)
    if hopts.prompt is None and not hopts.stream_input:
        if stdin_tty:
            raise _fail("no prompt: pass one after -p, pipe it on stdin, or use --input-format stream-json", EXIT_USAGE)
        hopts.prompt = read_all_stdin()
        if not hopts.prompt.strip():
            raise _fail("the prompt read from stdin is empty", EXIT_USAGE)
    else:  # skawld's own dialect also takes control messages on a piped stdin
        hopts.use_stdin = hopts.stream_input or hopts.host_permissions or (hopts.dialect == "skawld" and not stdin_tty)
    try:
        _state["headless_ran"] = True
        return run_headless(settings, hopts)
    except UsageError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    except AuthError as exc:
        raise _fail(str(exc), EXIT_AUTH) from None
    except SessionBusyError as exc:
        raise _fail(f"{exc}; use --fork-session to branch it", EXIT_BUSY) from None
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    except SkawldError as exc:
        from skawld_core.sessions.repair import SessionStoreCorruptError

        if isinstance(exc, SessionStoreCorruptError):
            raise _fail(str(exc), EXIT_CONFIG) from None
        raise _fail(f"{exc.name}: {exc}", 1) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None


# -- interactive ----------------------------------------------------------------


def _interactive(
    opts: Any,
    *,
    resume: str | None,
    continue_last: bool,
    verbose: bool,
    plain: bool = False,
    strict: bool = False,
    fork: bool = False,
    prompt: str | None = None,
) -> int:
    import asyncio

    from .bootstrap import build_agent
    from .resume import PICK, ResumeError, exit_hint, start_session_id

    use_tui = not plain and sys.stdin.isatty() and sys.stdout.isatty()
    settings = _settings(opts, interactive=True, verbose=verbose, tui=use_tui)
    _check_key(settings)
    settings.model = settings.model or _server_model(settings)
    if not settings.model:
        raise _fail(
            'no model configured: pass --model, set SKAWLD_MODEL, or add "model" to ~/.skawld/config.json', EXIT_CONFIG
        )
    pick = strict and resume == PICK
    if continue_last or (strict and not pick):
        try:
            resume = start_session_id(
                settings, resume=resume if strict else None, continue_last=continue_last, fork=fork
            )
        except ResumeError as exc:
            raise _fail(str(exc), EXIT_USAGE) from None
    elif pick:
        resume = None

    def agent_factory(can_use_tool: Any = None, ask_user: Any = None) -> Any:
        return build_agent(settings, can_use_tool=can_use_tool, ask_user=ask_user, include_partial_messages=True)

    if prompt is not None and not use_tui:
        raise _fail("a prompt on the command line needs -p, or the full-screen app on a terminal", EXIT_USAGE)
    try:
        if use_tui:
            from .app import SkawldApp

            tui = SkawldApp(
                agent_factory=agent_factory,
                resume_id=resume,
                settings=settings,
                initial_prompt=prompt,
                pick_session=pick,
                fork_picked=fork,
            )
            tui.run()
            hint = exit_hint(tui.session)
            if hint:
                print(hint)
            return 0
        from .plain import run_plain

        return int(
            asyncio.run(run_plain(agent_factory, resume_id=resume, settings=settings, pick=pick, fork_picked=fork)) or 0
        )
    except ImportError as exc:
        raise _fail(
            f"the interactive app is not available in this build ({exc}); use -p for headless mode", 1
        ) from None


# -- entry point -------------------------------------------------------------------


_state = {"headless_ran": False}


def _fast_exit(code: int) -> None:
    """End the process without interpreter teardown (0.1-0.2 s with the provider SDKs
    loaded). Only after a headless run, whose agent, store and MCP servers are closed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point; returns the exit code.

    Called without `argv` (as the console script) after a headless run, it ends the
    process itself with `os._exit` once output is flushed.
    """
    from . import startup_gc

    if argv is None:  # the console script owns its process (an embedding caller keeps its own GC)
        startup_gc.pause()
    try:
        code = _main(list(sys.argv[1:] if argv is None else argv))
    finally:
        startup_gc.resume()
    if argv is None and _state["headless_ran"]:
        _fast_exit(code)
    return code


def _main(args: list[str]) -> int:
    try:
        if args[:1] == ["config"]:
            from .config_cmd import app as config_app

            config_app(args[1:], prog_name="skawld config", standalone_mode=True)
        elif args[:1] == ["sessions"]:
            from .sessions_cmd import app as sessions_app

            sessions_app(args[1:], prog_name="skawld sessions", standalone_mode=True)
        elif args[:1] == ["permissions"]:
            from .permissions_cmd import app as permissions_app

            permissions_app(args[1:], prog_name="skawld permissions", standalone_mode=True)
        elif args[:1] == ["models"]:
            from .local_models import run_models

            return run_models(args[1:])
        elif args[:1] in (["work"], ["tasks"]):
            from .work_cmd import main as work_main

            work_main(args)
        elif args[:1] == ["checkpoints"]:
            from .checkpoints_cmd import app as checkpoints_app

            checkpoints_app(args[1:], prog_name="skawld checkpoints", standalone_mode=True)
        else:
            from .fast_cli import fast_kwargs

            fast = fast_kwargs(args)
            if fast is not None:
                run(**fast)  # always ends with SystemExit
            from .resume import optional_resume_value

            typer_app()(optional_resume_value(args), prog_name="skawld", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # never a traceback for the user
        sys.stderr.write(f"skawld: internal error: {type(exc).__name__}: {exc}\n")
        if os.environ.get("SKAWLD_LOG", "").lower() == "debug":
            import traceback

            traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
