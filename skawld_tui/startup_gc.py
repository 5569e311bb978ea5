"""The cyclic garbage collector is off while ``skawld`` starts.

Start-up creates a few hundred classes (pydantic models, dataclasses) and the
objects behind them, and almost none of it is garbage; with the collector on,
those allocations trigger a string of collections that find nothing (about 4%
of the CPU time before the first request, `bench/startup.py`). The console
script pauses the collector first thing, and `resume` turns it back on once
the agent is built, after `gc.freeze()` has moved everything start-up made
into the permanent generation, so later collections do not walk it again.
`main()` resumes on the way out whatever happened, so a failed start cannot
leave a process without its collector.
"""

from __future__ import annotations

import gc

__all__ = ["pause", "resume"]

_paused = False


def pause() -> None:
    """Turn the collector off for start-up (only if it is on)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Freeze what start-up allocated and turn the collector back on; a no-op
    unless `pause` turned it off."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
