"""The ``skawld`` command (typer).

- ``skawld`` — the interactive app (``--resume ID`` / ``--continue`` to resume);
- ``skawld -p PROMPT`` — headless (`skawld_tui.headless.skawld_runner`); the prompt comes from stdin
  when omitted;
- ``skawld sessions list|show|delete|export|repair`` — `skawld_tui.cli.sessions`;
- ``skawld config schema|show`` — `skawld_tui.cli.config`;
- ``skawld permissions explain CALL`` — `skawld_tui.cli.permissions`;
- ``skawld models`` — `skawld_tui.local_models`;
- ``skawld work`` / ``skawld tasks add|list|show`` — `skawld_tui.cli.work`;
- ``skawld checkpoints list|restore`` — `skawld_tui.cli.checkpoints`.

Start-up is kept cheap: only typer is imported for ``--help``; config, the agent
and provider SDKs load inside the command. Every failure becomes a one-line
message on stderr and an exit code (never a traceback): 2 usage, 3 config,
4 authentication.
"""

from __future__ import annotations

import inspect
import os
import sys
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

from .. import startup_gc
from ..exit_codes import EXIT_AUTH, EXIT_BUSY, EXIT_CONFIG, EXIT_USAGE
from .fast import fast_kwargs
from .flags import CommandLine, OutputFormat, fed, flag_of, version_callback

if TYPE_CHECKING:
    from skawld_core.settings import CliOptions

    from ..headless.common import HeadlessOptions
    from .claude_flags import ClaudeFlags, FlagConfig


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


def _fail(message: str, code: int) -> SystemExit:
    sys.stderr.write(f"skawld: {message}\n")
    sys.stderr.flush()
    return SystemExit(code)


_app: Any = None


def typer_app() -> Any:
    """The typer application of `run`, built on first use (not on the headless fast path)."""
    global _app
    if _app is None:
        from .subcommand import new_app  # lazy: typer's helpers load for --help and the sub-commands only

        run.__signature__ = typer_signature()  # type: ignore[attr-defined]
        _app = new_app(no_args_is_help=False)
        _app.command(epilog=EPILOG, no_args_is_help=False)(run)
    return _app


def typer_signature() -> inspect.Signature:
    """`run`'s parameters as typer reads them, one per `CommandLine` field."""
    hints = get_type_hints(CommandLine)
    params = []
    for item in fields(CommandLine):
        spec = flag_of(item)
        info: Any
        if spec.argument:
            info = typer.Argument(help=spec.help, metavar=spec.metavar)
        else:
            info = typer.Option(
                *spec.decls,
                help=spec.help,
                metavar=spec.metavar,
                min=spec.min,
                hidden=spec.hidden,
                rich_help_panel=spec.panel,
                callback=version_callback if spec.eager else None,
                is_eager=spec.eager,
            )
        annotation = Annotated.__class_getitem__((hints[item.name], info))  # type: ignore[attr-defined]
        params.append(
            inspect.Parameter(item.name, inspect.Parameter.KEYWORD_ONLY, default=item.default, annotation=annotation)
        )
    return inspect.Signature(params, return_annotation=None)


def run(**values: Any) -> None:
    """skawld: a terminal coding agent. Without -p it opens the interactive app."""
    from .claude_flags import unhonoured  # lazy: the config machinery loads only for a run, not --help

    line = CommandLine(**values)
    _check_sessions(line)
    flags, extra, opts = _options(line)
    _check_output(line)
    if line.headless:
        provider_id = line.provider.value if line.provider else "anthropic"
        for note in [*extra.notes, *unhonoured(flags, provider_id=provider_id)]:
            sys.stderr.write(f"skawld: warning: {note}\n")
        code = _headless(opts, _headless_options(line, flags, extra))
    else:
        if line.session_id is not None or line.tools_opt is not None:
            raise _fail("--session-id and --tools work in headless mode (-p)", EXIT_USAGE)
        code = _interactive(
            opts,
            resume=line.session or line.resume,
            continue_last=line.continue_last,
            verbose=line.verbose,
            plain=line.plain,
            prompt=line.prompt,
            strict=line.resume is not None,
            fork=line.fork_session,
        )
    raise SystemExit(code)


