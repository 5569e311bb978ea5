"""Copying transcript text with the mouse in a real terminal (tmux): a drag over an answer
selects it, Ctrl+C copies it, and what the app sends the terminal (OSC 52) is exactly the
dragged words. tmux (`set-clipboard on`) keeps what an application copies as a paste
buffer, so `show-buffer` reads what the app put on the clipboard."""

from __future__ import annotations

from tests.cli.harness import MODEL
from tests.support.wire_server import WireServer, text, turn

from .test_run_tmux import TmuxApp, pytestmark, srv, term  # noqa: F401  (fixtures)


def sgr_drag(row: int, start: int, end: int) -> str:
    """The SGR mouse reports of a left-button drag along one row (0-based cells, `end`
    exclusive): press, two moves with the button held, release."""
    y = row + 1
    return f"\x1b[<0;{start + 1};{y}M\x1b[<32;{start + 2};{y}M\x1b[<32;{end};{y}M\x1b[<0;{end};{y}m"


def test_a_mouse_drag_then_ctrl_c_copies_the_dragged_words(
    srv: WireServer,  # noqa: F811
    term: TmuxApp,  # noqa: F811
) -> None:
    term.conf.write_text(term.conf.read_text() + "set -s set-clipboard on\n")
    srv.anthropic.enqueue(turn(text("alpha bravo charlie delta echo")))
    term.start("--base-url", srv.url, "--model", MODEL)
    term.wait_for(lambda s: "Message skawld" in s and "session " in s, "the prompt")
    term.type("say it")
    screen = term.wait_for(lambda s: "alpha bravo" in s and "success" in s, "the answer")
    lines = screen.splitlines()
    row = next(i for i, line in enumerate(lines) if "alpha bravo" in line)
    start, end = lines[row].index("bravo"), lines[row].index("delta") + len("delta")

    term.tmux("send-keys", "-t", term.target, "-l", sgr_drag(row, start, end))
    term.keys("C-c")
    term.wait_for(lambda s: "copied" in s, "the app's 'copied' notice")
    assert term.tmux("show-buffer") == "bravo charlie delta"
    assert not term.dead()  # Ctrl+C with a selection copies; it does not count towards quitting
