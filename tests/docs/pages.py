"""The Python blocks of the README and of every ``docs/*.md`` page, read with their markers, and run.

A block is a fenced ```` ```python ```` block. Comment lines at its top say how it runs (readers see them,
and docs/contributing.md documents them):

- ``# continued from the block above``: the block uses names an earlier block of the page defined, and
  runs only after them. Every other block must run alone, in a fresh namespace.
- ``# needs: WHAT``: the block needs a key (an environment variable, ``# needs: OPENAI_API_KEY``), a
  package (``# needs: package opentelemetry-sdk``, hidden as the module ``opentelemetry.sdk``: its name with
  dots for dashes) or a server (any other text). Without it, it must fail
  with a message the page shows in backquotes in its prose.

What a block prints is written after the ``print(...)`` that prints it: ``print(x)  # 42``, or, for a
long value, on ``#`` lines right under a ``print(...)`` line. Each such text must be printed, in order.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import linecache
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import trio
import trio.testing

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
CONTINUES = "# continued from the block above"
NEEDS = re.compile(r"^# needs: (.+)$")
PRINT_WITH_COMMENT = re.compile(r"^\s*print\(.*\)\s+# (.+)$")
BARE_PRINT = re.compile(r"^\s*print\(.*\)$")
COMMENT_LINE = re.compile(r"^\s*# (.+)$")
BACKQUOTED = re.compile(r"``(.+?)``|`([^`]+)`", re.DOTALL)  # a code span, in double or single backquotes


def pages() -> list[Path]:
    """The README and every page under docs/, new pages included."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@attrs.frozen
class Block:
    """One ```` ```python ```` block of a page, with what its markers say."""

    page: Path
    line: int  # the fence's line number, 1-based
    code: str
    continues: bool
    needs: tuple[str, ...]

    @property
    def name(self) -> str:
        """``page.md:LINE``, the block's name in test ids and tracebacks."""
        return f"{self.page.name}:{self.line}"

    def expected(self) -> list[str]:
        """What the block says it prints, in order (see the module docstring)."""
        lines = self.code.splitlines()
        texts: list[str] = []
        for number, line in enumerate(lines):
            if match := PRINT_WITH_COMMENT.match(line):
                texts.append(match.group(1).strip())
            elif BARE_PRINT.match(line):
                for follow in lines[number + 1 :]:
                    comment = COMMENT_LINE.match(follow)
                    if comment is None:
                        break
                    texts.append(comment.group(1).strip())
        return texts

    def documented_failures(self) -> list[str]:
        """The backquoted texts of the page's prose: one of them is the message the block fails with."""
        return [" ".join("".join(span).split()) for span in BACKQUOTED.findall(prose(self.page))]


def blocks(page: Path) -> list[Block]:
    """The page's Python blocks, in order."""
    text = page.read_text(encoding="utf-8")
    found: list[Block] = []
    for match in FENCE.finditer(text):
        code = match.group(1)
        top: list[str] = []
        for line in code.splitlines():
            if line != CONTINUES and not NEEDS.match(line):
                break
            top.append(line)
        needs = tuple(need.group(1).strip() for line in top if (need := NEEDS.match(line)))
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(page, line, code, CONTINUES in top, needs))
    return found


def prose(page: Path) -> str:
    """The page's text outside its fenced blocks."""
    return re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL | re.MULTILINE)


def run_block(block: Block, namespace: dict[str, Any]) -> str:
    """Run `block` in `namespace`, then every ``test_*`` function it defined; what it printed."""
    linecache.cache[block.name] = (len(block.code), None, block.code.splitlines(keepends=True), block.name)
    before = dict(namespace)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # dont_inherit: a block runs as a user's module would, without this file's __future__ imports.
        exec(compile(block.code, block.name, "exec", dont_inherit=True), namespace)
        for name, fn in list(namespace.items()):
            if name.startswith("test_") and callable(fn) and before.get(name) is not fn:
                _call_test(fn)
    return out.getvalue()


def _call_test(fn: Callable[..., Any]) -> None:
    """Call a ``test_*`` function a page defines, as pytest-trio would (async ones in virtual time)."""
    if not inspect.iscoroutinefunction(fn):
        fn()
        return
    clock = trio.testing.MockClock(autojump_threshold=0)
    kwargs = {"autojump_clock": clock} if "autojump_clock" in inspect.signature(fn).parameters else {}

    async def main() -> None:
        await fn(**kwargs)

    trio.run(main, clock=clock)


def check_printed(block: Block, printed: str) -> None:
    """Each text the block says it prints is in what it printed, in order."""
    position = 0
    for text in block.expected():
        found = printed.find(text, position)
        assert found >= 0, f"{block.name} says it prints {text!r} (after what came before); it printed:\n{printed}"
        position = found + len(text)


def fresh_namespace(block: Block) -> dict[str, Any]:
    """A namespace like a user's module's (``__name__`` is not ``"__main__"``, so ``if __name__ ...`` stays off)."""
    return {"__name__": f"docs_{block.page.stem.replace('-', '_')}"}


@contextlib.contextmanager
def without_package(name: str) -> Iterator[None]:
    """Imports of `name` (a distribution's top module, or a dotted submodule) fail as if it were not installed."""
    hidden = {key: module for key, module in sys.modules.items() if key == name or key.startswith(name + ".")}

    class Missing:
        @staticmethod
        def find_spec(fullname: str, *args: object) -> None:
            if fullname == name or fullname.startswith(name + "."):
                raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)

    for key in hidden:
        del sys.modules[key]
    finder = Missing()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for key in [key for key in sys.modules if key == name or key.startswith(name + ".")]:
            del sys.modules[key]
        sys.modules.update(hidden)


def failure_text(exc: BaseException) -> str:
    """``Type: message`` as a traceback's last line shows it."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
