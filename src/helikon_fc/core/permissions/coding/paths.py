"""Paths as the permission rules see them: normalised, and matched against globs.

Rules (the original's): backslashes become ``/``; ``./`` and a leading ``/`` are stripped; ``.``
and ``..`` are collapsed (``..`` never climbs above the start); matching ignores case; ``*`` and
``?`` never cross a ``/`` while ``**`` does; a pattern without ``/`` matches the last component at
any depth, a pattern with ``/`` is anchored at the root; an empty pattern matches nothing.

Path rules are advisory: a tool can reach a file by other means (a symlink, a shell command).
"""

from __future__ import annotations

import re

__all__ = ["glob_matches", "normalize_path", "path_components"]


def path_components(path: str) -> tuple[str, ...]:
    """The components of `path` after normalisation: no empty parts, no ``.``, ``..`` collapsed."""
    parts: list[str] = []
    for part in path.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return tuple(parts)


def normalize_path(path: str) -> str:
    """`path` as the glob rules compare it: ``/``-separated, relative to the root, collapsed.

    >>> normalize_path("./src\\\\app/../lib/x.py")
    'src/lib/x.py'
    """
    return "/".join(path_components(path))


def glob_matches(pattern: str, path: str) -> bool:
    """Whether `path` fits the glob `pattern`, by the rules in this module's docstring.

    >>> glob_matches("*.env", "config/prod.ENV")
    True
    >>> glob_matches("src/*.py", "src/app/main.py")
    False
    >>> glob_matches("src/**/*.py", "src/app/main.py")
    True
    """
    if not pattern:
        return False
    anchored = "/" in pattern.replace("\\", "/").rstrip("/")
    normal_pattern = normalize_path(pattern)
    if not normal_pattern:
        return False
    target = normalize_path(path).lower()
    if not anchored:
        target = target.rpartition("/")[2]
    return _compile(normal_pattern.lower()).fullmatch(target) is not None


def _compile(pattern: str) -> re.Pattern[str]:
    """The regular expression of a normalised, lower-cased glob (`re` keeps its own cache of compiled patterns)."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("/**", index) and index + 3 == len(pattern):
            out.append("(?:/.*)?")
            break  # the pattern's end
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif char == "*":
            out.append("[^/]*")
            index += 1
        elif char == "?":
            out.append("[^/]")
            index += 1
        elif char == "[":
            index = _char_class(pattern, index, out)
        else:
            out.append(re.escape(char))
            index += 1
    return re.compile("".join(out), re.DOTALL)


def _char_class(pattern: str, start: int, out: list[str]) -> int:
    """Translate ``[abc]`` / ``[!abc]`` at `start`; an unclosed ``[`` is a literal.

    A ``]`` first among the members (``[]a]``, ``[!]a]``) is one of them, as in POSIX globs.
    """
    negate = pattern.startswith(("!", "^"), start + 1)
    first = start + 2 if negate else start + 1
    end = pattern.find("]", first + 1)
    if end == -1:
        out.append(re.escape("["))
        return start + 1
    body = pattern[first:end]
    escaped = "".join("\\" + c if c in "\\^]" else c for c in body)
    out.append(f"[^/{escaped}]" if negate else f"[{escaped}]")
    return end + 1
