"""The inspector's static files, read as text (no browser): nothing fetched from outside, no HTML parsing
of data, and every file the page or a module names exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import helikon_fc.serve

STATIC = Path(helikon_fc.serve.__file__).parent / "static"
SCRIPTS = sorted(STATIC.glob("*.js"))
SVG_NAMESPACE = "http://www.w3.org/2000/svg"


def test_the_page_and_its_modules_are_in_the_package() -> None:
    """index.html, style.css and app.js ship inside helikon_fc.serve (no build step)."""
    assert {"index.html", "style.css", "app.js"} <= {path.name for path in STATIC.iterdir()}


@pytest.mark.parametrize("path", sorted(STATIC.iterdir()), ids=lambda path: path.name)
def test_nothing_is_fetched_from_outside(path: Path) -> None:
    """No file names a URL on another host (the SVG namespace is a name, not a fetch)."""
    text = path.read_text(encoding="utf-8").replace(SVG_NAMESPACE, "")
    assert re.findall(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, flags=re.IGNORECASE) == []


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: path.name)
def test_no_script_turns_text_into_markup_or_code(path: Path) -> None:
    """Run data is untrusted: no innerHTML and friends, no eval."""
    text = path.read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in text, f"{path.name} uses {sink}"


def test_every_file_the_page_and_its_modules_name_exists() -> None:
    """The page's links and every module's imports point at files that are there."""
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    named = set(re.findall(r'(?:src|href)="/static/([^"]+)"', page))
    for script in SCRIPTS:
        named |= set(re.findall(r'from "\./([^"]+)"', script.read_text(encoding="utf-8")))
    assert named and all((STATIC / name).is_file() for name in named), sorted(named)


def test_the_page_forbids_scripts_and_connections_to_other_origins() -> None:
    """A Content-Security-Policy limits scripts, styles and connections to the page's own origin."""
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    policy = re.search(r'http-equiv="Content-Security-Policy"\s+content="([^"]+)"', page)
    assert policy is not None
    assert {"default-src 'none'", "script-src 'self'", "connect-src 'self'"} <= {
        part.strip() for part in policy.group(1).split(";")
    }
