"""Generated repositories for scale tests and benches: many small files in nested packages."""

from __future__ import annotations

import os
from pathlib import Path

FILES_PER_DIR = 20


def package_dir(root: Path, index: int) -> Path:
    """The directory of package `index` (three levels, ten wide at the lower two)."""
    return root / f"pkg{index // 100}" / f"mod{index // 10 % 10}" / f"sub{index % 10}"


def generate_tree(root: Path, files: int, *, gitignore: str = "build/\n*.log\n") -> list[Path]:
    """`files` one-line files, twenty per directory, and a `.gitignore`; returns the
    package directories in creation order (the last ones are deepest in any walk)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text(gitignore)
    dirs: list[Path] = []
    made = 0
    while made < files:
        d = package_dir(root, len(dirs))
        d.mkdir(parents=True, exist_ok=True)
        dirs.append(d)
        for i in range(min(FILES_PER_DIR, files - made)):
            fd = os.open(d / f"file{i}.py", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.write(fd, b"x = 1\n")
            os.close(fd)
            made += 1
    return dirs
