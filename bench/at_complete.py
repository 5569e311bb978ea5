"""`@` completion ranking: the tiered `FileIndex` against scoring every file.

Prints the time per key press for a 20 000-file listing while typing a few
queries letter by letter, for both, and the ratio (baseline / index). The goal
is that a key press stays well under the 100 ms key latency budget of
`bench/tui.py`.

    .venv/bin/python bench/at_complete.py
"""

from __future__ import annotations

import random
import string
import time

from skawld_tui.path_complete import FileIndex, fuzzy_score


def listing(n: int = 20_000) -> list[str]:
    rng = random.Random(1)

    def seg() -> str:
        return "".join(rng.choice(string.ascii_lowercase + "_") for _ in range(rng.randint(3, 10)))

    return ["/".join(seg() for _ in range(rng.randint(1, 5))) + ".py" for _ in range(n)]


def brute(files: list[str], query: str) -> list[str]:
    scored = sorted((-s, i) for i, f in enumerate(files) if (s := fuzzy_score(query, f)) is not None)
    return [files[i] for _, i in scored[:12]]


def main() -> None:
    files = listing()
    queries = ["prompt", "swp", "abc", "xyzq"]
    t0 = time.perf_counter()
    presses = 0
    for q in queries:
        for n in range(1, len(q) + 1):
            brute(files, q[:n])
            presses += 1
    base = (time.perf_counter() - t0) / presses
    t0 = time.perf_counter()
    for q in queries:
        index = FileIndex(files)  # a fresh prompt: the first letter searches everything
        for n in range(1, len(q) + 1):
            index.rank(q[:n])
    fast = (time.perf_counter() - t0) / presses
    print(f"files={len(files)} key presses={presses}")
    print(
        f"score every file: {base * 1000:.1f} ms/key   tiered index: {fast * 1000:.1f} ms/key   ratio {base / fast:.1f}x"
    )


if __name__ == "__main__":
    main()
