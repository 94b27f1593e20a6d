"""Whether two scored copies of one store hold the same metrics, row by row.

    python benchmarks/compare_metrics.py STORE_A STORE_B

Score two copies of the same store with two versions of srbf (say main and a branch that makes
scoring faster), then compare: every prediction's judge version and metrics JSON must be
byte-identical. Prints the rows compared and each difference (at most 20); exits 1 on any.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path


def metric_rows(store: Path) -> dict[int, tuple[str, str]]:
    """prediction id -> (judge version, metrics JSON as stored)."""
    conn = sqlite3.connect(f"file:{store / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        return {pid: (version, text) for pid, version, text in
                conn.execute("SELECT prediction_id, judge_version, metrics FROM metrics")}  # fmt: skip
    finally:
        conn.close()


def differences(a: dict[int, tuple[str, str]], b: dict[int, tuple[str, str]]) -> list[str]:
    out = [f"prediction {pid}: only in the first store" for pid in sorted(a.keys() - b.keys())]
    out += [f"prediction {pid}: only in the second store" for pid in sorted(b.keys() - a.keys())]
    for pid in sorted(a.keys() & b.keys()):
        if a[pid] != b[pid]:
            (va, ma), (vb, mb) = a[pid], b[pid]
            da, db = json.loads(ma), json.loads(mb)
            keys = sorted(k for k in da.keys() | db.keys() if da.get(k, "<absent>") != db.get(k, "<absent>"))
            what = ", ".join(f"{k}: {da.get(k, '<absent>')!r} vs {db.get(k, '<absent>')!r}" for k in keys)
            out.append(f"prediction {pid}: " + (f"judge {va} vs {vb}; " if va != vb else "") + (what or "key order"))
    return out


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    a, b = (metric_rows(Path(arg)) for arg in sys.argv[1:])
    found = differences(a, b)
    print(f"{len(a.keys() | b.keys())} metric rows compared, {len(found)} differ")
    for line in found[:20]:
        print("  " + line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
