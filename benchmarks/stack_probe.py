"""What recording a method's stack costs at the start of a run: one probe of its interpreter.

Prints, for an interpreter (default: srbf's own; or a method environment's, e.g.
~/.local/share/srbf/envs/gplearn/bin/python), the median wall time of starting Python alone, of
the probe srbf runs (``stack_probe.py``: the installers' records along ``sys.path``), and of the
same question asked through ``importlib.metadata``, whose import is what the probe avoids.
Run: python benchmarks/stack_probe.py [PYTHON] [repeats]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from srbf.methods.stack import PROBE

NAMES = ("numpy", "scipy", "gplearn")
CASES = {
    "python alone": ["-c", "pass"],
    "srbf's probe": [str(PROBE), *NAMES],
    "importlib.metadata": ["-c", "from importlib import metadata as m\nfor n in %r:\n    try: m.version(n)\n"
                           "    except m.PackageNotFoundError: pass" % (NAMES,)],
}


def median_seconds(args: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(python: str = sys.executable, repeats: int = 7) -> None:
    print(f"{python}: median of {repeats}")
    for label, args in CASES.items():
        print(f"  {label:<20} {median_seconds([python, *args], repeats) * 1000:7.0f} ms")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else sys.executable, int(sys.argv[2]) if len(sys.argv) > 2 else 7)
