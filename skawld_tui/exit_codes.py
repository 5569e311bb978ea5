"""The ``skawld`` command's exit codes, one table for every sub-command (`docs/cli.md`)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1  # the (last) run ended with an error
EXIT_USAGE = 2  # unknown flag, bad value, conflicting flags, unknown session id
EXIT_CONFIG = 3  # invalid or untrusted config, a corrupt store
EXIT_AUTH = 4  # no API key, or the API refused it
EXIT_BUSY = 5  # the session is running in another process (its writer lock is held)
EXIT_ABORT = 130  # SIGINT, stdin `abort`, a closed stdout
EXIT_TERM = 143  # SIGTERM
