"""The sandbox's network, attacked from inside with real bubblewrap: a prompt-injected model's
Bash commands speaking raw HTTP, CONNECT and SOCKS5 to skawld's proxy.

Holes are strict xfails naming the hole (the suite stays green while they are open; the test
flips when one is closed). The rest are attacks that held and that a regression could reopen.
Every escape is seen from the host side: a local server on an address that only a refused name
(or the host's loopback) leads to records the requests it got.

Addresses: `pkgs.test` (allowed) maps to 127.0.0.1, `bad.test` (denied) to 127.0.0.2,
`other.example` / `ask.test` (unlisted) to 127.0.0.3, through the proxy's test resolver;
`localhost` resolves for real (/etc/hosts) to the host's 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import socket
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from skawld_core.sandbox import ShellPolicy
from tests.cli.harness import CliEnv, cli  # noqa: F401  (a fixture: the real skawld command)

from .conftest import appears, bash, context, gone, needs_bwrap, sleep_tag, text

pytestmark = [pytest.mark.timeout(90), needs_bwrap]

# Run inside the sandbox: sends raw bytes to the session's proxy port, prints the reply.
RAW_CLIENT = r"""
import os, socket, struct, sys
port = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
kind, payload = sys.argv[1], bytes.fromhex(sys.argv[2])
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(5)
if kind == "socks5":
    s.sendall(b"\x05\x01\x00")
    s.recv(2)
    s.sendall(b"\x05\x01\x00" + payload)
    reply = s.recv(10)
    print("socks reply", reply.hex())
    if reply[1:2] == b"\x00":
        s.sendall(bytes.fromhex(sys.argv[3]) if len(sys.argv) > 3 else b"GET / HTTP/1.0\r\n\r\n")
else:
    s.sendall(payload)
out = b""
try:
    while chunk := s.recv(65536):
        out += chunk
except OSError as exc:
    out += repr(exc).encode()
print(out.decode("latin-1"))
"""


@dataclass
class Servers:
    """HTTP servers on several loopback addresses, each recording the Host of every request."""

    ports: dict[str, int] = field(default_factory=dict)
    hits: dict[str, list[str]] = field(default_factory=dict)
    _servers: list[http.server.ThreadingHTTPServer] = field(default_factory=list)

    def start(self, tag: str, address: str) -> None:
        hits = self.hits.setdefault(tag, [])

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(str(self.headers.get("Host")))
                body = f"hello {tag}\n".encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server = http.server.ThreadingHTTPServer((address, 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self._servers.append(server)
        self.ports[tag] = server.server_address[1]

    def clear(self) -> None:
        for hits in self.hits.values():
            hits.clear()

    def close(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    s = Servers()
    s.start("allowed", "127.0.0.1")  # pkgs.test
    s.start("denied", "127.0.0.2")  # bad.test, and the literal 127.0.0.2 (not listed)
    s.start("unlisted", "127.0.0.3")  # other.example / ask.test
    s.start("host", "127.0.0.1")  # the host's loopback, reached only by names meaning it
    yield s
    s.close()


RESOLVE = {"pkgs.test": "127.0.0.1", "bad.test": "127.0.0.2", "other.example": "127.0.0.3", "ask.test": "127.0.0.3"}


def make_policy(allowed: list[str], denied: list[str] = ()) -> ShellPolicy:  # type: ignore[assignment]
    policy = ShellPolicy(
        sandbox={"mode": "required", "network": False, "allowed_domains": allowed, "denied_domains": list(denied)}
    )
    policy.proxy_resolve.update(RESOLVE)
    return policy


@pytest.fixture
def listed() -> Iterator[ShellPolicy]:
    p = make_policy(["pkgs.test", "*.test"], ["bad.test"])
    yield p
    p.close()


@pytest.fixture
def star() -> Iterator[ShellPolicy]:
    p = make_policy(["*"], ["bad.test"])
    yield p
    p.close()


async def raw(
    project: Path, policy: ShellPolicy, kind: str, payload: bytes, session: str = "s1", socks_then: bytes = b""
) -> str:
    """Sends `payload` to the proxy from inside the sandbox (SOCKS5: then `socks_then`, or a GET)."""
    (project / "raw_client.py").write_text(RAW_CLIENT)
    command = f"python3 raw_client.py {kind} {payload.hex()} {socks_then.hex()}"
    return text(await bash(context(project, policy, session), command))


def connect(target: str, then: str | None = None) -> bytes:
    """CONNECT, then (by default) a GET whose Host names the tunnel's own target."""
    if then is None:
        then = f"GET / HTTP/1.1\r\nHost: {target}\r\nConnection: close\r\n\r\n"
    return f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n{then}".encode("latin-1")


