"""The app's first frame needs only the widgets it draws (`skawld_tui.app.skawld_app.AFTER_FIRST_FRAME`).

Run in a fresh interpreter: this process has imported everything already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from skawld_tui.app.skawld_app import AFTER_FIRST_FRAME

PROBE = """
import asyncio, json, sys
sys.path.insert(0, {root!r})
from skawld_core.testing import reply, text
from tests.tui.helpers import make_app

app = make_app([reply(text("hello"))])
watched = {watched!r}
seen = {{}}
on_mount = type(app).on_mount

async def probe_on_mount(self):
    seen["mount"] = sorted(m for m in watched if m in sys.modules)
    await on_mount(self)

type(app).on_mount = probe_on_mount

async def main():
    async with app.run_test() as pilot:
        await pilot.press("h", "i", "enter")  # typed while those modules load: waits, runs
        while app.runs_completed < 1:
            await pilot.pause(0.01)
        seen["ready"] = sorted(m for m in watched if m in sys.modules)

asyncio.run(main())
print(json.dumps(seen))
"""


def test_first_frame_waits_for_none_of_the_later_modules() -> None:
    root = str(Path(__file__).resolve().parents[2])
    watched = [m for m in AFTER_FIRST_FRAME if m.startswith("skawld_tui.")] + ["rich.markdown", "markdown_it"]
    code = PROBE.format(root=root, watched=watched)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["mount"] == []  # composed and mounted without them
    assert seen["ready"] == sorted(watched)  # loaded after it, and the prompt typed meanwhile ran
