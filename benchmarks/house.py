"""The figures docs/design.md gives for the house: modules, lines, the largest modules, per package.

Counts every ``.py`` file under src/srbf (package data and ``__pycache__`` aside), its lines as
``wc -l`` counts them, and lists the modules over ``--over`` lines, largest first, then each
package's module count and lines. Nothing is imported.

Run: python benchmarks/house.py [--over 400]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "srbf"


def module_lines(src: Path = SRC) -> dict[str, int]:
    """Path under src/srbf -> line count, for every Python module of the package."""
    return {str(path.relative_to(src)): len(path.read_bytes().splitlines())
            for path in sorted(src.rglob("*.py")) if "__pycache__" not in path.parts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--over", type=int, default=400, help="list the modules longer than this")
    args = parser.parse_args()
    lines = module_lines()
    total = sum(lines.values())
    print(f"{len(lines)} modules, {total:,} lines, {total / len(lines):.0f} lines a module on average")
    large = sorted(((n, path) for path, n in lines.items() if n > args.over), reverse=True)
    print(f"{len(large)} modules over {args.over} lines:")
    for n, path in large:
        print(f"  {n:5d}  {path}")
    modules, counted = Counter(), Counter()
    for path, n in lines.items():
        package = path.split("/")[0] if "/" in path else "(top level)"
        modules[package] += 1
        counted[package] += n
    print("per package (modules, lines):")
    for package in sorted(modules, key=lambda p: -counted[p]):
        print(f"  {package:12s} {modules[package]:4d} {counted[package]:7,d}")


if __name__ == "__main__":
    main()
