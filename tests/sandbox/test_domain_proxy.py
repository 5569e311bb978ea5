"""Network by domain, on real bubblewrap: `curl` inside the sandbox reaches local HTTP
and HTTPS servers on the host's 127.0.0.1 only through skawld's proxy, and only for
names `allowedDomains` lists (the proxy maps the test names to 127.0.0.1, as
`curl --resolve` would); unlisted names and IP literals are refused, `deniedDomains`
wins, and the Bash result names the domain and the setting."""

from __future__ import annotations

import http.server
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skawld_core.sandbox import ShellPolicy

from .conftest import bash, context, needs_bwrap, text

pytestmark = [pytest.mark.timeout(60), needs_bwrap]

ALLOWED_TEXT = (
    "Bash: the sandbox refused network access to {host} is not allowed (add it to sandbox.network.allowedDomains)."
)


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello from {self.headers.get('Host')}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def _serve(tls: ssl.SSLContext | None = None) -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def http_port() -> Iterator[int]:
    yield from _serve()


@pytest.fixture(scope="module")
def https_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=pkgs.test",
         "-keyout", str(d / "k.pem"), "-out", str(d / "c.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(d / "c.pem", d / "k.pem")
    yield from _serve(tls)


def _policy(allowed: list[str], denied: list[str] = ()) -> ShellPolicy:  # type: ignore[assignment]
    policy = ShellPolicy(
        sandbox={"mode": "required", "network": False, "allowed_domains": allowed, "denied_domains": list(denied)}
    )
    policy.proxy_resolve.update({"pkgs.test": "127.0.0.1", "bad.test": "127.0.0.1", "other.example": "127.0.0.1"})
    return policy


@pytest.fixture
def policy() -> Iterator[ShellPolicy]:
    p = _policy(["pkgs.test", "*.test"], ["bad.test"])
    yield p
    p.close()


async def test_an_allowed_name_reaches_http_and_https(
    project: Path, policy: ShellPolicy, http_port: int, https_port: int
) -> None:
    ctx = context(project, policy)
    got = await bash(ctx, f"curl -sS http://pkgs.test:{http_port}/ && curl -sSk https://pkgs.test:{https_port}/")
    assert text(got).startswith(f"hello from pkgs.test:{http_port}\nhello from pkgs.test:{https_port}\n"), text(got)
    socks = await bash(ctx, f'curl -sS -x "$ALL_PROXY" http://pkgs.test:{http_port}/')  # SOCKS5 by name
    assert text(socks).startswith(f"hello from pkgs.test:{http_port}\n"), text(socks)
    direct = await bash(ctx, f"curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:{http_port}/")
    assert "hello" not in text(direct)  # no network but the proxy


async def test_unlisted_names_and_ip_literals_are_refused(project: Path, http_port: int) -> None:
    policy = _policy(["pkgs.test"])
    try:
        ctx = context(project, policy)
        unlisted = await bash(ctx, f"curl -sS http://other.example:{http_port}/")
        assert "hello" not in text(unlisted)
        assert "network access to other.example is not allowed" in text(unlisted)
        assert ALLOWED_TEXT.format(host="other.example") in text(unlisted)
        https = await bash(ctx, f"curl -sSk https://other.example:{http_port}/")
        assert ALLOWED_TEXT.format(host="other.example") in text(https) and "hello" not in text(https)
        literal = await bash(ctx, f"curl -sS --noproxy '' http://127.0.0.1:{http_port}/")
        assert "hello" not in text(literal) and ALLOWED_TEXT.format(host="127.0.0.1") in text(literal)
        socks = await bash(
            ctx, f"curl -sS --noproxy '' --socks5 127.0.0.1:${{ALL_PROXY##*:}} http://127.0.0.1:{http_port}/"
        )
        assert "hello" not in text(socks) and ALLOWED_TEXT.format(host="127.0.0.1") in text(socks)
    finally:
        policy.close()


async def test_a_listed_ip_literal_is_allowed(project: Path, http_port: int) -> None:
    policy = _policy(["127.0.0.1"])
    try:
        got = await bash(context(project, policy), f"curl -sS --noproxy '' http://127.0.0.1:{http_port}/")
        assert text(got).startswith(f"hello from 127.0.0.1:{http_port}\n"), text(got)
    finally:
        policy.close()


async def test_denied_wins_over_a_wildcard(project: Path, policy: ShellPolicy, http_port: int) -> None:
    ctx = context(project, policy)
    denied = await bash(ctx, f"curl -sS http://bad.test:{http_port}/")
    assert "hello" not in text(denied)
    assert "Bash: the sandbox refused network access to bad.test is denied (sandbox.network.deniedDomains)." in text(
        denied
    )
    assert text(await bash(ctx, f"curl -sS http://pkgs.test:{http_port}/")).startswith("hello from pkgs.test")


async def test_webfetch_domain_allow_rules_open_the_name(project: Path, http_port: int) -> None:
    from skawld_core.permissions import PermissionEngine
    from skawld_core.permissions.claude_rules import parse_claude_rules

    rules = [
        *parse_claude_rules(["WebFetch(domain:pkgs.test)"], "allow").rules,
        *parse_claude_rules(["WebFetch(domain:bad.test)"], "deny").rules,
    ]
    engine = PermissionEngine(mode="default", rules=rules, project_root=project)
    policy = ShellPolicy(sandbox={"mode": "required", "allowed_domains": ["*.test"]}, permissions=engine)
    policy.proxy_resolve.update({"pkgs.test": "127.0.0.1", "bad.test": "127.0.0.1"})
    try:
        assert policy.domains.allowed == ("*.test", "pkgs.test") and policy.domains.denied == ("bad.test",)
        ctx = context(project, policy)
        assert text(await bash(ctx, f"curl -sS http://pkgs.test:{http_port}/")).startswith("hello from pkgs.test")
        denied = await bash(ctx, f"curl -sS http://bad.test:{http_port}/")
        assert "hello" not in text(denied) and "bad.test is denied" in text(denied)
    finally:
        policy.close()


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A static server: a pip simple index with one wheel, an npm registry document, a git repository (dumb HTTP)."""
    import functools
    import json
    import zipfile

    root = tmp_path / "registry"
    wheel = root / "simple" / "tinypkg" / "tinypkg-1.0-py3-none-any.whl"
    wheel.parent.mkdir(parents=True)
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("tinypkg/__init__.py", "")
        z.writestr("tinypkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n")
        z.writestr("tinypkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr("tinypkg-1.0.dist-info/RECORD", "")
    (wheel.parent / "index.html").write_text(f'<a href="{wheel.name}">{wheel.name}</a>')
    doc = {
        "name": "tinypkg",
        "dist-tags": {"latest": "1.2.3"},
        "versions": {"1.2.3": {"name": "tinypkg", "version": "1.2.3"}},
    }
    (root / "tinypkg").write_text(json.dumps(doc))
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(work),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        check=True,
    )
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(root / "repo.git")], check=True)
    subprocess.run(["git", "-C", str(root / "repo.git"), "update-server-info"], check=True)
    head = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    (tmp_path / "head").write_text(head.stdout.strip())
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield tmp_path, server.server_address[1]
    server.shutdown()
    server.server_close()


async def test_pip_npm_and_git_work_unchanged_through_the_proxy(project: Path, registry: tuple[Path, int]) -> None:
    import sys

    where, port = registry
    policy = _policy(["pkgs.test"])
    try:
        ctx = context(project, policy)
        pip = await bash(
            ctx,
            f"{sys.executable} -m pip --isolated download --no-deps --no-cache-dir --trusted-host pkgs.test --disable-pip-version-check -d /tmp/dl "
            f"-i http://pkgs.test:{port}/simple/ tinypkg && ls /tmp/dl",
        )
        assert "tinypkg-1.0-py3-none-any.whl" in text(pip), text(pip)
        if shutil.which("npm") is not None:
            npm = await bash(ctx, f"npm view tinypkg version --registry http://pkgs.test:{port}/ --cache /tmp/npmc")
            assert text(npm).startswith("1.2.3\n"), text(npm)
        git = await bash(ctx, f"git ls-remote http://pkgs.test:{port}/repo.git")
        assert (where / "head").read_text() in text(git), text(git)
        refused = await bash(ctx, f"git ls-remote http://other.example:{port}/repo.git")
        assert ALLOWED_TEXT.format(host="other.example") in text(refused)
    finally:
        policy.close()


async def test_a_webfetch_rule_added_mid_session_opens_the_name_in_the_same_namespace(
    project: Path, http_port: int
) -> None:
    from skawld_core.permissions import PermissionEngine
    from skawld_core.permissions.rules import DomainRule

    engine = PermissionEngine(mode="default", project_root=project)
    policy = ShellPolicy(sandbox="required", permissions=engine)
    policy.proxy_resolve["pkgs.test"] = "127.0.0.1"
    try:
        ctx = context(project, policy)
        before = await bash(ctx, f"echo ${{HTTP_PROXY:-none}}; curl -sS --max-time 5 http://pkgs.test:{http_port}/")
        assert text(before).startswith("none\n") and "hello" not in text(before)
        holder = policy.networks.holder("s1")
        assert holder is not None
        engine.add_rule(DomainRule(domains=["pkgs.test"], decision="allow"))
        after = await bash(ctx, f"curl -sS http://pkgs.test:{http_port}/")
        assert text(after).startswith("hello from pkgs.test"), text(after)
        assert policy.networks.holder("s1") is holder  # the session's namespace (and its servers) stayed
    finally:
        policy.close()
