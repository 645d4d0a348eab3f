"""Glob shapes at their edges (original-notes section 6, "Path globs"; `helikon_fc.core.permissions.coding.paths`).

``*`` and ``?`` never cross ``/``, ``**`` does (``**/`` also matching no directory, a final ``/**`` also matching the
directory itself), ``[...]``/``[!...]``/``[^...]`` are one character other than ``/``, an unclosed ``[`` is literal;
a pattern without ``/`` (a trailing one does not count) matches the last component at any depth.
"""

from __future__ import annotations

import pytest

from helikon_fc.core.permissions import glob_matches, normalize_path
from helikon_fc.core.permissions.coding.paths import path_components

CASES: tuple[tuple[str, str, bool], ...] = (
    # A trailing slash does not anchor: "src/" is the component "src" at any depth.
    ("src/", "a/src", True),
    ("src/", "src", True),
    ("src/", "a/src/b", False),
    # A final "/**" is the directory and everything under it, and nothing beside it.
    ("a/**", "a", True),
    ("a/**", "a/b/c", True),
    ("a/**", "ab", False),
    ("a/**", "b/a", False),
    # "**/" matches zero or more directories; "**" alone crosses "/".
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("a/**/b", "ab", False),
    ("a/**/b", "a/xb", False),
    ("a/**x", "a/yx", True),
    ("a/**x", "a/y/zx", True),
    ("a/**x", "ax", False),
    ("a/**x", "a/yz", False),
    ("d/**.py", "d/xpy", False),
    ("**/x", "a/x", True),
    ("**/x", "ax", False),
    ("**", "a/b", True),
    ("d/**.py", "d/a/b.py", True),
    # "*" and "?" stay inside one component.
    ("a/*/c", "a/b/c", True),
    ("a/*/c", "a/b/b/c", False),
    ("a/*", "a/", False),
    ("a/?", "a/b", True),
    ("a/?", "a/bc", False),
    ("a/b?", "a/b", False),
    ("a/*x*", "a/yxz", True),
    ("a/*x*", "a/yz", False),
    ("*.py", "dir.py/x", False),
    # Character classes: one character, never "/".
    ("a/[bc]", "a/c", True),
    ("a/[bc]", "a/d", False),
    ("a/[bc]", "a/bc", False),
    ("a/[a-c]", "a/b", True),
    ("a/[!x]", "a/y", True),
    ("a/[!x]", "a/x", False),
    ("a/[!x]", "a/!", True),
    ("a/[^x]", "a/^", True),
    ("]/[ab]", "]/b", True),
    ("a/[^x]", "a/y", True),
    ("a/[^x]", "a/x", False),
    ("a/[]x]", "a/]", True),
    ("a/[]x]", "a/x", True),
    ("a/[]x]", "a/y", False),
    ("a/[!]x]", "a/y", True),  # a "]" first after "!" (or "^") is a member too
    ("a/[!]x]", "a/]", False),
    ("a/[!]x]", "a/x", False),
    ("a/[^]x]", "a/]", False),
    ("a/[!]]", "a/b", True),
    ("a/[!]", "a/[!]", True),  # no member before the closing bracket: not a class, a literal
    ("a/[x^]", "a/^", True),
    ("a/[x^]", "a/y", False),
    ("a/[!x]b", "a/yb", True),
    ("a/[x]b", "a/xb", True),
    ("a/[x]b", "a/x", False),
    ("a/[xb", "a/[xb", True),
    ("a/[xb", "a/x", False),
    ("[x", "d/[x", True),
    # Patterns that normalise to nothing match nothing.
    (".", "x", False),
    ("./", "x", False),
    ("a/..", "a", False),
    ("a/.", "a", True),
    # Dots are literal, ranges are case-free, a newline is an ordinary character.
    ("a.b", "axb", False),
    ("*", "a\nb", True),
    ("A/[B-C]", "a/b", True),
)


@pytest.mark.parametrize(("pattern", "path", "expected"), CASES)
def test_glob_shapes(pattern: str, path: str, expected: bool) -> None:
    assert glob_matches(pattern, path) is expected


def test_an_unanchored_pattern_compares_only_the_last_component() -> None:
    assert glob_matches("b", "a/b")
    assert not glob_matches("b", "b/a")
    assert not glob_matches("a*b", "a/x/b")


@pytest.mark.parametrize(
    ("path", "components"),
    [
        ("a/../../b", ("b",)),
        ("../a/b/..", ("a",)),
        ("a\\b\\..\\c", ("a", "c")),
        ("//a///b//", ("a", "b")),
        ("./.", ()),
        ("...", ("...",)),
        ("a/.../b", ("a", "...", "b")),
    ],
)
def test_path_components_collapse_dots_and_never_climb_above_the_start(path: str, components: tuple[str, ...]) -> None:
    assert path_components(path) == components
    assert normalize_path(path) == "/".join(components)
