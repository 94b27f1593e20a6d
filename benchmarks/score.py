"""How fast is the scoring pass? The judge benchmark's 400 Feynman predictions, from a results store.

100 Feynman formulas x 4 predictions each (the truth, the truth + 1e-8, 1.01 * the truth, the next
formula with its variables renamed: see benchmarks/judge.py), 512 support + 512 validation points,
written into a temporary results store as four methods' fits. Then ``score_store`` scores them
with 2 worker processes (and with 1, for reference), each pass on a fresh copy of the store with
the judge's caches cold. The time is the whole pass: reading the store, regenerating and
verifying every draw, starting the processes, the judge, and committing the metrics.

Target on a 2-core machine: >= 800 predictions scored per second with 2 workers.

Run: python benchmarks/score.py [--formulas 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge import build  # noqa: E402 - the judge benchmark's problems and predictions

from srbf.core import FitResult, TaskKey  # noqa: E402
from srbf.store import ResultsStore  # noqa: E402

KINDS = ("truth", "truth_plus_1e-8", "scaled_1.01", "next_formula")


def write_store(root: Path, problems) -> int:
    """The predictions as four methods' fits of one campaign each; return how many were written."""
    config = {"run": {"catalogs": ["feynman"], "seed": 0, "sampling": {"n_support": [512], "n_validation": 512,
                                                                        "draws": 1, "noise": [0.0], "ood": False}}}  # fmt: skip
    n = 0
    with ResultsStore(root) as store:
        for kind_index, kind in enumerate(KINDS):
            campaign = store.start_campaign("score-benchmark", {**config, "variant": {"label": kind}}, kind,
                                            "harness_tuned", git=None)  # fmt: skip
            for problem_id, _, problem, predictions in problems:
                key = TaskKey(kind, kind, "feynman", problem.catalog_version, problem_id, 0, 1.0,
                              "n_support=512;noise=0", 0)  # fmt: skip
                result = FitResult("ok", predictions[kind_index], wall_seconds=0.01, cpu_seconds=0.01)
                store.record(key, result, campaign_id=campaign, data_hash=problem.data_hash)
                n += 1
    return n


def clear_caches() -> None:
    from srbf.catalogs.loader import clear_cache as clear_catalogs
    from srbf.expr.canonical import clear_cache as clear_canonical
    from srbf.judge import problem_scoring
    from srbf.judge.formula_facts import clear_cache as clear_judge

    clear_canonical()
    clear_judge()
    clear_catalogs()
    problem_scoring.clear_cache()


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the scoring processes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def time_pass(template: Path, workdir: Path, workers: int) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (all processes) and predictions scored of one pass on a fresh copy."""
    from srbf.judge.scoring_pass import score_store

    target = workdir / f"pass-{workers}-{time.monotonic_ns()}"
    shutil.copytree(template, target)
    clear_caches()
    cpu, start = cpu_seconds(), time.perf_counter()
    summary = score_store(target, workers=workers, progress=False)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    if summary.failed:
        raise SystemExit(f"the pass could not score everything:\n{summary.text()}")
    return seconds, cpu, summary.scored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--formulas", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    problems = build(args.formulas)
    with tempfile.TemporaryDirectory(prefix="srbf-score-bench-") as folder:
        workdir = Path(folder)
        template = workdir / "template"
        n = write_store(template, problems)
        print(f"{len(problems)} Feynman problems, {n} predictions, 512 + 512 points, in {template}")
        print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores\n")
        time_pass(template, workdir, 1)  # imports (pandas, the judge) are paid once per process, not timed
        for workers in (1, 2):
            rates, cpu_ms = [], []
            for _ in range(args.repeats):
                seconds, cpu, scored = time_pass(template, workdir, workers)
                rates.append(scored / seconds)
                cpu_ms.append(cpu / scored * 1e3)
                print(f"  workers={workers}: {scored} scored in {seconds:.3f} s = {scored / seconds:5.0f}/s "
                      f"({cpu:.2f} CPU s in all processes, {cpu / scored * 1e3:.2f} ms per prediction)")
            print(f"workers={workers}: median {statistics.median(rates):.0f} predictions/s over {args.repeats} passes; "
                  f"median {statistics.median(cpu_ms):.2f} CPU ms per prediction\n")
        print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())} (the target assumes idle cores)")


if __name__ == "__main__":
    main()
