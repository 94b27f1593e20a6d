"""What choosing configurations costs a reading command: ``store.configurations()`` and
``select_configurations`` on a store of N fits spread over M configurations.

Every reading command (analyze, compare, site build, export, arena score, distill) and every run
(its note on a changed method) reads the store's configurations once: one GROUP BY over the
predictions in the key's index order. The store is synthetic (rows inserted with SQL, the campaigns
through ``ResultsStore``), so only the reading is timed. Prints the median and range of R rounds.

Run: python benchmarks/configurations.py [--fits 200000] [--configs 40] [--rounds 5]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time

from srbf.store import ResultsStore
from srbf.store.configurations import select_configurations

COLUMNS = ("campaign_id, method, config_hash, catalog, catalog_version, problem_id, draw, budget, condition, seed, "
           "repeat, provenance, status, expression, data_hash, internals, stderr_tail, created_at")  # fmt: skip


def make_store(folder: str, fits: int, configs: int) -> None:
    methods = max(1, configs // 2)  # two configurations a method: one set aside by "latest"
    with ResultsStore(folder) as store:
        campaigns = [store.start_campaign("bench", {"variant": {"label": f"m{i % methods}", "method": f"m{i % methods}"}},
                                          f"h{i}", "upstream_default", git=None) for i in range(configs)]  # fmt: skip
    rows = [(campaigns[i % configs], f"m{(i % configs) % methods}", f"h{i % configs}", "set", 1, f"p{i}", 0, 1.0,
             "n_support=512;noise=0", 0, 0, "upstream_default", "ok", "x", "d", "{}", "",
             "2026-12-05T10:00:00.000+00:00") for i in range(fits)]  # fmt: skip
    with sqlite3.connect(f"{folder}/srbf.sqlite") as conn:
        conn.executemany(f"INSERT INTO predictions ({COLUMNS}) VALUES ({', '.join('?' * 18)})", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fits", type=int, default=200_000)
    parser.add_argument("--configs", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        make_store(folder, args.fits, args.configs)
        seconds = []
        with ResultsStore.open_readonly(folder) as store:
            for _ in range(args.rounds):
                started = time.perf_counter()
                chosen = select_configurations(store.configurations())
                seconds.append(time.perf_counter() - started)
    print(f"{args.fits:,} fits in {args.configs} configurations ({len(chosen.set_aside)} set aside): "
          f"median {statistics.median(seconds):.3f} s, range {min(seconds):.3f}-{max(seconds):.3f} s "
          f"over {args.rounds} rounds")


if __name__ == "__main__":
    main()
