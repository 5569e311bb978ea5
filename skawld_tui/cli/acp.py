"""``skawld acp``: serve the Agent Client Protocol on stdin/stdout (`skawld_tui.acp.agent`)."""

from __future__ import annotations

from typing import Annotated

import typer

from .subcommand import new_app

app = new_app("Serve the Agent Client Protocol on stdio (for Zed, JetBrains, Neovim, Toad).", no_args_is_help=False)


@app.command()
def acp(
    model: Annotated[str | None, typer.Option("--model", "-m", help="Model id.")] = None,
    provider: Annotated[str | None, typer.Option("--provider", help="Model API.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="API base URL.")] = None,
    permission_mode: Annotated[
        str | None, typer.Option("--permission-mode", help="default | acceptEdits | plan | yolo (the first mode).")
    ] = None,
    accept_project_config: Annotated[
        bool, typer.Option("--accept-project-config", help="Trust the project's config file (remembered).")
    ] = False,
) -> None:
    """Run as an ACP agent: newline-delimited JSON-RPC on stdin/stdout, logs on stderr."""
    from skawld_core.settings import CliOptions

    from ..acp.agent import run_acp  # lazy: the acp package loads only for this sub-command

    options = CliOptions(
        model=model,
        provider=provider,
        base_url=base_url,
        permission_mode=permission_mode,
        accept_project_config=accept_project_config,
    )
    raise typer.Exit(run_acp(options))
