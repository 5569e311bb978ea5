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

Between runs the app calls `collect_idle`: it collects what the last run
allocated and freezes the survivors, and only when the frozen heap has grown
by a quarter since the last full pass does it unfreeze and collect everything
(garbage that was frozen, such as transcript widgets pruned since). So the
cost of full passes per turn stays flat as the session grows, instead of one
pass over the whole, ever-growing heap after every run; frozen garbage stays
under a quarter of the heap.
"""

from __future__ import annotations

import gc

__all__ = ["collect_idle", "owns_process", "pause", "resume"]

_paused = False
_owned = False  # the console script called `pause`: this process's collector policy is ours
FULL_PASS_GROWTH = 0.25  # a full pass once the frozen heap grew by this share
_frozen_after_full_pass = 0


def pause() -> None:
    """Turn the collector off for start-up (only if it is on); the console script calls it
    first thing, which also makes the process's collector policy skawld's (`owns_process`)."""
    global _paused, _owned
    _owned = True
    if gc.isenabled():
        gc.disable()
        _paused = True


def owns_process() -> bool:
    """True in the `skawld` console script's own process; False when skawld is embedded or
    driven in-process (tests), whose caller keeps its own collector policy."""
    return _owned


def resume() -> None:
    """Freeze what start-up allocated and turn the collector back on; a no-op
    unless `pause` turned it off."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def collect_idle() -> bool:
    """Collect while idle and freeze the survivors; returns whether it was a full pass."""
    global _frozen_after_full_pass
    grown = gc.get_freeze_count() - _frozen_after_full_pass
    if _frozen_after_full_pass and grown <= _frozen_after_full_pass * FULL_PASS_GROWTH:
        gc.collect()  # frozen objects are not examined: this is the last run's allocations
        gc.freeze()
        return False
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _frozen_after_full_pass = gc.get_freeze_count()
    return True
