"""How fast does ``srbf --help`` start, what does it import, and how light is ``import srbf``?

Runs ``python -m srbf --help`` in a fresh subprocess N times and prints the median, minimum and
maximum wall time, the same for a bare ``python -c pass`` (the interpreter's own share), and which
heavy modules (NumPy, pandas, SciPy, SymPy, pydantic, PyYAML, matplotlib, srbf.judge) the parser
pulls in, read from ``python -X importtime``. Target: median under 0.3 s, no heavy module. Then
the self time of srbf's own modules under ``import srbf`` (the API's names load on first use,
docs/python.md). Target: under 30 ms.

Run: python benchmarks/cli_startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

HEAVY = ("numpy", "pandas", "scipy", "sympy", "pydantic", "yaml", "matplotlib", "srbf.judge")


def timed(argv: list[str], runs: int) -> list[float]:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        seconds.append(time.perf_counter() - started)
    return seconds


def heavy_imports() -> tuple[list[str], int]:
    """The heavy top-level modules ``srbf --help`` imports, and how many modules it imports at all."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "srbf", "--help"], check=True,
                            capture_output=True, text=True)
    names = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")]
    names = [n for n in names if n != "package"]  # the header line
    heavy = sorted({h for n in names for h in HEAVY if n == h or n.startswith(h + ".")})
    return heavy, len(names)


def import_srbf_micros() -> tuple[int, list[str]]:
    """Microseconds of srbf's own modules (their self time) under ``python -X importtime -c "import srbf"``,
    and those modules."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", "import srbf"], check=True,
                            capture_output=True, text=True)
    rows = [line.split("|") for line in result.stderr.splitlines() if line.startswith("import time:")]
    own = [(int(own), name.strip()) for _, own, name in (r for r in rows if len(r) == 3)
           if name.strip().split(".")[0] == "srbf"]
    return sum(us for us, _ in own), [name for _, name in own]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    bare = timed([sys.executable, "-c", "pass"], args.runs)
    help_ = timed([sys.executable, "-m", "srbf", "--help"], args.runs)
    heavy, count = heavy_imports()
    print(f"python -c pass       median {statistics.median(bare):.3f} s  (min {min(bare):.3f}, max {max(bare):.3f}; "
          f"{args.runs} runs)")
    print(f"python -m srbf --help median {statistics.median(help_):.3f} s  (min {min(help_):.3f}, "
          f"max {max(help_):.3f}; target < 0.3 s)")
    print(f"modules imported by --help: {count}; heavy among them: {', '.join(heavy) if heavy else 'none'}")
    micros, own = import_srbf_micros()
    print(f"import srbf: {micros / 1000:.2f} ms in srbf's own modules ({', '.join(own)}; target < 30 ms)")


if __name__ == "__main__":
    main()
