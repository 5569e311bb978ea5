"""A search fixture tree exercising ignore rules, hidden files, binaries and symlinks."""

from __future__ import annotations

import os
from pathlib import Path

FILES: dict[str, bytes] = {
    ".gitignore": b"docs/\nbuild/\n/anchored/gen\n*.tmp\n**/generated/**\n# comment\n\\#hash.txt\nsp\\ ace.txt\n",
    ".ignore": b"ignored-by-dot-ignore.txt\n!keep.tmp\n",
    "keep.tmp": b"TODO kept by .ignore negation\n",
    "#hash.txt": b"TODO escaped hash\n",
    "sp ace.txt": b"TODO escaped space\n",
    "pkg/generated/deep/g.py": b"# TODO generated deep\n",
    "pkg/.gitignore": b"/local-only.txt\n[Bb]ak/\n",
    "pkg/local-only.txt": b"TODO local only\n",
    "pkg/sub/local-only.txt": b"TODO not anchored here\n",
    "pkg/Bak/x.txt": b"TODO bak\n",
    "pkg/bak/y.txt": b"TODO bak\n",
    "src/alpha.ts": b"export const a = 1; // TODO: alpha\nconst x = 'hello';\n",
    "src/beta.ts": b"// TODO beta one\nfunction beta() {}\n// todo lower\n// ToDo mixed\n",
    "src/gamma.js": b"const g = 3;\n// nothing to see\n",
    "src/component.tsx": b"export const C = () => null; // TODO tsx\n",
    "docs/notes.md": b"# Notes\nTODO: ignored by gitignore\n",
    "build/out.js": b"// TODO built output\n",
    "anchored/gen/gen.ts": b"// TODO generated\n",
    "anchored/keep.ts": b"// TODO anchored keep\n",
    "scratch.tmp": b"TODO temp\n",
    "ignored-by-dot-ignore.txt": b"TODO dot ignore\n",
    "binary.bin": b"TODO\0\x01\x02binary",
    ".hidden/secret.ts": b"// TODO hidden dir\n",
    ".env": b"TODO=hidden file\n",
    "nested/deep/x.py": b"def f():\n    return 1  # TODO python\n\n\nclass K:\n    pass  # TODO again\n",
    "nested/.gitignore": b"*.log\n!keep.log\n",
    "nested/a.log": b"TODO log a\n",
    "nested/keep.log": b"TODO log keep\n",
    "crlf.txt": b"first TODO\r\nsecond\r\nthird todo\r\n",
    "context.txt": b"".join(f"line {i}{' TODO' if i in (5, 6, 12, 30) else ''}\n".encode() for i in range(1, 41)),
    "many.txt": b"".join(f"match TODO {i}\n".encode() for i in range(300)),
    "we:ird name.txt": b"TODO: colon in the name\n",
    "\u00fcn\u00ef.py": b"# TODO unicode name\n",
    "multi.py": b"def start():\n    body()\n    end()\nstart_other\n",
    "readme.md": b"# Title\nNo markers here.\n",
}


def build_tree(root: Path) -> Path:
    """Write the tree under `root` (with distinct, increasing mtimes) and return it."""
    for i, (rel, data) in enumerate(sorted(FILES.items())):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        os.utime(p, ns=(1_700_000_000_000_000_000 + i * 1_000_000_000,) * 2)
    (root / "link.ts").symlink_to(root / "src" / "alpha.ts")
    (root / "linkdir").symlink_to(root / "src")
    return root
