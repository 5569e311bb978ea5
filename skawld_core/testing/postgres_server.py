"""Start a throwaway PostgreSQL server for tests and benchmarks.

`start_postgres()` runs ``initdb`` into a fresh temporary directory and
``pg_ctl start`` on a free 127.0.0.1 port, with trust authentication (the
server only listens on loopback and lives for the test run). As root it runs
the server as the ``postgres`` user (PostgreSQL refuses to run as root).
`PostgresServerUnavailable` says why it could not start (binaries missing,
initdb failed, ...), so a test fixture can skip or fail with that reason.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

_BIN_GLOBS = ("/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin", "/opt/homebrew/opt/postgresql*/bin")


class PostgresServerUnavailable(RuntimeError):
    """The server binaries are missing or the server did not start."""


@dataclass
class PostgresServer:
    """A running server; `dsn` points at its ``postgres`` database."""

    data_dir: Path
    port: int
    bin_dir: Path
    run_as: str | None

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its data directory."""
        subprocess.run(
            [*self._prefix(), str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(self.data_dir.parent, ignore_errors=True)

    def _prefix(self) -> list[str]:
        return ["runuser", "-u", self.run_as, "--"] if self.run_as else []


def find_bin_dir() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl`` (newest version first), or `None`."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).parent
    for pattern in _BIN_GLOBS:
        for candidate in sorted(glob.glob(pattern), reverse=True):
            path = Path(candidate)
            if (path / "initdb").exists() and (path / "pg_ctl").exists():
                return path
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_postgres(*, durable: bool = False) -> PostgresServer:
    """initdb + pg_ctl start on a free port; raises `PostgresServerUnavailable`.

    `durable=False` (tests) turns fsync off; benchmarks pass `durable=True`.
    """
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise PostgresServerUnavailable(
            "PostgreSQL server binaries (initdb, pg_ctl) not found; install them with `apt-get install -y postgresql`"
        )
    run_as: str | None = None
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        if shutil.which("runuser") is None:
            raise PostgresServerUnavailable("running as root needs `runuser` to start PostgreSQL as `postgres`")
        run_as = "postgres"
    parent = Path(tempfile.mkdtemp(prefix="skawld-pg-"))
    data_dir = parent / "data"
    if run_as:
        shutil.chown(parent, user=run_as)
    parent.chmod(0o755)
    prefix = ["runuser", "-u", run_as, "--"] if run_as else []
    initdb = subprocess.run(
        [*prefix, str(bin_dir / "initdb"), "-D", str(data_dir), "-A", "trust", "-U", "postgres", "-E", "UTF8"],
        capture_output=True,
        text=True,
        check=False,
    )
    if initdb.returncode != 0:
        shutil.rmtree(parent, ignore_errors=True)
        raise PostgresServerUnavailable(f"initdb failed: {initdb.stderr.strip()[-500:]}")
    for _attempt in range(3):
        port = free_port()
        options = f"-p {port} -k {data_dir} -c listen_addresses=127.0.0.1 -c max_connections=300"
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off"
        pg_ctl = [str(bin_dir / "pg_ctl"), "-D", str(data_dir), "-o", options, "-l", str(parent / "log")]
        started = subprocess.run([*prefix, *pg_ctl, "-w", "start"], capture_output=True, text=True, check=False)
        if started.returncode == 0:
            return PostgresServer(data_dir=data_dir, port=port, bin_dir=bin_dir, run_as=run_as)
    log = (parent / "log").read_text(errors="replace")[-500:] if (parent / "log").exists() else started.stderr
    shutil.rmtree(parent, ignore_errors=True)
    raise PostgresServerUnavailable(f"pg_ctl start failed: {log.strip()}")
