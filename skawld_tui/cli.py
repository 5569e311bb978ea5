"""The ``skawld`` command (typer).

- ``skawld`` — the interactive app (``--resume ID`` / ``--continue`` to resume);
- ``skawld -p PROMPT`` — headless (`skawld_tui.headless`); the prompt comes from stdin
  when omitted;
- ``skawld sessions list|show|delete|export`` — `skawld_tui.sessions_cmd`.

Start-up is kept cheap: only typer is imported for ``--help``; config, the agent
and provider SDKs load inside the command. Every failure becomes a one-line
message on stderr and an exit code (never a traceback): 2 usage, 3 config,
4 authentication.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from typing import Annotated, Any

import typer

VERSION = "0.1.0"
EXIT_USAGE, EXIT_CONFIG, EXIT_AUTH = 2, 3, 4

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
    yolo = "yolo"


class OutputFormat(StrEnum):
    text = "text"
    json = "json"
    stream_json = "stream-json"


class InputFormat(StrEnum):
    text = "text"
    stream_json = "stream-json"


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"skawld {VERSION}")
        raise typer.Exit()


def _fail(message: str, code: int) -> typer.Exit:
    sys.stderr.write(f"skawld: {message}\n")
    sys.stderr.flush()
    return typer.Exit(code)


app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

M = "Model and provider"
S = "Session"
P = "Permissions"
L = "Limits"
O = "Output"  # noqa: E741
C = "Config"


@app.command(epilog=EPILOG, no_args_is_help=False)
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
        typer.Option("--permission-mode", help="default | acceptEdits | yolo.", rich_help_panel=P),
    ] = None,
    allowed_tools: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-tools",
            metavar="SPECS",
            help='Allow rules: "Read,Bash(git status),Edit(src/**)".',
            rich_help_panel=P,
        ),
    ] = None,
    disallowed_tools: Annotated[
        list[str] | None,
        typer.Option(
            "--disallowed-tools",
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
    version: Annotated[
        bool | None, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version.")
    ] = None,
) -> None:
    """skawld: a terminal coding agent. Without -p it opens the interactive app."""
    from .bootstrap import CliOptions

    if sum(x is not None for x in (session, resume)) + int(continue_last) > 1:
        raise _fail("use only one of --session, --resume and --continue", EXIT_USAGE)
    if fork_session and resume is None and not continue_last:
        raise _fail("--fork-session needs --resume or --continue", EXIT_USAGE)
    opts = CliOptions(
        model=model,
        provider=provider.value if provider else None,
        base_url=base_url,
        cwd=cwd,
        permission_mode=permission_mode.value if permission_mode else None,
        allowed_tools=tuple(allowed_tools or ()),
        disallowed_tools=tuple(disallowed_tools or ()),
        max_turns=max_turns,
        max_output_tokens=max_output_tokens,
        max_retries=max_retries,
        system_prompt=system_prompt,
        system_prompt_file=system_prompt_file,
        no_cache=no_cache,
        config=config,
        no_user_config=no_user_config,
        accept_project_config=accept_project_config,
    )
    if json_out and output_format not in (None, OutputFormat.stream_json):
        raise _fail(f"--json conflicts with --output-format {output_format.value}", EXIT_USAGE)
    headless = print_mode or json_out or output_format is not None or input_format is InputFormat.stream_json
    fmt = OutputFormat.stream_json if json_out else (output_format or OutputFormat.text)
    if headless:
        code = _headless(
            opts,
            prompt=prompt,
            fmt=fmt.value,
            stream_input=input_format is InputFormat.stream_json,
            session=session or resume,
            resume_strict=resume is not None,
            continue_last=continue_last,
            canusetool=canusetool,
            partial=partial,
            pretty=pretty,
            verbose=verbose,
            fork=fork_session,
        )
    else:
        if prompt is not None:
            raise _fail("a prompt on the command line needs -p (the app takes prompts once it starts)", EXIT_USAGE)
        code = _interactive(
            opts,
            resume=session or resume,
            continue_last=continue_last,
            verbose=verbose,
            plain=plain,
            strict=resume is not None,
            fork=fork_session,
        )
    raise typer.Exit(code)


# -- shared --------------------------------------------------------------------


def _settings(opts: Any, *, interactive: bool, verbose: bool) -> Any:
    """Resolve settings; maps config problems to exit codes (3, or 2 for bad flag syntax)."""
    from skawld_core.config import UntrustedProjectConfigError, trust_project_config
    from skawld_core.errors import ConfigError

    from .bootstrap import resolve_settings

    try:
        settings = resolve_settings(opts)
        if opts.accept_project_config and settings.project_config_path and settings.project_config_path.is_file():
            trust_project_config(settings.project_config_path)
    except UntrustedProjectConfigError as exc:
        if interactive and sys.stdin.isatty() and sys.stderr.isatty() and _confirm_trust(exc):
            trust_project_config(exc.path)
            return _settings(opts, interactive=interactive, verbose=verbose)
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
        sys.stderr.write(f"skawld: sessions in {settings.store_path or '(memory)'}\n")
    return settings


def _confirm_trust(exc: Any) -> bool:
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


def _headless(opts: Any, *, prompt: str | None, fmt: str, stream_input: bool, **kw: Any) -> int:
    from skawld_core.errors import AuthError, ConfigError, SkawldError

    from .control import read_all_stdin
    from .headless import HeadlessOptions, UsageError, run_headless

    _configure_logging()
    settings = _settings(opts, interactive=False, verbose=kw["verbose"])
    _check_key(settings)
    if not settings.model:
        raise _fail(
            "no model configured: pass --model (e.g. --model claude-sonnet-4-6), set SKAWLD_MODEL, "
            'or add "model" to ~/.skawld/config.json',
            EXIT_CONFIG,
        )
    kw = _resolve_headless_resume(settings, kw)
    stdin_tty = os.isatty(0)
    if prompt is None and not stream_input:
        if stdin_tty:
            raise _fail("no prompt: pass one after -p, pipe it on stdin, or use --input-format stream-json", EXIT_USAGE)
        prompt = read_all_stdin()
        if not prompt.strip():
            raise _fail("the prompt read from stdin is empty", EXIT_USAGE)
        use_stdin = False
    else:
        use_stdin = not stdin_tty or stream_input or bool(kw["canusetool"])
    hopts = HeadlessOptions(
        prompt=prompt,
        output_format=fmt,
        stream_input=stream_input,
        session_id=kw["session"],
        **{k: kw[k] for k in ("resume_strict", "continue_last", "canusetool", "partial", "pretty", "verbose")},
    )
    try:
        _state["headless_ran"] = True
        return run_headless(settings, hopts, use_stdin=use_stdin)
    except UsageError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    except AuthError as exc:
        raise _fail(str(exc), EXIT_AUTH) from None
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    except SkawldError as exc:
        raise _fail(f"{exc.name}: {exc}", 1) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


def _resolve_headless_resume(settings: Any, kw: dict[str, Any]) -> dict[str, Any]:
    """``--resume PREFIX`` and ``--fork-session`` for headless runs (see `resume.py`)."""
    from .resume import PICK, ResumeError, start_session_id

    fork = kw.pop("fork", False)
    if kw["session"] == PICK:
        raise _fail("--resume needs a session id with -p (see `skawld sessions list`)", EXIT_USAGE)
    if not (fork or kw["resume_strict"]):
        return kw
    try:
        session_id = start_session_id(
            settings,
            resume=kw["session"] if kw["resume_strict"] else None,
            continue_last=kw["continue_last"],
            fork=fork,
        )
    except ResumeError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    if session_id is not None:
        kw.update(session=session_id, resume_strict=True, continue_last=False)
    return kw


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
) -> int:
    import asyncio

    from .bootstrap import build_agent
    from .resume import PICK, ResumeError, exit_hint, start_session_id

    settings = _settings(opts, interactive=True, verbose=verbose)
    _check_key(settings)
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

    use_tui = not plain and sys.stdin.isatty() and sys.stdout.isatty()
    try:
        if use_tui:
            from .app import SkawldApp

            tui = SkawldApp(
                agent_factory=agent_factory, resume_id=resume, settings=settings, pick_session=pick, fork_picked=fork
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
    code = _main(list(sys.argv[1:] if argv is None else argv))
    if argv is None and _state["headless_ran"]:
        _fast_exit(code)
    return code


def _main(args: list[str]) -> int:
    try:
        if args[:1] == ["sessions"]:
            from .sessions_cmd import app as sessions_app

            sessions_app(args[1:], prog_name="skawld sessions", standalone_mode=True)
        elif args[:1] == ["checkpoints"]:
            from .checkpoints_cmd import app as checkpoints_app

            checkpoints_app(args[1:], prog_name="skawld checkpoints", standalone_mode=True)
        else:
            from .resume import optional_resume_value

            app(optional_resume_value(args), prog_name="skawld", standalone_mode=True)
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
