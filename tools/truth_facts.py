"""Write (or check) the parsed trees and judge's facts of every shipped catalog's truths: src/srbf/judge/data/truth_facts/.

    python tools/truth_facts.py [--check] [--catalog NAME ...] [--data DIR]

For each entry of each shipped catalog, its formula parsed (``srbf.catalogs.admission.parse_entry``)
and the facts ``srbf.judge.formula_facts.describe`` gives it (read over its declared variables,
with the ones its ranges keep non-negative as ``positive``, as the scoring pass reads it), written
by ``srbf.judge.truth_facts.write_file``.
Rerun it whenever the judge's canonical form, masking or lengths change (the judge's tests fail
until then) and whenever a shipped catalog changes. ``--check`` writes nothing and exits 1 when a
file is missing or differs from what would be written. Entries whose canonical form the time limit
cuts short, or whose trees are too deep, are left out: the pass describes them itself.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from srbf.catalogs.admission import parse_entry  # noqa: E402
from srbf.catalogs.loader import list_catalogs, load_catalog  # noqa: E402
from srbf.judge.data import positive_variables  # noqa: E402
from srbf.judge.formula_facts import describe  # noqa: E402
from srbf.judge.scoring import DEFAULT_CANONICAL_TIME_LIMIT  # noqa: E402
from srbf.judge.truth_facts import DATA_DIR, SUFFIX, encode_facts, entry_key, write_file  # noqa: E402


def catalog_facts(name: str) -> tuple[int, dict[str, dict]]:
    """The catalog's version and its entries' encoded facts, by ``entry_key``."""
    catalog = load_catalog(name)
    out: dict[str, dict] = {}
    for entry in catalog.entries:
        if entry.id in catalog.placeholders:
            continue
        positive = frozenset(positive_variables(entry.variables))
        truth = parse_entry(entry)
        facts = describe(truth, len(entry.variable_names), DEFAULT_CANONICAL_TIME_LIMIT, positive)
        encoded = encode_facts(facts, truth)
        if encoded is not None:
            out[entry_key(entry.formula, entry.variable_names, positive)] = encoded
    return catalog.version, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file differs")
    parser.add_argument("--catalog", action="append", help="only this shipped catalog (repeatable)")
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="the folder of the facts files (default: the package's)")
    args = parser.parse_args(argv)
    names = args.catalog or list_catalogs()
    unknown = sorted(set(names) - set(list_catalogs()))
    if unknown:
        parser.error(f"--catalog {', '.join(unknown)}: not a shipped catalog (shipped: {', '.join(list_catalogs())})")
    args.data.mkdir(parents=True, exist_ok=True)
    stale = []
    for name in names:
        version, entries = catalog_facts(name)
        path = args.data / f"{name}{SUFFIX}"
        if args.check:
            with tempfile.TemporaryDirectory() as folder:
                fresh = Path(folder) / path.name
                write_file(fresh, name, version, entries)
                if not path.is_file() or path.read_bytes() != fresh.read_bytes():
                    stale.append(name)
            continue
        write_file(path, name, version, entries)
        print(f"{path}: {len(entries)} truths")
    if stale:
        print(f"stale or missing truth facts: {', '.join(stale)}; run python tools/truth_facts.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
