"""srbf's overhead on a real method: gplearn on 20 Feynman problems, directly and through ``srbf run``.

    python benchmarks/harness_gplearn.py [--rounds 3] [--problems 20] [--budget 4] [--baseline PATH/TO/srbf]

Each round runs, one after the other:

- (b) ``srbf run -c CONFIG --quiet`` with one worker (gplearn at ``--budget`` generations on the
  first ``--problems`` Feynman problems, one draw each) into a new results store, timed from the
  command's start to its exit and to its first stored fit (``first_fit.timed_run``);
- (a) the direct loop: a subprocess in gplearn's own interpreter (the method's environment) that
  imports gplearn and fits ``SymbolicRegressor`` on each problem in a plain loop, timed from the
  subprocess's start to its exit. Its inputs are exactly (b)'s: the support points are re-drawn
  from each stored row's key (checked against the row's data hash), the seed is the method seed
  srbf gave that fit (re-derived from the key under the store's secret, as ``srbf merge
  --verify`` does), and the parameters are the adapter's: ``function_set`` from the adapter's own
  ``function_set``, ``random_state`` = the seed, ``generations`` = the budget, the rest at
  gplearn's defaults (one ``fit`` call, where the adapter steps through the generations with
  ``warm_start`` to report each one: that stepping is part of what srbf costs).

Printed per round and as medians: both wall times and their ratio (srbf over direct; the target
is at most 1.05), the CPU seconds of both process trees and their ratio, each fit's stored wall
time over the same fit's time in the loop (srbf's cost inside a fit, against its start-up and
tail), whether every formula is identical (srbf's stored expression against the direct program
converted by the adapter's own ``to_infix``), the time to the first stored fit and from the last
stored fit to exit. The direct loop runs with the environment changes srbf's worker gets (one
thread per numerical library) and, as the worker, in a session of its own (Linux's autogroup
scheduling divides the CPU between sessions first: in this script's session the loop would get
only part of that session's share, beside whatever else runs there). The rounds alternate (b, a, b, a, ...) so both see the same machine
load; on a loaded machine compare the CPU ratio and the per-fit ratio. ``--baseline SRBF`` runs that
``srbf`` command (another checkout's) in the same rounds too, in alternating order, each run with
its own direct loop, so that two versions' figures are compared under the same load. Figures
printed, not asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import numpy as np

from first_fit import timed_run


def children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process so far, their children included."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

# the direct loop, run by gplearn's interpreter: nothing of srbf is imported
DIRECT = r"""
import json, sys, time, warnings
import numpy as np
from gplearn.genetic import SymbolicRegressor

