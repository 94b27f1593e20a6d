"""How fast is `srbf arena score`'s evaluation? The score benchmark's Feynman predictions, with trajectories.

100 Feynman formulas x 4 predictions each (the truth, the truth + 1e-8, 1.01 * the truth, the next
formula with its variables renamed: see benchmarks/judge.py), 512 support + 512 validation points,
written into a temporary results store as four methods' fits; every fit carries a trajectory of
the four texts reported at 1, 2, 3 and 4 s of a 10 s time limit, read on the default grid of 180
checkpoints. ``collect`` then evaluates the store with the judge's caches cold: reading it,
regenerating and verifying every draw, the judge on every final formula, the ID NMSE of every
checkpoint's incumbent (each distinct text evaluated once per problem), the symbolic judgments.
``profile`` adds the 1,000-replicate task bootstrap of every axis.

Run: python benchmarks/arena.py [--formulas 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge import build  # noqa: E402 - the judge benchmark's problems and predictions
from score import KINDS, clear_caches  # noqa: E402

from srbf.core import FitResult, TaskKey  # noqa: E402
from srbf.store import ResultsStore  # noqa: E402


def write_store(root: Path, problems) -> int:
    """The predictions as four methods' fits, each with a four-step trajectory; return how many."""
    config = {"run": {"catalogs": ["feynman"], "seed": 0, "sampling": {"n_support": [512], "n_validation": 512,
                                                                        "draws": 1, "noise": [0.0], "ood": False}}}  # fmt: skip
    n = 0
    with ResultsStore(root) as store:
        for kind_index, kind in enumerate(KINDS):
            variant = {"label": kind, "time_limit": 10.0}
            campaign = store.start_campaign("arena-benchmark", {**config, "variant": variant}, kind, "harness_tuned",
                                            git=None)  # fmt: skip
            for problem_id, _, problem, predictions in problems:
                key = TaskKey(kind, kind, "feynman", problem.catalog_version, problem_id, 0, 1.0,
                              "n_support=512;noise=0", 0)  # fmt: skip
                steps = [(float(1 + i), predictions[(kind_index + i) % len(KINDS)]) for i in range(len(KINDS))]
                result = FitResult("ok", predictions[kind_index], wall_seconds=5.0, trajectory=steps)
                store.record(key, result, campaign_id=campaign, data_hash=problem.data_hash)
                n += 1
    return n


def main() -> None:
    from srbf.arena import collect, profile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--formulas", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    problems = build(args.formulas)
    with tempfile.TemporaryDirectory(prefix="srbf-arena-bench-") as folder:
        root = Path(folder) / "results"
        n = write_store(root, problems)
        print(f"{len(problems)} Feynman problems, {n} predictions with 4-step trajectories, 180 checkpoints each")
        print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores\n")
        collect(root)  # imports (pandas, the judge, the catalogs) are paid once, not timed
        collect_rates, profile_seconds = [], []
        for _ in range(args.repeats):
            clear_caches()
            start, cpu = time.perf_counter(), time.process_time()
            data = collect(root)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            start = time.perf_counter()
            profile(data)
            profile_seconds.append(time.perf_counter() - start)
            collect_rates.append(len(data.runs) / seconds)
            print(f"  collect: {len(data.runs)} runs in {seconds:.2f} s = {len(data.runs) / seconds:.0f}/s "
                  f"({cpu / len(data.runs) * 1e3:.1f} CPU ms per run); "
                  f"profile (1,000 replicates): {profile_seconds[-1]:.2f} s")
        print(f"median {statistics.median(collect_rates):.0f} runs/s evaluated, "
              f"profile {statistics.median(profile_seconds):.2f} s, over {args.repeats} passes")
        print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
