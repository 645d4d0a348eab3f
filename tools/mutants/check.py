"""Does a new test kill a survivor? ``python -m tools.mutants.check FILE:LINE [TEXT] -- TESTS...``.

Runs every mutant of line LINE of FILE (whose change contains TEXT, when given) against TESTS only,
each in a forked child with a fresh import of the package serving the mutant, and prints
``killed`` or ``survived`` per mutant: the quick way to check that a test written for a survivor
fails against it, without a whole run. Exit status 1 when a mutant survives.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import pytest  # noqa: E402
from tools.mutants.child import PYTEST_FLAGS, MutantFinder, register_profile  # noqa: E402
from tools.mutants.layer import module_name  # noqa: E402
from tools.mutants.operators import Mutant, mutants, mutated_code  # noqa: E402
from tools.mutants.server import _Profile, _quiet, _status, _timed_out, in_child  # noqa: E402

CPU_LIMIT = 60.0
"""CPU seconds a mutant's run may use: past them it loops, and counts as killed (``timeout``)."""


def _run(mutant: Mutant | None, tests: list[str], log: str) -> str:
    """Run `tests` in a child with `mutant` swapped in (`None`: the code as it is); "survived" when they pass."""
    finder = None
    if mutant is not None:
        path = ROOT / mutant.path
        code = mutated_code(mutant, path.read_text(), str(path))
        finder = MutantFinder(module_name(mutant.path), str(path), code)

    def work() -> int:
        _quiet(log)
        signal.signal(signal.SIGPROF, _timed_out)
        signal.setitimer(signal.ITIMER_PROF, CPU_LIMIT)
        if finder is not None:
            sys.meta_path.insert(0, finder)
        return int(pytest.main([*tests, "-x", *PYTEST_FLAGS], plugins=[_Profile()]))

    return _status(in_child(work, timeout=600), fresh=True)


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") not in (1, 2):
        raise SystemExit(__doc__.splitlines()[0])
    split = argv.index("--")
    where, text, tests = argv[0], argv[1] if split == 2 else "", argv[split + 1 :]
    name, _, line = where.rpartition(":")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")])
    os.chdir(ROOT)
    register_profile(int(os.environ.get("MUTANTS_EXAMPLES", "20")))
    chosen = [m for m in mutants(name, (ROOT / name).read_text()) if m.line == int(line) and text in m.description]
    if not chosen:
        raise SystemExit(f"no mutant on {where} whose change contains {text!r}")
    (ROOT / ".mutants").mkdir(exist_ok=True)
    log = str(ROOT / ".mutants" / "check.log")
    baseline = _run(None, tests, log)
    if baseline != "survived":  # a test that fails (or cannot run) without a mutant kills every mutant: no verdict
        raise SystemExit(f"the tests do not pass on the unmutated code ({baseline}); see {log}")
    survived = 0
    for mutant in chosen:
        status = _run(mutant, tests, log)
        survived += status == "survived"
        print(f"{status:<9} {mutant.path}:{mutant.line}: {mutant.description}")
    return 1 if survived else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