def get(url: str, host: str | None = None) -> bytes:
    """An absolute-form GET whose Host names the URL's own authority unless `host` says otherwise."""
    host = url.partition("://")[2].partition("/")[0] if host is None else host
    return f"GET {url} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode("latin-1")


def socks_name(name: bytes, port: int) -> bytes:
    return b"\x03" + bytes([len(name)]) + name + port.to_bytes(2, "big")


class Asker:
    """The network question's hook: records the names asked about and answers yes."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, host: str) -> bool:
        self.asked.append(host)
        return True


# --- holes found by the attack, closed (issue 25: one canonical form per name; fronting) ---


NUMERIC_SPELLINGS = ["2130706434", "0x7f000002", "127.2", "0x7f.2", "0177.0.0.2"]


@pytest.mark.parametrize("spelling", NUMERIC_SPELLINGS)
@pytest.mark.parametrize("protocol", ["http", "connect", "socks5"])
async def test_numeric_ipv4_spellings_are_ip_literals_under_star(
    project: Path, star: ShellPolicy, servers: Servers, spelling: str, protocol: str
) -> None:
    servers.clear()
    port = servers.ports["denied"]  # 127.0.0.2: not listed
    if protocol == "http":
        out = await raw(project, star, "http", get(f"http://{spelling}:{port}/"))
    elif protocol == "connect":
        out = await raw(project, star, "http", connect(f"{spelling}:{port}"))
    else:
        out = await raw(project, star, "socks5", socks_name(spelling.encode(), port))
    assert servers.hits["denied"] == [] and "hello denied" not in out, out


@pytest.mark.parametrize("name", ["0", "*"])
async def test_zero_and_star_do_not_reach_the_hosts_loopback(
    project: Path, star: ShellPolicy, servers: Servers, name: str
) -> None:
    servers.clear()
    out = await raw(project, star, "http", connect(f"{name}:{servers.ports['host']}"))
    assert servers.hits["host"] == [] and "hello host" not in out, out


async def test_localhost_under_star_does_not_reach_the_hosts_loopback(
    project: Path, star: ShellPolicy, servers: Servers
) -> None:
    servers.clear()
    out = text(
        await bash(
            context(project, star), f"curl -sS --max-time 5 --noproxy '' http://localhost:{servers.ports['host']}/"
        )
    )
    assert servers.hits["host"] == [] and "hello host" not in out, out


@pytest.mark.parametrize("name", ["*", "*.example"])
async def test_a_wildcard_looking_name_is_refused_unasked_and_always_saves_only_an_exact_name(
    project: Path, servers: Servers, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    from skawld_core import Agent
    from skawld_core.sessions import InMemorySessionStore
    from skawld_core.testing import ScriptedProvider
    from skawld_core.tools import BashTool
    from skawld_tui.permission_broker import NetworkChoice, PermissionBroker

    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    class AlwaysAsker:
        def __init__(self) -> None:
            self.asked: list[tuple[str, str]] = []

        async def ask_network(self, host: str, rule: str) -> NetworkChoice | None:
            self.asked.append((host, rule))
            return "always"

        def notice(self, text: str, *, warning: bool = False) -> None:
            pass

    agent = Agent(
        provider=ScriptedProvider([]),
        model="m",
        session_store=InMemorySessionStore(),
        cwd=project,
        tools=[BashTool()],
        sandbox={"mode": "required", "allowed_domains": ["pkgs.test"]},
    )
    try:
        policy = agent.shell_policy
        assert policy is not None
        policy.proxy_resolve.update(RESOLVE)
        asker = AlwaysAsker()
        policy.network_ask = PermissionBroker(asker, lambda: agent).ask_network  # type: ignore[arg-type]
        servers.clear()
        out = await raw(project, policy, "http", connect(f"{name}:{servers.ports['unlisted']}"))
        assert asker.asked == [] and "`*` is a pattern, not a host name" in out, out  # refused, never asked
        out = await raw(project, policy, "http", connect(f"Other.Example.:{servers.ports['unlisted']}"))
        assert "hello unlisted" in out, out  # asked, answered "always"
        assert asker.asked == [("other.example", "WebFetch(domain:other.example)")]  # the canonical name only
        assert policy.domains.verdict("another.example") == "unlisted"
        assert policy.domains.verdict("other.example") == "allow"
    finally:
        await agent.close()


async def test_a_server_that_speaks_first_is_heard_through_a_checked_tunnel(project: Path, listed: ShellPolicy) -> None:
    """The tunnel's first-bytes check waits for the client, but the upstream's bytes flow meanwhile (SSH, SMTP)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:

        def greet() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.sendall(b"SSH-2.0-banner\r\n")

        thread = threading.Thread(target=greet, daemon=True)
        thread.start()
        out = await raw(project, listed, "http", connect(f"pkgs.test:{listener.getsockname()[1]}", then=""))
        thread.join(30)
    assert "SSH-2.0-banner" in out, out