data, spec = np.load(sys.argv[1]), json.load(open(sys.argv[2]))
programs, seconds = [], []
started = time.perf_counter()
for i, fit in enumerate(spec["fits"]):
    begun = time.perf_counter()
    model = SymbolicRegressor(function_set=tuple(spec["function_set"]), generations=fit["generations"],
                              random_state=fit["seed"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model.fit(data[f"X{i}"], data[f"y{i}"])
    programs.append(model._program)
    seconds.append(time.perf_counter() - begun)
loop = time.perf_counter() - started
tokens = [[n.name if hasattr(n, "arity") else (int(n) if isinstance(n, (int, np.integer)) else float(n))
           for n in p.program] for p in programs]
json.dump({"loop_seconds": loop, "seconds": seconds, "tokens": tokens, "printed": [str(p) for p in programs]}, open(sys.argv[3], "w"))
"""


def adapter():
    """srbf's gplearn adapter module (its pure conversion and option functions)."""
    import importlib.util

    from srbf.methods import roster

    spec = importlib.util.spec_from_file_location("srbf_gplearn_adapter", roster.get("gplearn").adapter_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_config(folder: Path, problems: int, budget: int) -> Path:
    import yaml

    document = {
        "experiment": "harness-gplearn",
        "catalogs": ["feynman"],
        "limit": problems,
        "seed": 0,
        "sampling": {"draws": 1},
        "methods": [{"name": "gplearn", "budgets": [budget]}],
        "workers": 1,
    }
    path = folder / "harness_gplearn.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def stored_fits(results: Path) -> list[dict]:
    """Each stored fit of the store at ``results``, in store order: its expression, re-drawn support
    points, variables, budget and the method seed srbf gave it (all re-derived from the row)."""
    from srbf.methods.isolation import method_seed
    from srbf.runs.replay import Rows
    from srbf.store import ResultsStore, row_key

    with ResultsStore.open_readonly(results) as store:
        secret = store.stored_secret()
        rows = Rows(store.campaign_rows(), secret)
        predictions = store.prediction_rows()
    fits = []
    for row in predictions:
        campaign = rows.campaigns[int(row.campaign_id)]
        problem = rows.draw(campaign, row, rows.entry(campaign, row))
        if problem.data_hash != row.data_hash:
            raise SystemExit(f"{row.problem_id}: re-drawn points do not match the stored data hash")
        fits.append({"problem": row.problem_id, "status": row.status, "expression": row.expression,
                     "X": problem.X_support, "y": problem.y_support, "variables": list(problem.variables),
                     "generations": int(row.budget), "seed": method_seed(secret or b"", row_key(row)),
                     "wall": float(row.wall_seconds), "stored_at": datetime.fromisoformat(row.created_at).timestamp()})  # fmt: skip
    return fits


def direct_run(python: str, env: dict, fits: list[dict], function_set, folder: Path) -> tuple[float, dict]:
    """(wall seconds of the direct loop's subprocess, its output) for ``fits``; ``env``: the
    environment changes srbf's worker gets (one thread per numerical library)."""
    script, data, spec, out = (folder / name for name in ("direct.py", "direct.npz", "direct.json", "out.json"))
    script.write_text(DIRECT)
    np.savez(data, **{f"X{i}": f["X"] for i, f in enumerate(fits)}, **{f"y{i}": f["y"] for i, f in enumerate(fits)})
    spec.write_text(json.dumps({"function_set": list(function_set),
                                "fits": [{"generations": f["generations"], "seed": f["seed"]} for f in fits]}))
    started = time.perf_counter()
    environment = {**os.environ, **{name: value for name, value in env.items() if value is not None}}
    # its own session, as srbf's worker has (autogroup scheduling divides the CPU between sessions first)
    subprocess.run([python, str(script), str(data), str(spec), str(out)], check=True, env=environment,
                   start_new_session=True)  # fmt: skip
    wall = time.perf_counter() - started
    return wall, json.loads(out.read_text())


def gplearn_worker(config_path: Path) -> tuple[str, dict, dict]:
    """The interpreter, environment changes and options srbf's worker of the config's gplearn
    variant runs with."""
    from srbf.methods.envs import resolve_python
    from srbf.runs.config import load_config
    from srbf.runs.executor import worker_env
    from srbf.runs.plan import worker_spec

    (variant,) = load_config(config_path).variants()
    spec = worker_spec(variant)
    return resolve_python(spec.python), worker_env(spec), dict(spec.options)


def srbf_round(command: list[str], config_path: Path, results: Path, gp, python, env, function_set, folder: Path) -> dict:
    """One ``srbf run`` of the config with ``command`` into ``results``, then the direct loop on
    exactly its inputs: both timings, the per-fit ratio and which formulas are identical."""
    cpu, started = children_cpu(), time.time()
    first, wall = timed_run(command, config_path, results)
    srbf_cpu = children_cpu() - cpu
    fits = stored_fits(results)
    cpu = children_cpu()
    direct_wall, out = direct_run(python, env, fits, function_set, folder)
    direct_cpu = children_cpu() - cpu
    same = [f["status"] == "ok" and f["expression"] == gp.to_infix(tokens, f["variables"])
            for f, tokens in zip(fits, out["tokens"], strict=True)]  # fmt: skip
    for f, ok, printed in zip(fits, same, out["printed"]):
        if not ok:
            print(f"  {f['problem']}: srbf {f['status']} {f['expression']!r}; direct {printed}")
    return {"wall": wall, "cpu": srbf_cpu, "first": first, "fit_wall": sum(f["wall"] for f in fits),
            "tail": started + wall - max(f["stored_at"] for f in fits),
            "per_fit": statistics.median(f["wall"] / t for f, t in zip(fits, out["seconds"])),
            "direct_wall": direct_wall, "direct_cpu": direct_cpu, "loop": out["loop_seconds"],
            "same": sum(same), "fits": len(fits)}  # fmt: skip


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each a (b) and an (a) run (default 3)")
    parser.add_argument("--problems", type=int, default=20, help="Feynman problems (default 20)")
    parser.add_argument("--budget", type=int, default=4, help="gplearn generations per fit (default 4: about 1 s of CPU a fit)")
    parser.add_argument("--baseline", help="another srbf command (e.g. main's) to run in the same rounds, interleaved")
    args = parser.parse_args(argv)
    gp = adapter()
    commands = {"this": [sys.executable, "-m", "srbf"]}
    if args.baseline:
        commands["baseline"] = [args.baseline]
    rounds: dict[str, list[dict]] = {label: [] for label in commands}
    with tempfile.TemporaryDirectory(prefix="srbf-harness-gplearn-") as tmp:
        folder = Path(tmp)
        config_path = write_config(folder, args.problems, args.budget)
        python, env, options = gplearn_worker(config_path)
        function_set, _ = gp.function_set(options)
        for round_ in range(args.rounds):
            for label in list(commands) if round_ % 2 == 0 else list(reversed(commands)):
                r = srbf_round(commands[label], config_path, folder / f"results-{label}-{round_}", gp, python, env,
                               function_set, folder)  # fmt: skip
                rounds[label].append(r)
                print(f"round {round_ + 1} {label}: srbf run {r['wall']:.2f} s (CPU {r['cpu']:.2f} s, first stored fit "
                      f"{r['first']:.2f} s, exit {r['tail']:.2f} s after the last), direct {r['direct_wall']:.2f} s "
                      f"(CPU {r['direct_cpu']:.2f} s, loop {r['loop']:.2f} s), ratio {r['wall'] / r['direct_wall']:.3f}, "
                      f"fits' own wall {r['fit_wall']:.2f} s (median per fit {r['per_fit']:.3f} x direct's), "
                      f"{r['same']}/{r['fits']} formulas identical", flush=True)  # fmt: skip
    median = statistics.median
    print(f"\ngplearn, {args.problems} Feynman problems, {args.budget} generations, 1 worker, {args.rounds} rounds: medians")
    for label, runs in rounds.items():
        m = {key: median(r[key] for r in runs) for key in runs[0]}
        ratio = median(r["wall"] / r["direct_wall"] for r in runs)
        cpu_ratio = median(r["cpu"] / r["direct_cpu"] for r in runs)
        identical = all(r["same"] == r["fits"] == args.problems for r in runs)
        print(f"  {label}: srbf run {m['wall']:7.2f} s wall, {m['cpu']:7.2f} s CPU (first stored fit after "
              f"{m['first']:.2f} s, the fits' own wall {m['fit_wall']:.2f} s, exit {m['tail']:.2f} s after the last "
              f"stored fit)")  # fmt: skip
        print(f"  {label}: direct loop {m['direct_wall']:7.2f} s wall, {m['direct_cpu']:7.2f} s CPU (interpreter + "
              f"import + loop; the loop alone {m['loop']:.2f} s, {m['loop'] / args.problems:.2f} s per fit)")
        print(f"  {label}: ratio srbf / direct: wall {ratio:.3f} (target <= 1.05: {'met' if ratio <= 1.05 else 'missed'}), "
              f"CPU {cpu_ratio:.3f}, a fit's stored wall over the same fit's direct time {m['per_fit']:.3f}; "
              f"formulas identical in every round: {identical}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