def _check_sessions(line: CommandLine) -> None:
    if sum(x is not None for x in (line.session, line.resume, line.session_id)) + int(line.continue_last) > 1:
        raise _fail("use only one of --session, --resume, --session-id and --continue", EXIT_USAGE)
    if line.fork_session and line.resume is None and not line.continue_last:
        raise _fail("--fork-session needs --resume or --continue", EXIT_USAGE)
    if line.system_prompt and line.system_prompt_file:
        raise _fail("use only one of --system-prompt and --system-prompt-file", EXIT_USAGE)


def _check_output(line: CommandLine) -> None:
    if line.json_out and line.output_format not in (None, OutputFormat.stream_json):
        raise _fail(f"--json conflicts with --output-format {line.output_format.value}", EXIT_USAGE)
    if line.headless and line.prompt is not None and not line.prompt.strip():
        raise _fail("the prompt is empty: pass a non-empty prompt after -p, or pipe one on stdin", EXIT_USAGE)


def _options(line: CommandLine) -> tuple[ClaudeFlags, FlagConfig, CliOptions]:
    """The Claude Code flags, what they add to the config, and the configuration's options."""
    from skawld_core.errors import ConfigError  # lazy: the config machinery loads only for a run, not --help
    from skawld_core.settings import CliOptions

    from .claude_flags import ClaudeFlags, check_conflicts, flag_config, inline_agents, skawld_mode

    flags = ClaudeFlags(**fed(line, "ClaudeFlags"))
    try:
        mode = skawld_mode(line.permission_mode.value) if line.permission_mode else None
        if line.dangerously_skip_permissions:
            mode = skawld_mode("bypassPermissions")
        check_conflicts(flags, fmt=line.format.value, json_out=line.json_out, stream_input=line.stream_input)
        cwd = Path(line.cwd).expanduser().resolve() if line.cwd else Path.cwd()
        agents = inline_agents(flags.agents, cwd) if flags.agents is not None else None
    except ValueError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    try:
        extra = flag_config(flags, cwd)
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    if agents is not None:
        extra.notes += agents.notes
    sources = line.setting_sources
    opts = CliOptions(
        **fed(line, "CliOptions"),
        permission_mode=mode,
        no_user_config=line.no_user_config
        or (sources is not None and "user" not in [x.strip() for x in sources.split(",")]),
        sandbox=None if line.sandbox is None else ("required" if line.sandbox else "off"),
        extra_config=extra.extra_config or None,
        strict_mcp_servers=extra.strict_servers,
        agents=agents.agents if agents is not None else (),
    )
    return flags, extra, opts


def _headless_options(line: CommandLine, flags: ClaudeFlags, extra: FlagConfig) -> HeadlessOptions:
    from ..headless.common import HeadlessOptions  # lazy: the headless runner's modules load only for -p

    claude_stream = line.format is OutputFormat.stream_json and line.stream_input
    if line.canusetool and not line.json_out and line.format is not OutputFormat.text and not claude_stream:
        raise _fail("--canusetool needs --json, or --output-format stream-json --input-format stream-json", EXIT_USAGE)
    # Claude Code's dialect: --output-format json|stream-json or --input-format stream-json without --json
    claude = not line.json_out and (line.format is not OutputFormat.text or line.stream_input)
    if extra.sdk_servers and not claude:
        raise _fail(
            "SDK MCP servers (type 'sdk') need --output-format stream-json --input-format stream-json", EXIT_USAGE
        )
    return HeadlessOptions(
        **fed(line, "HeadlessOptions"),
        dialect="claude" if claude else "skawld",
        output_format=line.format.value,
        stream_input=line.stream_input,
        session_id=line.session or line.resume,
        resume_strict=line.resume is not None,
        partial=line.include_partial_messages or (line.partial and not claude),  # --partial is --json's
        host_permissions=line.canusetool or line.permission_prompt_tool == "stdio",
        schema=flags.schema,
        sdk_mcp_servers=tuple(extra.sdk_servers),
    )


# -- shared --------------------------------------------------------------------


def _resolve_with_layer(opts: Any, model: str | None, layer: dict[str, Any]) -> Any:
    """`opts`' settings again with `layer` added under the flags (`model`: the one chosen already)."""
    from skawld_core.config import merge_layers
    from skawld_core.settings import resolve_settings

    extra = merge_layers(dict(opts.extra_config or {}), layer)
    settings = resolve_settings(replace(opts, extra_config=extra))
    settings.model = settings.model or model
    return settings


