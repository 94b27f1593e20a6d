"""How long the 29 shipped catalogs take to load, step by step.

Prints the seconds to load every shipped set from disk (the median of ``--repeat`` cold loads,
the process's cache cleared before each): reading the files only (the parser, checking for keys
given twice), the loader without admission (parser plus structure checks; a shipped file whose
bytes match ``content_hashes.txt`` takes its recorded content hash), and ``load_catalog`` as every
command calls it (for a shipped set, admission reads the placeholders recorded when it was built).
Figures are printed, not asserted. With the shipped sets in YAML (read by a hand-written reader
over PyYAML's C parser) the three were 0.53 s, 0.86 s and 1.09 s on the development machine; as
JSON, 0.06 s, 0.37 s and 0.63 s; with the recorded hashes, 0.07 s, 0.17 s and 0.17 s
(2026-12-02, a loaded host).

    python benchmarks/catalog_load.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from srbf.catalogs.files import read_catalog_file
from srbf.catalogs.loader import catalog_path, clear_cache, list_catalogs, load_catalog


def _read_only(names: list[str]) -> None:
    for name in names:
        read_catalog_file(catalog_path(name))


def _structure_only(names: list[str]) -> None:
    for name in names:
        load_catalog(name, admit=False)


def _admitted(names: list[str]) -> None:
    for name in names:
        load_catalog(name)


def cold_seconds(step, names: list[str], repeat: int) -> float:
    """The median seconds of ``step`` over ``repeat`` runs, each with the cache cleared."""
    times = []
    for _ in range(repeat):
        clear_cache()
        start = time.perf_counter()
        step(names)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    names = list_catalogs()
    figures = {
        "read (parser only)": cold_seconds(_read_only, names, args.repeat),
        "load, no admission": cold_seconds(_structure_only, names, args.repeat),
        "load with admission": cold_seconds(_admitted, names, args.repeat),
    }
    formulas = sum(len(load_catalog(name)) for name in names)
    print(f"{len(names)} shipped catalogs, {formulas} formulas, files like {catalog_path(names[0]).name}; "
          f"median of {args.repeat} cold loads:")
    for what, seconds in figures.items():
        print(f"  {what:22s} {seconds:6.3f} s")
    print(json.dumps({k: round(v, 4) for k, v in figures.items()}))


if __name__ == "__main__":
    main()
