"""``python -m helikon_fc``: the ``helikon`` command line."""

import sys

from .cli import main

sys.exit(main())
