"""examples/tracing.py prints its answer and the span tree, offline."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tracing.py"

TREE = """\
invoke_agent advisor  [input_tokens=40, output_tokens=20]
  chat advisor-model  [model=advisor-model, input_tokens=10, output_tokens=5]
  execute_tool get_spending  [id=call_0_0]
  execute_tool get_spending  [id=call_0_1]
  chat advisor-model  [model=advisor-model, input_tokens=10, output_tokens=5]
  execute_tool summarizer  [id=call_1_0]
    invoke_agent summarizer  [input_tokens=10, output_tokens=5]
      chat summarizer-model  [model=summarizer-model, input_tokens=10, output_tokens=5]
  chat advisor-model  [model=advisor-model, input_tokens=10, output_tokens=5]
"""


def run(**env: str) -> str:
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "HELIKON_"))}
    done = subprocess.run([sys.executable, str(EXAMPLE)], env={**clean, **env}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_example_prints_the_span_tree_without_content() -> None:
    out = run()
    assert out.startswith("Dining outspends groceries this month")
    assert out.endswith(TREE)
    assert "arguments=" not in out


def test_the_example_records_tool_content_when_asked() -> None:
    out = run(HELIKON_TRACE_CONTENT="1")
    assert '  execute_tool get_spending  [id=call_0_0, arguments={"category":"dining"}, result=412]' in out
