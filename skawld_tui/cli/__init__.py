"""The ``skawld`` command line: the command (`command`), its flags declared once (`flags`),
the fast parser (`fast`) and the sub-commands (`sessions`, `permissions`, `checkpoints`,
`work`, `config`, ...); ``skawld models`` is `skawld_tui.local_models`."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """The ``skawld`` console script: `command.main`."""
    from .command import main as run  # lazy: sub-command modules import this package without the command

    return run(argv)