def _settings(opts: Any, *, interactive: bool, verbose: bool, tui: bool = False) -> Any:
    """Resolve settings; maps config problems to exit codes (3, or 2 for bad flag syntax)."""
    from skawld_core.config import UntrustedProjectConfigError, trust_project_config
    from skawld_core.errors import ConfigError
    from skawld_core.settings import resolve_settings

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
        from skawld_core.settings import store_label

        sys.stderr.write(f"skawld: sessions in {store_label(settings)}\n")
        from skawld_core.sandbox import ShellPolicy

        sys.stderr.write(f"skawld: {ShellPolicy(sandbox=settings.sandbox).status().describe()}\n")
        from .setup_report import setup_report  # lazy: the setup report is only for --verbose

        sys.stderr.writelines(f"skawld: {line}\n" for line in setup_report(settings))
    return settings


def _server_model(settings: Any) -> str | None:
    """The only model a compatible server serves (see `local_models.default_model`)."""
    from skawld_core.errors import ConfigError

    from ..local_models import default_model  # lazy: model discovery runs only when no model is configured

    try:
        return default_model(settings)
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None


def _confirm_trust(exc: Any, *, tui: bool = False) -> bool:
    if tui:
        from ..app.screens.trust import TrustPromptApp  # lazy: a Textual screen, only when a project asks to be trusted

        return bool(TrustPromptApp(exc.path, exc.requests).run())
    sys.stderr.write(f"{exc}\nTrust {exc.path} as it is now? [y/N] ")
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline()
    except (OSError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def _check_key(settings: Any) -> None:
    from skawld_core.providers.registry import MissingApiKeyError
    from skawld_core.settings import resolve_api_key

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

    from ..headless.common import UsageError  # lazy: the headless runner's modules load only for -p
    from ..headless.control import read_all_stdin
    from ..headless.run import run_headless
    from ..resume import PICK

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
    chosen = settings.model
    hopts.resolve_again = lambda layer: _resolve_with_layer(opts, chosen, layer)
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

    from ..bootstrap import build_agent  # lazy: the app or the plain mode loads only for an interactive start
    from ..resume import PICK, ResumeError, exit_hint, start_session_id

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
            from ..app.skawld_app import SkawldApp  # lazy: Textual loads only for the app

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
        from ..plain.chat import run_plain  # lazy: the app or the plain mode loads only for an interactive start

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
            from .config import app as config_app  # lazy: a sub-command's modules load only when it runs

            config_app(args[1:], prog_name="skawld config", standalone_mode=True)
        elif args[:1] == ["sessions"]:
            from .sessions import app as sessions_app  # lazy: a sub-command's modules load only when it runs

            sessions_app(args[1:], prog_name="skawld sessions", standalone_mode=True)
        elif args[:1] == ["permissions"]:
            from .permissions import app as permissions_app  # lazy: a sub-command's modules load only when it runs

            permissions_app(args[1:], prog_name="skawld permissions", standalone_mode=True)
        elif args[:1] == ["models"]:
            from ..local_models import run_models  # lazy: a sub-command's modules load only when it runs

            return run_models(args[1:])
        elif args[:1] in (["work"], ["tasks"]):
            from .work import main as work_main  # lazy: a sub-command's modules load only when it runs

            work_main(args)
        elif args[:1] == ["acp"]:
            from .acp import app as acp_app  # lazy: a sub-command's modules load only when it runs

            acp_app(args[1:], prog_name="skawld acp", standalone_mode=True)
        elif args[:2] in (["mcp", "login"], ["mcp", "logout"], ["mcp", "serve"]):
            from .mcp import app as mcp_app  # lazy: a sub-command's modules load only when it runs

            mcp_app(args[1:], prog_name="skawld mcp", standalone_mode=True)
        elif args[:1] == ["plugin"]:
            from .plugin import app as plugin_app  # lazy: a sub-command's modules load only when it runs

            plugin_app(args[1:], prog_name="skawld plugin", standalone_mode=True)
        elif args[:1] == ["checkpoints"]:
            from .checkpoints import app as checkpoints_app  # lazy: a sub-command's modules load only when it runs

            checkpoints_app(args[1:], prog_name="skawld checkpoints", standalone_mode=True)
        else:
            fast = fast_kwargs(args)
            if fast is not None:
                run(**fast)  # always ends with SystemExit
            from ..resume import optional_resume_value  # lazy: a sub-command's modules load only when it runs

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