# IDNA makes `bücher.test` and `xn--bcher-kva.test` one DNS name (getaddrinfo encodes the first into the
# second); the test resolver maps both, as DNS would.
IDN = {"bücher.test": "127.0.0.2", "xn--bcher-kva.test": "127.0.0.2"}


async def idn_attempt(project: Path, servers: Servers, denied: str, protocol: str) -> str:
    """Asks for the punycode name `xn--bcher-kva.test` (what curl sends, over HTTP and SOCKS5 alike)."""
    policy = ShellPolicy(
        sandbox={"mode": "required", "network": False, "allowed_domains": ["*.test"], "denied_domains": [denied]}
    )
    policy.proxy_resolve.update(IDN)
    try:
        servers.clear()
        port = servers.ports["denied"]
        if protocol == "http":
            return await raw(project, policy, "http", connect(f"xn--bcher-kva.test:{port}"))
        return await raw(project, policy, "socks5", socks_name(b"xn--bcher-kva.test", port))
    finally:
        policy.close()


@pytest.mark.parametrize(
    ("denied", "protocol"),
    [("bücher.test", "http"), ("xn--bcher-kva.test", "socks5")],
    ids=["unicode-entry-http", "punycode-entry-socks5"],
)
async def test_a_denied_international_name_is_denied_whatever_the_spelling(
    project: Path, servers: Servers, denied: str, protocol: str
) -> None:
    out = await idn_attempt(project, servers, denied, protocol)
    assert servers.hits["denied"] == [], out


@pytest.mark.parametrize(
    ("denied", "protocol"),
    [("bücher.test", "socks5"), ("xn--bcher-kva.test", "http")],
    ids=["unicode-entry-socks5", "punycode-entry-http"],
)
async def test_a_denied_international_name_in_the_spelling_the_protocol_compares(
    project: Path, servers: Servers, denied: str, protocol: str
) -> None:
    out = await idn_attempt(project, servers, denied, protocol)
    assert servers.hits["denied"] == [] and "is denied" in out, out


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        (b"github.com\x1b[8m.other.example", "github.com"),
        (b"github.com\n\x1b[1Aother.example", "github.com"),
        (b"bad.test\x00", "bad.test"),
    ],
    ids=["esc-conceal", "newline-cursor-up", "denied-plus-nul"],
)
async def test_the_question_never_shows_control_characters(
    project: Path, listed: ShellPolicy, servers: Servers, name: bytes, shown: str
) -> None:
    asker = listed.network_ask = Asker()
    out = await raw(project, listed, "socks5", socks_name(name, servers.ports["unlisted"]))
    assert asker.asked == [], asker.asked  # refused before any question
    assert "control characters" in out and "\x1b" not in out, out  # the refusal shows the name escaped


