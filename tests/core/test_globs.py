"""One glob module, two dialects: the table states every intended difference."""

from __future__ import annotations

import pytest

from skawld_core.globs import PATH_RULE, SEARCH, GlobDialect, compile_glob


def matches(pattern: str, path: str, dialect: GlobDialect) -> bool:
    return compile_glob(pattern, dialect).match(path) is not None


# (pattern, path, path-rule result, search result)
DIFFERENCES = [
    # a trailing `/**` covers the directory itself in path rules (a rule on secrets/** protects secrets)
    ("secrets/**", "secrets", True, False),
    ("a/b/**", "a/b", True, False),
    # `{x}` with one alternative: literal in picomatch, an alternation in ripgrep's globset
    ("{a}.txt", "a.txt", False, True),
    ("{a}.txt", "{a}.txt", True, False),
]

# (pattern, path, result) — the same in both dialects
SHARED = [
    ("*.py", "app.py", True),
    ("*.py", "src/app.py", False),
    ("**/*.py", "app.py", True),
    ("**/*.py", "src/deep/app.py", True),
    ("src/**/*.py", "src/app.py", True),
    ("src/**", "src/a/b", True),
    ("**", "any/thing/at/all", True),
    ("a**b", "axxb", True),
    ("a**b", "a/b", False),
    ("?.md", "a.md", True),
    ("?.md", "/.md", False),
    ("[ab].txt", "a.txt", True),
    ("[!ab].txt", "c.txt", True),
    ("[!ab].txt", "a.txt", False),
    ("a[/]b", "a/b", False),  # classes never match `/`
    ("[^/]x", "/x", False),
    ("{src,lib}/*.js", "lib/x.js", True),
    ("{src,lib}/*.js", "doc/x.js", False),
    ("{a,{b,c}}", "c", True),
    ("x{a,b", "x{a,b", True),  # unbalanced brace is literal
    ("[abc", "[abc", True),  # unterminated class is literal
    ("\\*.txt", "*.txt", True),
    ("\\*.txt", "a.txt", False),
    (".env", ".env", True),
    ("*", ".hidden", True),  # dot files match like any name
    ("*.py", "app.py\n", False),  # anchored with \Z, not $
    ("a.b", "axb", False),  # regex metacharacters are literal
]


@pytest.mark.parametrize(("pattern", "path", "path_rule", "search"), DIFFERENCES)
def test_intended_differences(pattern: str, path: str, path_rule: bool, search: bool) -> None:
    assert matches(pattern, path, PATH_RULE) is path_rule
    assert matches(pattern, path, SEARCH) is search


@pytest.mark.parametrize(("pattern", "path", "expected"), SHARED)
@pytest.mark.parametrize("dialect", [PATH_RULE, SEARCH], ids=lambda d: d.name)
def test_shared_syntax(pattern: str, path: str, expected: bool, dialect: GlobDialect) -> None:
    assert matches(pattern, path, dialect) is expected


def test_only_the_stated_fields_differ() -> None:
    assert PATH_RULE != SEARCH
    assert {f for f in vars(PATH_RULE) if getattr(PATH_RULE, f) != getattr(SEARCH, f)} == {
        "name",
        "trailing_globstar_matches_dir",
        "single_alternative_is_literal",
    }
