"""The welcome block in a real terminal (tmux): drawn at the top of a tall window, as Claude
Code draws it, not at the bottom under empty rows; the transcript still follows the bottom
once an answer overflows the window. (Pilot snapshots never showed the bottom placement:
it came from Textual's anchoring in a real terminal.)"""

from __future__ import annotations

from tests.cli.harness import MODEL
from tests.support.wire_server import WireServer, text, turn

from .test_run_tmux import TmuxApp, last_word, pytestmark, srv, term  # noqa: F401  (fixtures)

ROWS = 60


def test_the_welcome_is_at_the_top_of_a_tall_window_and_long_answers_still_follow(
    srv: WireServer,  # noqa: F811
    term: TmuxApp,  # noqa: F811
) -> None:
    srv.anthropic.enqueue(turn(text("a short answer")), turn(text([f"w{i:04d}\n\n" for i in range(1, 121)])))
    term.start("--base-url", srv.url, "--model", MODEL, rows=ROWS)
    screen = term.wait_for(
        lambda s: "Shift+Tab mode" in s and "session " in s and "Message skawld" in "".join(s.splitlines()[-4:]),
        "the welcome block, and the prompt at the bottom of the window",
    )
    lines = screen.splitlines()
    assert len(lines) == ROWS
    assert lines[0].lstrip().startswith("╭") and "skawld" in lines[1], screen

    term.type("hi")
    screen = term.wait_for(lambda s: "a short answer" in s and "success" in s, "the short answer")
    assert "skawld" in screen.splitlines()[1], screen  # a short transcript stays at the top

    term.type("count")
    screen = term.wait_for(lambda s: "w0120" in s and s.count("success") >= 1 and "running" not in s, "the end")
    assert last_word(screen) == 120 and "w0001" not in screen  # the view followed the bottom