@pytest.mark.parametrize("protocol", ["http", "connect"])
async def test_a_host_header_naming_a_denied_host_is_not_forwarded(
    project: Path, listed: ShellPolicy, servers: Servers, protocol: str
) -> None:
    servers.clear()
    port = servers.ports["allowed"]
    inner = get(f"http://pkgs.test:{port}/", host="bad.test")
    if protocol == "connect":
        inner = connect(f"pkgs.test:{port}", get("/", host="bad.test").decode())
    out = await raw(project, listed, "http", inner)
    assert "bad.test" not in servers.hits["allowed"], servers.hits
    if protocol == "http":
        assert out.startswith("HTTP/1.1 400") and "domain fronting is refused" in out, out
    assert "named another host (domain fronting)" in out, out  # the Bash result says why
    servers.clear()  # the same request naming the tunnel's own host goes through
    same = get(f"http://pkgs.test:{port}/", host=f"PKGS.test:{port}")
    if protocol == "connect":
        same = connect(f"pkgs.test:{port}", get("/", host="pkgs.test").decode())
    assert "hello allowed" in await raw(project, listed, "http", same)
    assert servers.hits["allowed"], servers.hits


def client_hello(server_name: str) -> bytes:
    """The first bytes a real TLS client sends for `server_name` (its SNI)."""
    tls = ssl.create_default_context().wrap_bio(
        ssl.MemoryBIO(), outgoing := ssl.MemoryBIO(), server_hostname=server_name
    )
    with contextlib.suppress(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


@pytest.mark.parametrize("protocol", ["connect", "socks5"])
async def test_a_tls_server_name_other_than_the_tunnels_is_not_forwarded(
    project: Path, listed: ShellPolicy, protocol: str
) -> None:
    received: list[bytes] = []
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        def serve() -> None:
            for _ in range(3):
                conn, _ = listener.accept()
                with conn:
                    conn.settimeout(10)
                    with contextlib.suppress(OSError):
                        received.append(conn.recv(65536))

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        hellos = [client_hello(name) for name in ("bad.test", "other.example", "PKGS.test")]
        for hello in hellos:
            if protocol == "connect":
                out = await raw(project, listed, "http", connect(f"pkgs.test:{port}", hello.decode("latin-1")))
            else:
                out = await raw(project, listed, "socks5", socks_name(b"pkgs.test", port), socks_then=hello)
            assert ("domain fronting" in out) is (hello is not hellos[2]), out
        thread.join(30)
    assert received[:2] == [b"", b""], received  # connected, then closed before a byte went up
    assert received[2] == hellos[2], received  # the tunnel's own name (any case) goes through whole


async def test_the_question_does_not_show_a_homograph_of_a_listed_name(project: Path, servers: Servers) -> None:
    policy = make_policy(["pypi.test"])
    asker = policy.network_ask = Asker()
    try:
        await raw(project, policy, "socks5", socks_name(b"xn--pyp-lhd.test", servers.ports["unlisted"]))
        assert asker.asked and all(host.isascii() for host in asker.asked), asker.asked
    finally:
        policy.close()


@pytest.mark.parametrize("spelling", ["2130706434", "0x7f.2"])
async def test_the_question_names_the_address_a_numeric_spelling_means(
    project: Path, listed: ShellPolicy, servers: Servers, spelling: str
) -> None:
    asker = listed.network_ask = Asker()
    await raw(project, listed, "http", connect(f"{spelling}:{servers.ports['denied']}"))
    assert asker.asked == ["127.0.0.2"], asker.asked


# --- attacks that held -------------------------------------------------------------------


async def test_spellings_of_a_denied_name_are_denied(project: Path, listed: ShellPolicy, servers: Servers) -> None:
    servers.clear()
    port = servers.ports["denied"]
    attempts = [
        ("http", connect(f"BAD.TEST.:{port}")),
        ("http", connect(f"[bad.test]:{port}")),
        ("http", connect(f"bad.test :{port}")),
        ("http", get(f"HTTP://BAD.TEST:{port}/")),
        ("http", get(f"http://bad.test..:{port}/")),
        ("http", get(f"http://bad.test:{port}")),  # no path
        ("socks5", socks_name(b"BAD.TEST.", port)),
        ("socks5", socks_name(b"bad.test\x00", port)),
    ]
    for kind, payload in attempts:
        out = await raw(project, listed, kind, payload)
        assert "hello denied" not in out, (payload, out)
    assert servers.hits["denied"] == []


async def test_url_tricks_do_not_reach_the_name_after_the_at_sign_or_hash(
    project: Path, listed: ShellPolicy, servers: Servers
) -> None:
    servers.clear()
    a, b = servers.ports["allowed"], servers.ports["denied"]
    urls = [
        f"http://pkgs.test@bad.test:{b}/",
        f"http://pkgs.test:{a}@bad.test:{b}/",
        f"http://bad.test:{b}#@pkgs.test/",
        f"http://bad.test:{b}?@pkgs.test/",
        f"http://bad.test:{b}\\@pkgs.test/",
        f"http://bad.test%2e:{b}/",
    ]
    for url in urls:
        out = await raw(project, listed, "http", get(url))
        assert "hello denied" not in out, (url, out)
    out = await raw(project, listed, "http", connect(f"bad.test:{b}@pkgs.test:{a}"))
    assert "hello" not in out
    out = await raw(project, listed, "http", connect(f"pkgs.test.other.example:{servers.ports['unlisted']}"))
    assert "network access to pkgs.test.other.example is not allowed" in out and "hello" not in out
    assert servers.hits["denied"] == []


async def test_origin_form_and_a_host_header_alone_are_refused(
    project: Path, listed: ShellPolicy, servers: Servers
) -> None:
    servers.clear()
    out = await raw(project, listed, "http", get("/", host=f"bad.test:{servers.ports['denied']}"))
    assert out.startswith("HTTP/1.1 400") and "hello" not in out, out
    out = await raw(project, listed, "http", b"GET / HTTP/1.0\r\n\r\n")  # HTTP/1.0, no Host
    assert out.startswith("HTTP/1.1 400"), out
    assert all(not hits for hits in servers.hits.values())


async def test_a_second_request_on_one_connection_stays_with_the_first_name(
    project: Path, listed: ShellPolicy, servers: Servers
) -> None:
    """Pipelining and requests inside a CONNECT tunnel reach only the upstream the first, checked, name chose."""
    servers.clear()
    a, b = servers.ports["allowed"], servers.ports["denied"]
    piped = get(f"http://pkgs.test:{a}/").replace(b"Connection: close\r\n", b"") + get(
        f"http://bad.test:{b}/", host="bad.test"
    )
    await raw(project, listed, "http", piped)
    await raw(project, listed, "http", connect(f"pkgs.test:{a}", get(f"http://bad.test:{b}/", "bad.test").decode()))
    assert servers.hits["denied"] == [] and servers.hits["allowed"]


async def test_ip_literals_stay_refused_under_star(project: Path, star: ShellPolicy, servers: Servers) -> None:
    servers.clear()
    d, h = servers.ports["denied"], servers.ports["host"]
    attempts = [
        ("http", connect(f"127.0.0.1:{h}")),
        ("http", connect(f"127.0.0.1.:{h}")),
        ("http", connect(f"0.0.0.0:{h}")),
        ("http", connect(f"[::ffff:127.0.0.1]:{h}")),
        ("http", get(f"http://127.0.0.2:{d}/")),
        ("socks5", b"\x01" + socket.inet_aton("127.0.0.2") + d.to_bytes(2, "big")),
        ("socks5", b"\x04" + socket.inet_pton(socket.AF_INET6, "::ffff:127.0.0.2") + d.to_bytes(2, "big")),
    ]
    for kind, payload in attempts:
        out = await raw(project, star, kind, payload)
        assert "hello" not in out, (payload, out)
    assert servers.hits["denied"] == [] and servers.hits["host"] == []


async def test_once_stays_in_its_session_and_once_for_star_opens_only_that_name(
    project: Path, listed: ShellPolicy, servers: Servers
) -> None:
    asker = listed.network_ask = Asker()
    c = servers.ports["unlisted"]
    await bash(context(project, listed, "one"), f"curl -sS http://other.example:{c}/")
    await bash(context(project, listed, "two"), f"curl -sS http://other.example:{c}/")
    assert asker.asked == ["other.example", "other.example"]  # session two is asked again
    await raw(project, listed, "http", connect(f"*:{c}"), session="three")  # refused unasked (`*` is no name)
    await raw(project, listed, "http", connect(f"other.example:{c}"), session="three")
    assert asker.asked[2:] == ["other.example"]


async def test_detached_processes_end_with_the_session(project: Path) -> None:
    policy = ShellPolicy(sandbox={"mode": "required", "network": False})
    try:
        ctx = context(project, policy, "one")
        tags = [sleep_tag() for _ in range(6)]
        foreground = [
            f"setsid nohup sleep {tags[0]} >/dev/null 2>&1 & disown",
            f"( ( sleep {tags[1]} & ) & )",
            f"nohup bash -c 'trap \"\" HUP TERM; exec sleep {tags[2]}' >/dev/null 2>&1 &",
            "python3 -c 'import os\nif os.fork(): os._exit(0)\nos.setsid()\nif os.fork(): os._exit(0)\n"
            f'os.execvp("sleep", ["sleep", "{tags[3]}"])\'',
        ]
        for command in foreground:
            await bash(ctx, command)
        for tag in tags[:4]:
            assert await gone(tag), f"sleep {tag} outlived its call"
        await bash(ctx, f"setsid sleep {tags[4]} & (sleep {tags[5]} &); sleep 1000", run_in_background=True)
        await appears(tags[4])
        await appears(tags[5])
        await policy.end_background("one")
        for tag in tags[4:]:
            assert await gone(tag), f"sleep {tag} outlived the session"
    finally:
        await asyncio.wait_for(policy.end_background(), 30)
        policy.close()


async def test_another_sessions_server_is_not_reached_through_the_proxy(project: Path, listed: ShellPolicy) -> None:
    """The proxy connects from the host's network: a server inside session one's namespace is out of its reach."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (project / "index.html").write_text("session-one-secret\n")
    one, two = context(project, listed, "one"), context(project, listed, "two")
    started = await bash(one, f"python3 -m http.server {port} --bind 127.0.0.1", run_in_background=True)
    assert not started.is_error, text(started)
    own = await bash(one, f"for i in $(seq 100); do curl -s http://127.0.0.1:{port}/ && break; sleep 0.05; done")
    assert "session-one-secret" in text(own)  # the server runs
    for command in (
        f"curl -sS --max-time 5 http://pkgs.test:{port}/",
        f"curl -sS --max-time 5 --noproxy '' http://127.0.0.1:{port}/",
        f"curl -sS --max-time 5 -x $ALL_PROXY http://pkgs.test:{port}/",
    ):
        assert "session-one-secret" not in text(await bash(two, command))
    await listed.end_background()


def test_a_domain_rule_a_command_plants_is_gated_for_the_next_session(cli: CliEnv) -> None:  # noqa: F811
    """In a project without `.claude/` (only an existing one is kept read-only) a command can write
    .claude/settings.local.json; the trust gate pins the accepted content, so the next session stops."""
    from tests.support.wire_server import text as say
    from tests.support.wire_server import tool_call, turn

    cli.write_user_config({"sandbox": {"mode": "required", "network": {"allowedDomains": ["pkgs.example"]}}})
    plant = (
        'mkdir -p .claude && echo \'{"permissions":{"allow":["WebFetch(domain:*)"]}}\' > .claude/settings.local.json'
    )
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": plant}, id="b1")), turn(say("planted")))
    first = cli.run(*cli.args("-p", "plant", "--permission-mode", "yolo", "--accept-project-config"))
    assert first.returncode == 0, first.stderr
    assert (cli.repo / ".claude" / "settings.local.json").exists()  # written from inside the sandbox
    cli.srv.anthropic.clear()
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "curl -sS http://x/"}, id="b2")), turn(say("x")))
    second = cli.run(*cli.args("-p", "fetch", "--permission-mode", "yolo"))
    assert second.returncode == 3, (second.returncode, second.stderr)
    assert "allow rule WebFetch(domain:*)" in second.stderr, second.stderr
    assert cli.srv.anthropic.requests == []  # no model request, so no command ran
