"""How fast is the results explorer? 200,000 synthetic scored predictions through the real store API.

5 methods x 4 sets of 500 problems x 5 budgets x 4 draws = 200,000 predictions, each with the
headline metrics the judge writes (success, nrr_validation, srr_structure, srr_structure_pruned,
log10_fvu_validation, token_count_mismatch), recorded with ``ResultsStore.record_many`` and
``record_metrics_many`` as a run and a scoring pass would. Prints

1. the seconds ``srbf site build`` takes on it (reading the store, the analysis, writing the folder),
   wall clock and CPU (the machine's load average beside them: other work slows the wall clock);
2. the megabytes of its data files (data/*.js; plotly.min.js not counted);
3. the seconds until the first view (Curves) is drawn in headless Chromium, from file:// (its plot an
   SVG whose legend names every method: the page's sketch, or plotly's chart), and until plotly's
   chart has replaced the sketch; one line per run (``--runs``, default 3), each in a fresh browser.

Targets on a 2-core machine: build < 30 s, data < 10 MB, first view < 2 s.

Run: python benchmarks/site.py [--keep DIR] [--runs N]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from srbf.core import FitResult, TaskKey
from srbf.store import ResultsStore
from srbf.store.results import Fit

METHODS = {"alpha": (1.0, 0.02), "beta": (0.4, 0.1), "gamma": (0.0, 0.5), "delta": (-0.5, 2.0), "epsilon": (-1.0, 0.05)}
SETS = {"set-a": 500, "set-b": 500, "set-c": 500, "set-d": 500}
BUDGETS = (1.0, 2.0, 4.0, 8.0, 16.0)
DRAWS = 4
CONDITION = "n_support=512;noise=0"
CHUNK = 5000


def fill_store(root: Path, seed: int = 0) -> int:
    """Write the synthetic predictions and their metrics; return how many."""
    from srbf.judge import JUDGE_VERSION

    rng = np.random.default_rng(seed)
    difficulty = {(s, i): rng.normal(0, 1) + 0.3 * k for k, (s, n) in enumerate(SETS.items()) for i in range(n)}
    n = 0
    with ResultsStore(root) as store:
        for method, (skill, base) in METHODS.items():
            campaign = store.start_campaign("site-benchmark", {"variant": {"label": method}}, method,
                                            "author_blessed" if method == "alpha" else "upstream_default", git=None)
            fits, scores = [], []
            for (catalog, i), hard in difficulty.items():
                for budget in BUDGETS:
                    for draw in range(DRAWS):
                        latent = skill + 0.4 * math.log2(budget) - hard + rng.normal(0, 0.5)
                        ok = rng.random() < 0.93
                        seconds = base * budget * math.exp(rng.normal(0, 0.2))
                        a, b = rng.normal(0, 2, 2)
                        expression = f"x1*{a!r} + sin(x2*{b!r})" if ok else None
                        key = TaskKey(method, method, catalog, 1, f"p{i:03d}", draw, budget, CONDITION, 0)
                        result = FitResult("ok" if ok else "failed", expression, None if ok else "failed",
                                           wall_seconds=seconds, cpu_seconds=seconds)
                        fits.append(Fit(key, result, campaign, f"h{catalog}{i}{draw}"))
                        scores.append({
                            "success": float(ok), "nrr_validation": float(ok and latent > 0.8),
                            "srr_structure": float(ok and latent > 1.2), "srr_structure_pruned": float(ok and latent > 1.0),
                            "log10_fvu_validation": (-3 - 2 * latent + rng.normal(0, 0.3)) if ok else None,
                            "token_count_mismatch": abs(rng.normal(0.4 - 0.1 * skill, 0.3)) if ok else None,
                        })
                        if len(fits) == CHUNK:
                            n += _flush(store, fits, scores, JUDGE_VERSION)
            n += _flush(store, fits, scores, JUDGE_VERSION)
    return n


def _flush(store, fits, scores, judge_version) -> int:
    ids = store.record_many(fits)
    store.record_metrics_many(list(zip(ids, scores)), judge_version)
    count = len(fits)
    fits.clear()
    scores.clear()
    return count


# The first view is drawn when the Curves view is in place and its plot is an SVG whose legend names
# every method, whether plotly's chart or the sketch the page draws until plotly.js has loaded.
FIRST_VIEW = """() => {
  const plot = document.querySelector('main[data-ready="curves"] .plot[data-drawn]');
  if (!plot || !plot.querySelector("svg")) return false;
  const names = [...plot.querySelectorAll(".sketch-legend li, .legendtext")].map((e) => e.textContent);
  return SRBF.data["c0-s0"].methods.every((m) => names.some((n) => n.startsWith(m + " (")));
}"""


def first_view_seconds(site: Path) -> tuple[float, float]:
    """Seconds from opening index.html until the first view is drawn, and until its plot is plotly's
    (hover and zoom work), in a fresh headless Chromium."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        started = time.perf_counter()
        page.goto((site / "index.html").as_uri())
        page.wait_for_function(FIRST_VIEW, timeout=60000)
        drawn = time.perf_counter() - started
        page.wait_for_selector('main[data-ready="curves"] .plot[data-drawn="plotly"] .main-svg', timeout=60000)
        interactive = time.perf_counter() - started
        browser.close()
    return drawn, interactive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", metavar="DIR",
                        help="build in DIR and keep it; a store already in DIR/results is reused (default: a temporary folder)")
    parser.add_argument("--runs", type=int, default=3, metavar="N", help="first views measured, each in a fresh browser (default 3)")
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="srbf-site-bench-"))
    try:
        if (folder / "results").exists():
            print(f"store: reusing {folder / 'results'}")
        else:
            started = time.perf_counter()
            n = fill_store(folder / "results")
            print(f"store: {n} scored predictions written in {time.perf_counter() - started:.1f} s (not part of the build)")

        from srbf.site.build import build_site
        from srbf.site.load import load_results

        started, cpu = time.perf_counter(), time.process_time()
        site = build_site(load_results(folder / "results"), folder / "site", source=str(folder / "results"))
        build, cpu = time.perf_counter() - started, time.process_time() - cpu
        data_mb = site.data_bytes / 1e6
        print(f"build: {build:.1f} s, {cpu:.1f} s of CPU (target < 30 s; load average {os.getloadavg()[0]:.1f})")
        print(f"data: {data_mb:.2f} MB in {len(site.data_files)} files (target < 10 MB)")
        for _ in range(args.runs):
            drawn, interactive = first_view_seconds(site.directory)
            print(f"first view: {drawn:.2f} s in headless Chromium (target < 2 s); plotly's chart in place "
                  f"after {interactive:.2f} s (load average {os.getloadavg()[0]:.1f})")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
