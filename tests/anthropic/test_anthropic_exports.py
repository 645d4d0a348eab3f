"""`helikon_fc.anthropic` exports its names once, in a sorted `__all__`; nothing else imports the SDK."""

from __future__ import annotations

import subprocess
import sys
from typing import Literal, get_origin

import helikon_fc.anthropic as provider


def test_all_is_sorted_and_every_name_is_documented() -> None:
    """`__all__` is sorted, without duplicates; every name resolves, and each class has a docstring."""
    assert provider.__all__ == sorted(set(provider.__all__))
    for name in provider.__all__:
        value = getattr(provider, name)
        assert get_origin(value) is Literal or (value.__doc__ or "").strip(), name


def test_the_core_install_does_not_import_the_sdk() -> None:
    """Importing the package, its models, its CLI and the OpenAI provider leaves ``anthropic`` unimported."""
    code = (
        "import sys, helikon_fc, helikon_fc.models, helikon_fc.cli, helikon_fc.openai, helikon_fc.testing; "
        "print('anthropic' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
