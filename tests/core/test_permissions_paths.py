"""Path globs for the read/edit rules, per the original's rules (original-notes section 6, "Path globs")."""

from __future__ import annotations

import pytest

from helikon_fc.core.permissions import glob_matches, normalize_path

GLOBS: tuple[tuple[str, str, bool], ...] = (
    # Rule: "pattern without / matches at any depth".
    ("*.py", "main.py", True),
    ("*.py", "src/app/main.py", True),
    ("*.py", "src/app/main.pyc", False),
    (".env", "deploy/prod/.env", True),
    ("secrets", "a/secrets", True),
    ("secrets", "a/secrets/b", False),
    # Rule: "with / is root-anchored".
    ("src/*.py", "src/main.py", True),
    ("src/*.py", "lib/src/main.py", False),
    ("/etc/*", "/etc/hosts", True),
    ("/etc/*", "etc/hosts", True),
    ("./docs/*.md", "docs/a.md", True),
    # Rule: "`*` does not cross /"; `**` does.
    ("src/*.py", "src/app/main.py", False),
    ("src/**", "src/app/main.py", True),
    ("src/**", "src", True),
    ("src/**/*.py", "src/main.py", True),
    ("src/**/*.py", "src/a/b/c.py", True),
    ("**/.env", ".env", True),
    ("**/.env", "a/b/.env", True),
    ("src/?.py", "src/a.py", True),
    ("src/?.py", "src/ab.py", False),
    ("src/[ab].py", "src/b.py", True),
    ("src/[!ab].py", "src/c.py", True),
    ("src/[!ab].py", "src/a.py", False),
    # Rule: "backslashes -> /, strip ./ and leading /, collapse . and ..".
    ("src/*.py", "src\\main.py", True),
    ("src/*.py", "./src/main.py", True),
    ("src/*.py", "/src/main.py", True),
    ("src/*.py", "src/./main.py", True),
    ("src/*.py", "src/app/../main.py", True),
    ("src/*.py", "lib/../src/main.py", True),
    ("src/*.py", "../src/main.py", True),
    ("src\\*.py", "src/main.py", True),
    # Rule: "case-insensitive".
    ("*.MD", "readme.md", True),
    ("Src/*.py", "SRC/Main.PY", True),
    # Rule: "empty pattern matches nothing".
    ("", "", False),
    ("", "anything", False),
    ("/", "anything", False),
    # Literal characters are not regular expressions.
    ("a+b.txt", "a+b.txt", True),
    ("a+b.txt", "aab.txt", False),
    ("(x)", "(x)", True),
    ("[unclosed", "[unclosed", True),
)


@pytest.mark.parametrize(("pattern", "path", "expected"), GLOBS)
def test_glob_matches(pattern: str, path: str, expected: bool) -> None:
    """`glob_matches(pattern, path)` by the table."""
    assert glob_matches(pattern, path) is expected


@pytest.mark.parametrize(
    ("path", "normal"),
    [
        ("./src\\app/../lib/x.py", "src/lib/x.py"),
        ("/etc//hosts", "etc/hosts"),
        ("a/./b/.", "a/b"),
        ("../../x", "x"),
        ("", ""),
        ("/", ""),
    ],
)
def test_normalize_path(path: str, normal: str) -> None:
    """Normalisation: `/` separators, no leading `/` or `./`, `.` and `..` collapsed, never above the start."""
    assert normalize_path(path) == normal
